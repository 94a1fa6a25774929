#include "activitylinks.h"

#include <QPainter>
#include <QRegion>
#include <cmath>
#include <vector>

#include "activitycolors.h"
#include "linkloadink.h"
#include "linkloads.h"
#include "topologylayout.h"

namespace {

// Cosmetic one-pixel aliased pens are what the software rasterizer draws fast.
void drawFabric(QPainter& p, const TopologyLayout& layout, const ViewTransform& t,
                const cs::LinkUse& use, cs::Dim dim)
{
    const cs::LinkClass farthest = use.farthest[dim];
    const QRectF visible = QRectF(QPointF(0, 0), t.viewport).adjusted(-2, -2, 2, 2);
    std::vector<QLineF> lines;
    for (const LinkBundle& b : layout.bundles()) {
        if (b.cls > farthest)
            continue;
        const QLineF line(t.toScreen(b.line.p1()), t.toScreen(b.line.p2()));
        if (QRectF(line.p1(), line.p2()).normalized().adjusted(-1, -1, 1, 1).intersects(visible))
            lines.push_back(line);
    }
    p.setPen(QPen(linkColor(dim, use[dim]), 0));
    p.drawLines(lines.data(), int(lines.size()));
}

bool visibleOnScreen(const QLineF& line, const QRectF& visible)
{
    return QRectF(line.p1(), line.p2()).normalized().adjusted(-1, -1, 1, 1).intersects(visible);
}

// The dimension's own routed links: bundles far out, each link close in.
void drawRoutes(QPainter& p, const TopologyLayout& layout, const ViewTransform& t,
                const cs::LinkUse& use, const DimRoutes& routes, cs::Dim dim)
{
    const bool close = levelOfDetail(t.scale).gpuLinks;
    const QRectF visible = QRectF(QPointF(0, 0), t.viewport).adjusted(-2, -2, 2, 2);
    std::vector<QLineF> lines;
    // Two pixels wide, so that a lit path reads over the static links beneath it.
    const auto add = [&](const QLineF& world) {
        const QLineF line(t.toScreen(world.p1()), t.toScreen(world.p2()));
        if (!visibleOnScreen(line, visible))
            return;
        const QPointF d = line.p2() - line.p1();
        lines.push_back(line);
        lines.push_back(
            line.translated(std::abs(d.x()) > std::abs(d.y()) ? QPointF(0, 1) : QPointF(1, 0)));
    };
    const auto& all = layout.topology().links();
    if (close) {
        // As the static layer draws them: the NIC links of GPUs in view, not those passing
        // through from racks out of it.
        const QRectF world = t.visibleWorld();
        const auto& nics = layout.topology().nics();
        for (int link : routes.links[dim]) {
            const cs::Link& l = all[size_t(link)];
            if (l.cls == cs::LinkClass::NVLink ||
                (l.cls == cs::LinkClass::ScaleOut1 &&
                 !layout.gpuRect(nics[size_t(l.a.index)].firstGpu).intersects(world)))
                continue;
            add(layout.linkLine(link));
        }
    } else {
        for (int b : routes.bundles[dim])
            add(layout.bundles()[size_t(b)].line);
    }
    p.setPen(QPen(linkColor(dim, use[dim]), 0));
    p.drawLines(lines.data(), int(lines.size()));
}

void drawDomains(QPainter& p, const TopologyLayout& layout, const ViewTransform& t,
                 const cs::LinkUse& use, cs::Dim dim)
{
    // Each dimension its own ring, so that TP and CP on the same domain both show.
    const int inset = 1 + 2 * int(dim);
    const QRect visible = QRectF(QPointF(0, 0), t.viewport).toAlignedRect();
    std::vector<QRect> rects;
    for (int d = 0; d < layout.topology().domainCount(); ++d) {
        const QRect r =
            t.toScreen(layout.domainRect(d)).toAlignedRect().adjusted(inset, inset, -inset, -inset);
        if (r.width() > 2 && r.height() > 2 && r.intersects(visible))
            rects.push_back(r);
    }
    p.setPen(QPen(linkColor(dim, use[dim]), 0));
    p.drawRects(rects.data(), int(rects.size()));
}

} // namespace

DimRoutes dimRoutes(const TopologyLayout& layout, const cs::StepTraffic& traffic)
{
    DimRoutes routes;
    const std::vector<int> bundleOf = bundleOfEachLink(layout);
    const auto& links = layout.topology().links();
    cs::PerDim<std::vector<uint8_t>> bundleLit;
    for (cs::Dim d : cs::kAllDims)
        bundleLit[d].assign(layout.bundles().size(), 0);
    for (size_t i = 0; i < traffic.links.size(); ++i) {
        const cs::LinkTraffic& t = traffic.links[i];
        if (t.bytes <= 0)
            continue;
        for (cs::Dim d : cs::kAllDims) {
            if (!t.carries(d))
                continue;
            routes.links[d].push_back(int(i));
            if (links[i].cls == cs::LinkClass::NVLink)
                routes.nvLink[d] = true;
            else if (bundleOf[i] >= 0)
                bundleLit[d][size_t(bundleOf[i])] = 1;
        }
    }
    for (cs::Dim d : cs::kAllDims)
        for (size_t b = 0; b < bundleLit[d].size(); ++b)
            if (bundleLit[d][b])
                routes.bundles[d].push_back(int(b));
    return routes;
}

void paintActivityLinks(QPainter& p, const TopologyLayout& layout, const ViewTransform& view,
                        const cs::LinkUse& use, const DimRoutes* routes)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setBrush(Qt::NoBrush);
    const QRectF viewport(QPointF(0, 0), view.viewport);
    const bool close = levelOfDetail(view.scale).gpuLinks;
    // Close in, single links run from each GPU: lit, they keep to the aisles and the fabric
    // band rather than cover the GPUs, as a selection's do. Nothing reaches past the view.
    QRegion clip(viewport.toAlignedRect());
    if (close && routes)
        for (size_t r = 0; r < layout.topology().racks().size(); ++r) {
            const QRectF rack = view.toScreen(layout.rackRect(int(r)));
            if (rack.intersects(viewport))
                clip -= QRegion(rack.toAlignedRect());
        }
    for (cs::Dim d : cs::kAllDims) {
        if (use[d] <= 0)
            continue;
        p.setClipRect(viewport);
        if (routes) {
            // NVLink traffic shows as its domains' rings.
            if (routes->nvLink[d])
                drawDomains(p, layout, view, use, d);
            p.setClipRegion(clip);
            drawRoutes(p, layout, view, use, *routes, d);
        } else if (use.crossesFabric(d)) {
            drawFabric(p, layout, view, use, d);
        } else {
            drawDomains(p, layout, view, use, d);
        }
    }
    p.restore();
}
