// The renderer's light of one job of several (jobcolors.h): drawn in the frame's overlay pass
// like a selected rank's groups, in one colour, as batched lines.
#include <QPainter>

#include "topologydrawing.h"
#include "topologyrenderer.h"

using namespace topologydrawing;

QColor TopologyRenderer::jobLightColor()
{
    return QColor(0xe0, 0x30, 0xe8); // magenta: apart from the fabric's tiers and the mark
}

void TopologyRenderer::drawJobLinks(QPainter& p, const ViewTransform& view,
                                    const LevelOfDetail& lod, std::vector<QRectF>& touched) const
{
    if (m_jobLight.empty())
        return;
    const QRectF visible = view.visibleWorld();
    std::vector<QLineF> lines;
    for (int i : lod.gpuLinks ? m_jobLight.links : m_jobLight.bundles) {
        const QLineF l = lod.gpuLinks ? m_layout.linkLine(i) : m_layout.bundles()[size_t(i)].line;
        if (!lineVisible(l, visible))
            continue;
        const QLineF screen(view.toScreen(l.p1()), view.toScreen(l.p2()));
        appendThickLine(lines, screen, 2);
        touched.push_back(QRectF(screen.p1(), screen.p2()).normalized());
    }
    p.setPen(QPen(jobLightColor(), 0));
    p.drawLines(lines.data(), int(lines.size()));
}

void TopologyRenderer::drawJobOutline(QPainter& p, const ViewTransform& view,
                                      std::vector<QRectF>& touched) const
{
    if (m_jobLight.empty())
        return;
    const QRectF visible = view.visibleWorld();
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(jobLightColor(), 0));
    for (const QRectF& area : m_jobLight.areas) {
        if (!area.intersects(visible))
            continue;
        const QRectF screen = view.toScreen(area).adjusted(-1, -1, 0, 0);
        p.drawRect(screen);
        p.drawRect(screen.adjusted(-1, -1, 1, 1));
        // The four edges, not the inside: the next frame copies back only what was drawn.
        const double x0 = screen.left() - 2, y0 = screen.top() - 2;
        const double x1 = screen.right() + 2, y1 = screen.bottom() + 2;
        touched.push_back(QRectF(x0, y0, x1 - x0, 4));
        touched.push_back(QRectF(x0, y1 - 4, x1 - x0, 4));
        touched.push_back(QRectF(x0, y0, 4, y1 - y0));
        touched.push_back(QRectF(x1 - 4, y0, 4, y1 - y0));
    }
}
