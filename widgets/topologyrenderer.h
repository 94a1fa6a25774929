#pragma once
// Draws a TopologyLayout with QPainter into any paint device (widget, QImage for --render).
// What does not change from frame to frame (racks, trays, switches, links, rack labels) is
// drawn once per view transform into a cached image; each frame blits it, fills the GPU cells
// batched by colour, and draws the selection, hover and GPU labels on top.

#include <QFont>
#include <QImage>
#include <QRect>
#include <QStaticText>
#include <array>
#include <cstdint>
#include <vector>

#include "gpucolors.h"
#include "topologylayout.h"

class QPainter;
namespace cs {
class Placement;
}

class TopologyRenderer {
public:
    TopologyRenderer(const TopologyLayout& layout, const cs::Placement& placement);

    // Swapping colours is cheap: nothing but the next frame's fill depends on them.
    void setGpuColors(GpuColors colors);
    const GpuColors& gpuColors() const { return m_colors; }
    void setSelection(GroupSelection selection);
    const GroupSelection& selection() const { return m_selection; }
    void setHover(Hit hit) { m_hover = hit; }

    void paint(QPainter& painter, const ViewTransform& view);

    static QColor background();
    static QColor selectionColor(cs::Dim dim);
    static QColor dimmed(QRgb color);

private:
    void ensureStaticLayer(const ViewTransform& view, qreal devicePixelRatio);
    void findVisibleGpus(const ViewTransform& view);
    // Static drawing touches only what lies in `cull` (world units).
    void drawStatic(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                    const QRectF& cull) const;
    void drawLinks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                   const QRectF& cull) const;
    void drawRacks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                   const QRectF& cull) const;
    void drawSwitches(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                      const QRectF& cull) const;
    void drawGpuCells(QPainter& p);
    void drawSelectedLinks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod) const;
    void drawSelectedGpus(QPainter& p, const ViewTransform& view) const;
    void prepareGpuLabels(const ViewTransform& view);
    void drawGpuLabels(QPainter& p) const;
    void drawHover(QPainter& p, const ViewTransform& view) const;

    const TopologyLayout& m_layout;
    const cs::Placement& m_placement;
    GpuColors m_colors;
    GroupSelection m_selection;
    std::vector<uint8_t> m_isMember; // per GPU, while a selection is shown
    Hit m_hover;

    QImage m_static;
    QImage m_scratch; // the next static layer, drawn from the previous one when panning
    ViewTransform m_staticView;
    bool m_staticValid = false;
    std::vector<int> m_visibleGpus;
    std::vector<QRect> m_gpuCells; // device rects of m_visibleGpus
    std::vector<std::vector<QRect>> m_buckets;
    struct LabelLine {
        size_t cell; // index into m_visibleGpus
        QPointF position;
        QStaticText text;
    };
    std::vector<LabelLine> m_labelLines;
    QFont m_labelFont;
};
