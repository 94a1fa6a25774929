#include "activitylinks.h"

#include <QPainter>
#include <vector>

#include "activitycolors.h"
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

void paintActivityLinks(QPainter& p, const TopologyLayout& layout, const ViewTransform& view,
                        const cs::LinkUse& use)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setBrush(Qt::NoBrush);
    for (cs::Dim d : cs::kAllDims) {
        if (use[d] <= 0)
            continue;
        if (use.crossesFabric(d))
            drawFabric(p, layout, view, use, d);
        else
            drawDomains(p, layout, view, use, d);
    }
    p.restore();
}
