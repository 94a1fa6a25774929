// The topology's static layer: links, racks, switches and what is out of service, drawn once
// per view and cached (topologyrenderer.cpp composes it with the animated overlay).

#include "topologyrenderer.h"

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "placement.h"
#include "topologydrawing.h"

using namespace topologydrawing;

void TopologyRenderer::drawStatic(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                                  const QRectF& cull, std::vector<QRectF>& labels) const
{
    p.fillRect(view.toScreen(cull), m_ink->background);
    p.setRenderHint(QPainter::Antialiasing, false);
    // Labels and wide lines reach a little beyond what they belong to.
    const QRectF reach =
        cull.adjusted(-60 / view.scale, -60 / view.scale, 60 / view.scale, 60 / view.scale);
    drawLinks(p, view, lod, reach);
    drawRacks(p, view, lod, reach, labels);
    drawSwitches(p, view, lod, reach, labels);
    drawOutOfService(p, view, reach);
}

void TopologyRenderer::drawOutOfService(QPainter& p, const ViewTransform& view,
                                        const QRectF& visible) const
{
    const cs::Topology& topo = m_layout.topology();
    std::vector<QLineF> crosses;
    std::vector<QRect> boxes;
    auto cross = [&](const QRectF& world) {
        if (!world.intersects(visible))
            return;
        const QRectF r = view.toScreen(world).adjusted(-1, -1, 1, 1);
        boxes.push_back(cellOnScreen(r));
        crosses.emplace_back(r.topLeft(), r.bottomRight());
        crosses.emplace_back(r.bottomLeft(), r.topRight());
    };
    for (size_t s = 0; s < topo.switches().size(); ++s)
        if (topo.switchFailed(int(s)))
            cross(m_layout.switchRect(int(s)));
    for (size_t s = 0; s < topo.nvSwitches().size(); ++s)
        if (topo.nvSwitchFailed(int(s)))
            cross(m_layout.nvSwitchRect(int(s)));
    // Racks and nodes out of service: their GPUs hold no rank (dark in every mode), and a
    // dashed outline says why.
    const cs::Failures& failures = topo.cluster().failures;
    std::vector<QRectF> outOfService;
    for (int r : failures.racks)
        if (r >= 0 && r < int(topo.racks().size()) && m_layout.rackRect(r).intersects(visible))
            outOfService.push_back(view.toScreen(m_layout.rackRect(r)).adjusted(1, 1, -1, -1));
    for (int n : failures.nodes)
        if (n >= 0 && n < int(topo.nodes().size()) && m_layout.trayRect(n).intersects(visible))
            outOfService.push_back(view.toScreen(m_layout.trayRect(n)));
    if (!outOfService.empty()) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(outOfServiceColor(), 0, Qt::DashLine));
        p.drawRects(outOfService.data(), int(outOfService.size()));
    }
    if (boxes.empty())
        return;
    p.setPen(Qt::NoPen);
    p.setBrush(m_ink->background);
    p.drawRects(boxes.data(), int(boxes.size()));
    std::vector<QLineF> thick;
    for (const QLineF& l : crosses)
        appendThickLine(thick, l, 2);
    p.setPen(QPen(outOfServiceColor(), 0));
    p.drawLines(thick.data(), int(thick.size()));
    p.setBrush(Qt::NoBrush);
    p.drawRects(boxes.data(), int(boxes.size()));
}

