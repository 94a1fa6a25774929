#include "topologyrenderer.h"

#include <QFontMetricsF>
#include <QObject>
#include <QPainter>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "placement.h"
#include "topologydrawing.h"

using namespace topologydrawing;

namespace {

std::atomic<long> g_staticLayersDrawn{0};

// The cluster as far as the static layer shows it: its shape, names and failures. The rates
// show only in the link labels close in (compared apart) and, relatively, in the bundles' widths.
cs::ClusterDesc staticDrawing(const cs::ClusterDesc& c)
{
    cs::ClusterDesc drawn = cs::devicesOf(c);
    drawn.scaleUp.name = c.scaleUp.name; // the fabrics' names label the drawing
    drawn.scaleOut.name = c.scaleOut.name;
    return drawn;
}

// Far out, a bundle's width (1 to 5 pixels) says its bandwidth against its tier's widest.
std::vector<uint8_t> bundleWidths(const TopologyLayout& layout)
{
    std::array<double, 4> maxGBps{};
    for (const LinkBundle& b : layout.bundles())
        maxGBps[size_t(tierOf(b.cls))] = std::max(maxGBps[size_t(tierOf(b.cls))], b.GBps);
    std::vector<uint8_t> widths;
    widths.reserve(layout.bundles().size());
    for (const LinkBundle& b : layout.bundles()) {
        const double widest = maxGBps[size_t(tierOf(b.cls))];
        widths.push_back(uint8_t(1 + (widest > 0 ? std::lround(4.0 * b.GBps / widest) : 0)));
    }
    return widths;
}

} // namespace

TopologyRenderer::TopologyRenderer(const TopologyLayout& layout, const cs::Placement& placement)
    : m_layout(layout)
    , m_placement(placement)
    , m_drawnCluster(staticDrawing(layout.topology().cluster()))
    , m_bundleWidth(bundleWidths(layout))
    , m_labelledRates{layout.topology().cluster().nvlinkGBpsPerDirection(),
                      layout.topology().cluster().nicGBpsPerDirection()}
{
    m_colors.palette = {0xff808080};
    m_colors.index.assign(layout.topology().gpus().size(), 0);
    m_bundleUsable.assign(layout.bundles().size(), 1);
    if (layout.topology().hasFabricFailures())
        m_bundleUsable = usableBundles(layout);
}

const TopologyInk& TopologyInk::dark()
{
    static const TopologyInk ink{
        QColor(0x16, 0x19, 0x1d),
        QColor(0x23, 0x27, 0x2e),
        QColor(0x3d, 0x44, 0x4e),
        QColor(0x76, 0xb9, 0x00),
        QColor(0x2e, 0x34, 0x3d),
        QColor(0x41, 0x5e, 0x1c),
        QColor(0x3f, 0x63, 0x1a),
        QColor(0xc8, 0xcd, 0xd4),
        QColor(0xff, 0xff, 0xff),
        {QColor(), QColor(0x4a, 0x90, 0xc2), QColor(0x8e, 0x6b, 0xc4), QColor(0xc4, 0x6b, 0x9b)},
        {QColor(), QColor(0x2f, 0x5a, 0x78), QColor(0x4f, 0x3f, 0x72), QColor(0x6e, 0x3f, 0x59)}};
    return ink;
}

const TopologyInk& TopologyInk::light()
{
    static const TopologyInk ink{
        QColor(0xee, 0xf0, 0xf3),
        QColor(0xfb, 0xfc, 0xfd),
        QColor(0xb4, 0xba, 0xc3),
        QColor(0x5a, 0x9a, 0x00),
        QColor(0xe4, 0xe8, 0xed),
        QColor(0xa9, 0xcf, 0x7a),
        QColor(0x9c, 0xc7, 0x6a),
        QColor(0x3a, 0x3f, 0x47),
        QColor(0x00, 0x00, 0x00),
        {QColor(), QColor(0x4a, 0x90, 0xc2), QColor(0x8e, 0x6b, 0xc4), QColor(0xc4, 0x6b, 0x9b)},
        {QColor(), QColor(0x93, 0xb9, 0xd6), QColor(0xb7, 0xa6, 0xda), QColor(0xd8, 0xa6, 0xc3)}};
    return ink;
}