void TopologyRenderer::drawLinks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                                 const QRectF& visible) const
{
    const cs::Topology& topo = m_layout.topology();
    // One line list per colour: a tier's ink, or a load step of the link ink. Links out of
    // service are dashed in the out-of-service ink, over the rest.
    const bool loads = !m_linkInk.empty();
    std::vector<std::vector<QLineF>> lines(loads ? m_linkInk.palette.size() : 4);
    std::vector<QLineF> down;
    if (!lod.gpuLinks) {
        // Far out: one line per bundle, its width saying its bandwidth.
        const auto& bundles = m_layout.bundles();
        for (size_t i = 0; i < bundles.size(); ++i) {
            const LinkBundle& b = bundles[i];
            if (!lineVisible(b.line, visible))
                continue;
            const int tier = tierOf(b.cls);
            const QLineF screen(view.toScreen(b.line.p1()), view.toScreen(b.line.p2()));
            if (!m_bundleUsable[i]) {
                down.push_back(screen);
                continue;
            }
            appendThickLine(lines[loads ? m_linkInk.bundle[i] : size_t(tier)], screen,
                            m_bundleWidth[i]);
        }
    } else {
        // Close in: every link whose GPU or switch is in view.
        const auto& links = topo.links();
        auto add = [&](int i) {
            const cs::LinkClass cls = links[size_t(i)].cls;
            const QLineF l = m_layout.linkLine(i);
            const QLineF screen(view.toScreen(l.p1()), view.toScreen(l.p2()));
            if (!topo.linkUsable(i))
                down.push_back(screen);
            else
                lines[loads ? m_linkInk.link[size_t(i)]
                            : size_t(cls == cs::LinkClass::NVLink ? 0 : tierOf(cls))]
                    .push_back(screen);
        };
        for (int g : m_visibleGpus) {
            for (int i = topo.nvLinkOf(g, 0); i < topo.nvLinkOf(g, topo.nvSwitchesPerDomain()); ++i)
                add(i);
            add(topo.nicLinkOfGpu(g));
        }
        for (size_t i = 0; i < links.size(); ++i)
            if ((links[i].cls == cs::LinkClass::ScaleOut2 ||
                 links[i].cls == cs::LinkClass::ScaleOut3) &&
                lineVisible(m_layout.linkLine(int(i)), visible))
                add(int(i));
    }
    for (size_t c = 0; c < lines.size(); ++c) {
        const QColor color = loads    ? QColor(m_linkInk.palette[c])
                             : c == 0 ? m_ink->nvLinkLine
                                      : m_ink->tierLine[c];
        p.setPen(QPen(color, 0));
        p.drawLines(lines[c].data(), int(lines[c].size()));
    }
    if (!down.empty()) {
        p.setPen(QPen(outOfServiceColor(), 0, Qt::DashLine));
        p.drawLines(down.data(), int(down.size()));
    }
    if (!lod.gpuLinks)
        return;
    if (!lod.linkLabels)
        return;
    // One label per visible rack says what its NVLink and NIC links carry.
    const cs::ClusterDesc& c = topo.cluster();
    p.setFont(pixelFont(std::min(14.0, view.scale * 0.3)));
    p.setPen(m_ink->label);
    for (size_t r = 0; r < topo.racks().size(); ++r) {
        const QRectF rack = view.toScreen(m_layout.rackRect(int(r)));
        if (!m_layout.rackRect(int(r)).intersects(visible))
            continue;
        const QString text = QObject::tr("%1: %2 GB/s per GPU per direction; %3 NIC: %4 GB/s")
                                 .arg(QString::fromStdString(c.scaleUp.name))
                                 .arg(c.nvlinkGBpsPerDirection())
                                 .arg(QString::fromStdString(c.scaleOut.name))
                                 .arg(c.nicGBpsPerDirection());
        p.drawText(QRectF(rack.left(), rack.bottom() + 2, rack.width(), view.scale * 1.5),
                   Qt::AlignLeft | Qt::AlignTop,
                   p.fontMetrics().elidedText(text, Qt::ElideRight, int(rack.width())));
    }
}

void TopologyRenderer::drawRacks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                                 const QRectF& visible, std::vector<QRectF>& labels) const
{
    const cs::Topology& topo = m_layout.topology();
    const bool rackDomain = topo.cluster().scaleUp.domain == cs::DomainKind::Rack;
    std::vector<QRect> racks, trays;
    std::vector<std::vector<QRect>> nvSwitches(m_linkInk.empty() ? 1 : m_linkInk.palette.size());
    for (size_t r = 0; r < topo.racks().size(); ++r) {
        const QRectF rack = m_layout.rackRect(int(r));
        if (!rack.intersects(visible))
            continue;
        racks.push_back(cellOnScreen(view.toScreen(rack)));
        const cs::Rack& info = topo.racks()[r];
        if (lod.trayOutlines || !rackDomain)
            for (int n = info.firstNode; n < info.firstNode + topo.cluster().nodesPerRack; ++n)
                trays.push_back(cellOnScreen(view.toScreen(m_layout.trayRect(n))));
    }
    for (size_t s = 0; s < topo.nvSwitches().size(); ++s) {
        const QRectF sw = m_layout.nvSwitchRect(int(s));
        if (sw.intersects(visible))
            nvSwitches[m_linkInk.empty() ? 0 : m_linkInk.nvSwitch[s]].push_back(
                cellOnScreen(view.toScreen(sw)));
    }
    p.setPen(QPen(rackDomain ? m_ink->domainOutline : m_ink->rackOutline, 0));
    p.setBrush(m_ink->rackFill);
    p.drawRects(racks.data(), int(racks.size()));
    // A node-wide NVLink domain is its tray: outlined as the domain.
    p.setPen(rackDomain ? QPen(Qt::NoPen) : QPen(m_ink->domainOutline, 0));
    p.setBrush(m_ink->trayFill);
    if (lod.trayOutlines || !rackDomain)
        p.drawRects(trays.data(), int(trays.size()));
    p.setPen(Qt::NoPen);
    for (size_t c = 0; c < nvSwitches.size(); ++c) {
        p.setBrush(m_linkInk.empty() ? m_ink->nvSwitchFill : QColor(m_linkInk.palette[c]));
        p.drawRects(nvSwitches[c].data(), int(nvSwitches[c].size()));
    }

    if (!lod.rackLabels)
        return;
    p.setPen(m_ink->label);
    p.setFont(rackLabelFont(view));
    for (const NameLabel& label : rackLabels(view, visible)) {
        p.drawText(label.baseline, label.text);
        labels.push_back(label.box);
    }
}