QColor TopologyRenderer::background()
{
    return TopologyInk::dark().background;
}

void TopologyRenderer::setInk(const TopologyInk& ink)
{
    if (m_ink == &ink)
        return;
    m_ink = &ink;
    // Everything drawn is in the old ink: the next frame draws anew.
    m_staticValid = false;
    m_frameValid = false;
    m_exact = QImage();
}

void TopologyRenderer::setTextPixels(double px)
{
    if (px == m_textPx)
        return;
    m_textPx = px;
    // The names are in the static layer.
    m_staticValid = false;
    m_frameValid = false;
    m_exact = QImage();
}

QColor TopologyRenderer::selectionColor(cs::Dim dim)
{
    // The dimension's own colour, lifted to stand out over the GPU cells.
    return QColor::fromRgb(0xff000000u | cs::dimInfo(dim).rgb).lighter(125);
}

QColor TopologyRenderer::dimmed(QRgb color)
{
    return dimmedOver(color, background());
}

QColor TopologyRenderer::outOfServiceColor()
{
    return QColor(0xff, 0x4d, 0x6d);
}

void TopologyRenderer::setLinkInk(LinkInk ink)
{
    m_linkInk = std::move(ink);
    m_staticValid = false;
    m_frameValid = false;
    m_exact = QImage();
}

void TopologyRenderer::setGpuColors(GpuColors colors)
{
    m_colors = std::move(colors);
}

void TopologyRenderer::setSelection(GroupSelection selection)
{
    m_selection = std::move(selection);
    m_isMember.assign(m_layout.topology().gpus().size(), 0);
    for (const auto& members : m_selection.members)
        for (int g : members)
            m_isMember[size_t(g)] = 1;
}

void TopologyRenderer::paint(QPainter& painter, const ViewTransform& view)
{
    ensureStaticLayer(view, painter.device()->devicePixelRatioF());
    composeFrame(view);
    painter.save();
    painter.setCompositionMode(QPainter::CompositionMode_Source); // opaque: a plain copy
    painter.drawImage(QPointF(0, 0), m_frame);
    painter.restore();
}

long TopologyRenderer::staticLayersDrawn()
{
    return g_staticLayersDrawn.load();
}

bool TopologyRenderer::adoptStaticLayer(TopologyRenderer& previous)
{
    if (!previous.m_staticValid || previous.m_ink != m_ink || previous.m_textPx != m_textPx ||
        !previous.m_linkInk.empty() || !m_linkInk.empty() ||
        previous.m_drawnCluster != m_drawnCluster || previous.m_bundleWidth != m_bundleWidth)
        return false;
    // (The previous renderer's layout and topology are gone by now: only its copies are read.)
    if (levelOfDetail(previous.m_staticView.scale).linkLabels &&
        previous.m_labelledRates != m_labelledRates)
        return false;
    m_static = previous.m_static; // shared with m_exact, never written: copies cost nothing
    m_staticView = previous.m_staticView;
    m_staticValid = true;
    m_staticIsPreview = previous.m_staticIsPreview;
    m_exact = previous.m_exact;
    m_exactView = previous.m_exactView;
    m_names = previous.m_names;
    m_linkClip = previous.m_linkClip;
    m_visibleGpus = previous.m_visibleGpus; // the same places: the layouts are alike
    m_gpuCells = previous.m_gpuCells;
    // The last frame differs from the static layer where it has overlays, and the GPU cells are
    // filled anew each frame: restoring the overlaid pixels makes it this renderer's.
    m_frame = std::move(previous.m_frame);
    m_scratch = std::move(previous.m_scratch);
    m_frameValid = previous.m_frameValid;
    m_overlaid = previous.m_overlaid;
    // The labels name ranks, which the run places anew.
    prepareGpuLabels(m_staticView, m_static.devicePixelRatioF());
    return true;
}