namespace {

// Rack names sit in the aisle above their row, clear of the racks on both sides by
// kLabelGapPx; type smaller than kLeastLabelPx is not drawn.
constexpr double kLabelGapPx = 1;
constexpr int kLeastLabelPx = 7;
constexpr double kLabelSpacingPx = 6;

} // namespace

double TopologyRenderer::aislePixels(const ViewTransform& view) const
{
    return (m_layout.rackPitch().y() - m_layout.rackRect(0).height()) * view.scale -
           2 * kLabelGapPx;
}

QFont TopologyRenderer::rackLabelFont(const ViewTransform& view) const
{
    // The largest type up to the view's whose digits fit the aisle (pixel size 1: none does).
    // Digits have no descenders: their ink, not the font's line, must fit.
    const double aisle = aislePixels(view);
    for (int px = int(m_textPx); px >= kLeastLabelPx; --px) {
        const QFont font = pixelFont(px);
        if (QFontMetricsF(font).tightBoundingRect(QStringLiteral("0123456789")).height() <= aisle)
            return font;
    }
    QFont none = pixelFont(kLeastLabelPx);
    none.setPixelSize(1);
    return none;
}

QFont TopologyRenderer::tierLabelFont() const
{
    return pixelFont(m_textPx);
}

std::vector<TopologyRenderer::NameLabel> TopologyRenderer::rackLabels(const ViewTransform& view,
                                                                      const QRectF& cull) const
{
    const QFont font = rackLabelFont(view);
    if (!levelOfDetail(view.scale).rackLabels || font.pixelSize() < kLeastLabelPx ||
        m_layout.topology().racks().empty())
        return {};
    const QFontMetricsF metrics(font);
    const cs::Topology& topo = m_layout.topology();
    const cs::ClusterDesc& c = topo.cluster();
    const int racks = int(topo.racks().size());
    // Every column's number where the widest fits beside the next; else every 2nd, 5th, 10th,
    // ... column's, so that numbers never run into each other.
    const double pitch = m_layout.rackPitch().x() * view.scale;
    const double widest = metrics.horizontalAdvance(QString::number(racks - 1)) + kLabelSpacingPx;
    int stride = 1;
    for (int step : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000})
        if ((stride = step) * pitch >= widest)
            break;
    // Words ("rack 12: 64 GPUs") where a rack is wide enough and the aisle holds a whole line.
    const bool words = stride == 1 && metrics.height() <= aislePixels(view);
    const bool rackDomain = c.scaleUp.domain == cs::DomainKind::Rack;
    std::vector<NameLabel> out;
    for (int r = 0; r < racks; ++r) {
        if (topo.racks()[size_t(r)].column % stride != 0 || !m_layout.rackRect(r).intersects(cull))
            continue;
        const QRectF rack = view.toScreen(m_layout.rackRect(r));
        const QString full = QObject::tr("rack %1: %2 GPUs%3")
                                 .arg(r)
                                 .arg(c.nodesPerRack * c.gpusPerNode)
                                 .arg(rackDomain ? QObject::tr(", one NVLink domain") : QString());
        const bool whole = words && metrics.horizontalAdvance(full) <= rack.width();
        const QString text = whole ? full : QString::number(r);
        // The box is the line's where it is words, the digits' ink where it is a number.
        const QRectF ink =
            whole ? QRectF(0, -metrics.ascent(), metrics.horizontalAdvance(text), metrics.height())
                  : metrics.tightBoundingRect(text);
        const QPointF baseline(rack.left(), rack.top() - kLabelGapPx - ink.bottom());
        out.push_back({ink.translated(baseline), text, baseline, {}});
    }
    return out;
}