void TopologyRenderer::composeFrame(const ViewTransform& view)
{
    if (m_frameValid) {
        restoreOverlaidPixels();
    } else {
        m_frame = m_static.copy();
        m_frameValid = true;
        m_overlaid.clear();
    }
    const LevelOfDetail lod = levelOfDetail(view.scale);
    std::vector<QRectF> touched;
    {
        // Lit links go under the GPU cells: they show in the aisles and the fabric band
        // without hiding the GPUs of racks they pass over.
        QPainter p(&m_frame);
        p.setRenderHint(QPainter::Antialiasing, false);
        if (m_selection.rank >= 0 || !m_jobLight.empty()) // ... and under the names
            p.setClipRegion(m_linkClip);
        drawJobLinks(p, view, lod, touched);
        drawSelectedLinks(p, view, lod, touched);
    }
    fillGpuCells();
    QPainter p(&m_frame);
    p.setRenderHint(QPainter::Antialiasing, false);
    drawJobOutline(p, view, touched);
    drawSelectedGpus(p, view, touched);
    drawGpuLabels(p, touched);
    drawHover(p, view, touched);
    p.end();

    // Many small rects (a big selection) cost more to track than one copy of their hull.
    constexpr size_t kMaxRects = 1024;
    const qreal dpr = m_frame.devicePixelRatioF();
    const QRect pixels = m_frame.rect();
    QRect hull;
    for (const QRectF& t : touched) {
        const QRect r =
            QRectF(t.topLeft() * dpr, t.size() * dpr).toAlignedRect().adjusted(-2, -2, 2, 2) &
            pixels;
        if (r.isEmpty())
            continue;
        hull |= r;
        if (touched.size() <= kMaxRects)
            m_overlaid.push_back(r);
    }
    if (touched.size() > kMaxRects && !hull.isEmpty())
        m_overlaid.push_back(hull);
}

void TopologyRenderer::restoreOverlaidPixels()
{
    const uchar* from = m_static.constBits();
    uchar* to = m_frame.bits();
    const qsizetype stride = m_frame.bytesPerLine();
    for (const QRect& r : m_overlaid)
        for (int y = r.top(); y <= r.bottom(); ++y)
            std::memcpy(to + y * stride + r.left() * 4, from + y * stride + r.left() * 4,
                        size_t(r.width()) * 4);
    m_overlaid.clear();
}

void TopologyRenderer::ensureStaticLayer(const ViewTransform& view, qreal dpr)
{
    const QSize pixels = (view.viewport * dpr).toSize();
    const bool sameDevice =
        m_staticValid && m_static.size() == pixels && m_static.devicePixelRatioF() == dpr;
    const bool sameView =
        sameDevice && m_staticView.scale == view.scale && m_staticView.center == view.center;
    if (sameView && !(m_staticIsPreview && !m_previewAllowed))
        return;
    const bool preview =
        sameDevice && m_previewAllowed && (m_staticIsPreview || m_staticView.scale != view.scale);
    // A pan by whole device pixels reuses the old layer: only the uncovered strips are drawn.
    const QPointF shift = (m_staticView.center - view.center) * view.scale * dpr;
    const bool scroll = sameDevice && !m_staticIsPreview && m_staticView.scale == view.scale &&
                        std::abs(shift.x() - std::round(shift.x())) < 1e-3 &&
                        std::abs(shift.y() - std::round(shift.y())) < 1e-3 &&
                        std::abs(shift.x()) < pixels.width() &&
                        std::abs(shift.y()) < pixels.height();
    m_staticView = view;
    m_staticValid = true;
    ++g_staticLayersDrawn;
    if (m_scratch.size() != pixels)
        m_scratch = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    m_scratch.setDevicePixelRatio(dpr);
    findVisibleGpus(view, dpr);
    prepareGpuLabels(view, dpr);

    const LevelOfDetail lod = levelOfDetail(view.scale);
    const QRect viewport(QPoint(0, 0), view.viewport.toSize());
    std::vector<QRectF> labels; // the names drawn now
    QPainter p(&m_scratch);
    if (preview) {
        drawScaledPreview(p, view);
        m_names = QRegion(); // the preview's names are scaled images of the last ones
    } else if (!scroll) {
        drawStatic(p, view, lod, view.visibleWorld(), labels);
        m_names = QRegion();
    } else {
        const QPoint offset(int(std::lround(shift.x())), int(std::lround(shift.y())));
        m_names.translate((QPointF(offset) / dpr).toPoint());
        p.setCompositionMode(QPainter::CompositionMode_Source);
        p.drawImage(QPointF(offset) / dpr, m_static);
        p.setCompositionMode(QPainter::CompositionMode_SourceOver);
        const QRectF all(QPointF(0, 0), view.viewport);
        const QRectF kept = all.translated(QPointF(offset) / dpr) & all;
        const QRectF strips[] = {
            QRectF(all.left(), all.top(), all.width(), kept.top() - all.top()),
            QRectF(all.left(), kept.bottom(), all.width(), all.bottom() - kept.bottom()),
            QRectF(all.left(), kept.top(), kept.left() - all.left(), kept.height()),
            QRectF(kept.right(), kept.top(), all.right() - kept.right(), kept.height()),
        };
        for (const QRectF& strip : strips) {
            if (strip.width() <= 0 || strip.height() <= 0)
                continue;
            p.setClipRect(strip);
            drawStatic(p, view, lod,
                       QRectF(view.toWorld(strip.topLeft()), strip.size() / view.scale), labels);
        }
    }
    p.end();
    for (const QRectF& box : labels)
        m_names += box.toAlignedRect();
    m_names &= viewport;
    m_linkClip = QRegion(viewport) - m_names;
    std::swap(m_static, m_scratch);
    m_frameValid = false;
    m_staticIsPreview = preview;
    if (!preview) {
        m_exact = m_static;
        m_exactView = view;
    }
}

void TopologyRenderer::drawScaledPreview(QPainter& p, const ViewTransform& view) const
{
    // Screen points of the exact layer map to this view by a scale and a shift.
    const double ratio = view.scale / m_exactView.scale;
    const QPointF middle(view.viewport.width() / 2, view.viewport.height() / 2);
    const QPointF shift = middle - middle * ratio + (m_exactView.center - view.center) * view.scale;
    p.fillRect(QRectF(QPointF(0, 0), view.viewport), m_ink->background);
    p.setTransform(QTransform(ratio, 0, 0, ratio, shift.x(), shift.y()));
    p.drawImage(QPointF(0, 0), m_exact);
    p.resetTransform();
}

void TopologyRenderer::findVisibleGpus(const ViewTransform& view, qreal dpr)
{
    const QRect pixels(QPoint(0, 0), (view.viewport * dpr).toSize());
    const cs::Topology& topo = m_layout.topology();
    const QRectF visible = view.visibleWorld();
    m_visibleGpus.clear();
    m_gpuCells.clear();
    const int gpusPerRack = topo.cluster().nodesPerRack * topo.cluster().gpusPerNode;
    for (size_t r = 0; r < topo.racks().size(); ++r) {
        if (!m_layout.rackRect(int(r)).intersects(visible))
            continue;
        const int first = topo.racks()[r].firstGpu;
        for (int g = first; g < first + gpusPerRack; ++g) {
            const QRectF cell = m_layout.gpuRect(g);
            if (!cell.intersects(visible))
                continue;
            const QRectF screen = view.toScreen(cell);
            const QRect device =
                cellOnScreen(QRectF(screen.topLeft() * dpr, screen.size() * dpr)) & pixels;
            if (device.isEmpty())
                continue;
            m_visibleGpus.push_back(g);
            m_gpuCells.push_back(device);
        }
    }
}