std::vector<TopologyRenderer::NameLabel>
TopologyRenderer::tierLabels(const ViewTransform& view) const
{
    const cs::Topology& topo = m_layout.topology();
    std::array<QRectF, 4> rows;
    for (size_t s = 0; s < topo.switches().size(); ++s)
        rows[size_t(std::clamp(topo.switches()[s].tier, 1, 3))] |= m_layout.switchRect(int(s));
    // Each tier row is named above its left end, above the switch names when they are shown.
    static const char* const kTierNames[] = {"", "leaf", "spine", "core"};
    const cs::ClusterDesc& c = topo.cluster();
    const bool rails = c.scaleOut.topology.kind == cs::FabricKind::RailOptimized;
    const QFontMetricsF metrics(tierLabelFont());
    const bool switchNames = levelOfDetail(view.scale).switchLabels;
    std::vector<NameLabel> out;
    for (size_t t = 1; t <= 3; ++t) {
        if (rows[t].isEmpty())
            continue;
        QString text = QObject::tr("tier %1: %2 %3 switches")
                           .arg(t)
                           .arg(topo.switchCount(int(t)))
                           .arg(kTierNames[t]);
        if (t == 1)
            text += rails ? QObject::tr(" (rail-optimized: %1 rails, %2)")
                                .arg(c.gpusPerNode)
                                .arg(QString::fromStdString(c.scaleOut.name))
                          : QObject::tr(" (%1)").arg(QString::fromStdString(c.scaleOut.name));
        const QRectF row = view.toScreen(rows[t]);
        const double bottom = row.top() - (switchNames ? 20 : 2);
        // Within the picture's right end, which the whole view shows, and the view's width: a
        // name that would run on is shortened, whole in its tooltip. (Neither limit changes
        // with a pan, so a pan that redraws only a strip meets the same text.)
        const double room =
            std::min(view.toScreen(m_layout.bounds()).right() - row.left(), view.viewport.width());
        const QString shown = metrics.elidedText(text, Qt::ElideRight, std::max(0.0, room - 8));
        out.push_back({QRectF(row.left(), bottom - metrics.height(),
                              metrics.horizontalAdvance(shown) + 8, metrics.height()),
                       shown, QPointF(row.left() + 4, bottom - metrics.descent()),
                       shown == text ? QString() : text});
    }
    return out;
}

QString TopologyRenderer::tierLabelAt(const ViewTransform& view, QPointF point) const
{
    for (const NameLabel& label : tierLabels(view))
        if (label.box.contains(point))
            return label.whole;
    return {};
}

void TopologyRenderer::drawSwitches(QPainter& p, const ViewTransform& view,
                                    const LevelOfDetail& lod, const QRectF& visible,
                                    std::vector<QRectF>& labels) const
{
    const cs::Topology& topo = m_layout.topology();
    const auto& switches = topo.switches();
    // One rect list per colour: a tier's fill, or a load step of the link ink.
    const bool loads = !m_linkInk.empty();
    std::vector<std::vector<QRect>> byColor(loads ? m_linkInk.palette.size() : 4);
    for (size_t s = 0; s < switches.size(); ++s) {
        const QRectF r = m_layout.switchRect(int(s));
        const size_t tier = size_t(std::clamp(switches[s].tier, 1, 3));
        if (r.intersects(visible))
            byColor[loads ? m_linkInk.sw[s] : tier].push_back(cellOnScreen(view.toScreen(r)));
    }
    p.setPen(Qt::NoPen);
    for (size_t c = loads ? 0 : 1; c < byColor.size(); ++c) {
        p.setBrush(loads ? QColor(m_linkInk.palette[c]) : m_ink->tierFill[c]);
        p.drawRects(byColor[c].data(), int(byColor[c].size()));
    }
    p.setPen(m_ink->label);
    p.setFont(tierLabelFont());
    QColor backing = m_ink->background;
    backing.setAlpha(210);
    // On a backing that keeps the text legible over the links that run up to the tier.
    for (const NameLabel& label : tierLabels(view)) {
        p.fillRect(label.box, backing);
        p.drawText(label.baseline, label.text);
        labels.push_back(label.box);
    }
    if (!lod.switchLabels)
        return;
    p.setFont(pixelFont(std::min(12.0, view.scale * 0.5)));
    for (size_t s = 0; s < switches.size(); ++s) {
        const QRectF r = m_layout.switchRect(int(s));
        if (!r.intersects(visible))
            continue;
        const QRectF screen = view.toScreen(r);
        const QString name = QStringLiteral("%1%2")
                                 .arg(QLatin1Char("?LSC"[std::clamp(switches[s].tier, 1, 3)]))
                                 .arg(switches[s].index);
        p.drawText(screen.adjusted(-20, -20, 20, 0), Qt::AlignHCenter | Qt::AlignTop, name);
    }
}