void TopologyRenderer::fillGpuCells()
{
    const size_t colors = m_colors.palette.size();
    std::vector<uint32_t> ink(colors * 2); // the palette, then its dimmed twin
    for (size_t i = 0; i < colors; ++i) {
        ink[i] = m_colors.palette[i] | 0xff000000u;
        ink[colors + i] = dimmedOver(m_colors.palette[i], m_ink->background).rgb();
    }
    const bool dimOthers = m_selection.rank >= 0;
    uchar* bits = m_frame.bits();
    const qsizetype stride = m_frame.bytesPerLine();
    for (size_t i = 0; i < m_visibleGpus.size(); ++i) {
        const size_t g = size_t(m_visibleGpus[i]);
        const uint32_t color = ink[m_colors.index[g] + (dimOthers && !m_isMember[g] ? colors : 0)];
        const QRect& r = m_gpuCells[i];
        uchar* first = bits + r.top() * stride + r.left() * 4;
        std::fill_n(reinterpret_cast<uint32_t*>(first), r.width(), color);
        for (int y = 1; y < r.height(); ++y) // copying a row beats filling one, cells are wide
            std::memcpy(first + y * stride, first, size_t(r.width()) * 4);
    }
}

void TopologyRenderer::drawSelectedLinks(QPainter& p, const ViewTransform& view,
                                         const LevelOfDetail& lod,
                                         std::vector<QRectF>& touched) const
{
    if (m_selection.rank < 0)
        return;
    const QRectF visible = view.visibleWorld();
    for (cs::Dim d : cs::kAllDims) {
        p.setPen(QPen(selectionColor(d), 0));
        const auto& indices = lod.gpuLinks ? m_selection.links[d] : m_selection.bundles[d];
        for (int i : indices) {
            const QLineF l =
                lod.gpuLinks ? m_layout.linkLine(i) : m_layout.bundles()[size_t(i)].line;
            if (!lineVisible(l, visible))
                continue;
            const QLineF screen(view.toScreen(l.p1()), view.toScreen(l.p2()));
            drawThickLine(p, screen, 2);
            touched.push_back(QRectF(screen.p1(), screen.p2()).normalized());
        }
    }
}

void TopologyRenderer::drawSelectedGpus(QPainter& p, const ViewTransform& view,
                                        std::vector<QRectF>& touched) const
{
    if (m_selection.rank < 0)
        return;
    const QRectF visible = view.visibleWorld();
    const int selectedGpu = m_placement.gpuOfRank(m_selection.rank);
    p.setBrush(Qt::NoBrush);
    for (cs::Dim d : cs::kAllDims) {
        p.setPen(QPen(selectionColor(d), 0));
        for (int g : m_selection.members[d]) {
            const QRectF cell = m_layout.gpuPitchRect(g);
            if (g == selectedGpu || !cell.intersects(visible))
                continue;
            const QRectF screen = view.toScreen(cell);
            p.drawRect(screen.adjusted(0, 0, -1, -1));
            touched.push_back(screen);
        }
    }
    // The selected GPU: a white frame just outside its cell.
    p.setPen(QPen(Qt::white, 0));
    const QRectF self = view.toScreen(m_layout.gpuPitchRect(selectedGpu));
    p.drawRect(self.adjusted(-1, -1, 0, 0));
    p.drawRect(self.adjusted(-2, -2, 1, 1));
    touched.push_back(self);
}

void TopologyRenderer::prepareGpuLabels(const ViewTransform& view, qreal dpr)
{
    m_labelLines.clear();
    const LevelOfDetail lod = levelOfDetail(view.scale);
    if (!lod.gpuLabels)
        return;
    m_labelFont = pixelFont(std::clamp(view.scale * 0.2, 8.0, 14.0));
    const QFontMetricsF metrics(m_labelFont);
    for (size_t i = 0; i < m_visibleGpus.size(); ++i) {
        const int gpu = m_visibleGpus[i];
        // GPUs out of service or idle hold no rank: their cell's colour says so.
        const int rank = m_placement.rankOfGpu(gpu);
        if (rank < 0)
            continue;
        QStringList lines{QStringLiteral("r%1").arg(rank)};
        if (lod.gpuCoordinates) {
            const cs::RankCoord c = m_placement.coord(rank);
            lines << QStringLiteral("tp%1 cp%2").arg(c[cs::Dim::TP]).arg(c[cs::Dim::CP])
                  << QStringLiteral("pp%1 dp%2").arg(c[cs::Dim::PP]).arg(c[cs::Dim::DP]);
        }
        const QPointF centre = view.toScreen(m_layout.gpuRect(gpu)).center();
        const QRectF cell(QPointF(m_gpuCells[i].topLeft()) / dpr,
                          QSizeF(m_gpuCells[i].size()) / dpr);
        double y = centre.y() - lines.size() * metrics.height() / 2;
        for (const QString& line : lines) {
            QStaticText text(line);
            text.prepare(QTransform(), m_labelFont);
            const QPointF position(centre.x() - text.size().width() / 2, y);
            const bool spills = !cell.contains(labelInk(position, text));
            m_labelLines.push_back({i, position, text, spills});
            y += metrics.height();
        }
    }
}

void TopologyRenderer::drawGpuLabels(QPainter& p, std::vector<QRectF>& touched) const
{
    // Prepared with the static layer; per frame only the ink follows the cell colour.
    p.setFont(m_labelFont);
    for (const LabelLine& line : m_labelLines) {
        const int g = m_visibleGpus[line.cell];
        const QRgb rgb = m_colors.colorOf(g);
        const bool dim = m_selection.rank >= 0 && !m_isMember[size_t(g)];
        const QColor cell = dim ? dimmedOver(rgb, m_ink->background) : QColor(rgb);
        p.setPen(cell.lightnessF() > 0.55 ? Qt::black : Qt::white);
        p.drawStaticText(line.position, line.text);
        if (line.spills)
            touched.push_back(labelInk(line.position, line.text));
    }
}

void TopologyRenderer::drawHover(QPainter& p, const ViewTransform& view,
                                 std::vector<QRectF>& touched) const
{
    drawOutline(p, view, m_mark, markColor(), 4, touched);
    drawOutline(p, view, m_hover, m_ink->hover, 3, touched);
}

QColor TopologyRenderer::markColor()
{
    return QColor(0x00, 0xe5, 0xff);
}

void TopologyRenderer::drawOutline(QPainter& p, const ViewTransform& view, const Hit& hit,
                                   const QColor& color, int width,
                                   std::vector<QRectF>& touched) const
{
    QRectF world;
    switch (hit.kind) {
    case HitKind::Gpu:
        world = m_layout.gpuPitchRect(hit.index);
        break;
    case HitKind::NvSwitch:
        world = m_layout.nvSwitchRect(hit.index);
        break;
    case HitKind::Rack:
        world = m_layout.rackRect(hit.index);
        break;
    case HitKind::Switch:
        world = m_layout.switchRect(hit.index);
        break;
    case HitKind::Link:
    case HitKind::Bundle: {
        const QLineF l = hit.kind == HitKind::Link ? m_layout.linkLine(hit.index)
                                                   : m_layout.bundles()[size_t(hit.index)].line;
        const QLineF screen(view.toScreen(l.p1()), view.toScreen(l.p2()));
        p.setPen(QPen(color, 0));
        drawThickLine(p, screen, width);
        touched.push_back(QRectF(screen.p1(), screen.p2()).normalized());
        return;
    }
    case HitKind::None:
        return;
    }
    const QRectF screen = view.toScreen(world);
    p.setPen(QPen(color, 0));
    p.setBrush(Qt::NoBrush);
    p.drawRect(screen.adjusted(-1, -1, 0, 0));
    if (width > 3)
        p.drawRect(screen.adjusted(-2, -2, 1, 1));
    touched.push_back(screen);
}
