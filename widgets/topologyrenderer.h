#pragma once
// Draws a TopologyLayout with QPainter into any paint device (widget, QImage for --render).
// What does not change from frame to frame (racks, trays, switches, links, rack labels) is
// drawn once per view transform into a cached image. A frame is composed in a second image
// that keeps the last frame: the GPU cells are opaque and always cover the same pixels, so
// they are written straight into it; only what the last frame's selection, hover and labels
// covered is copied back from the static layer. The frame then reaches the device in one blit.

#include <QFont>
#include <QImage>
#include <QRect>
#include <QRegion>
#include <QStaticText>
#include <array>
#include <cstdint>
#include <vector>

#include "gpucolors.h"
#include "jobcolors.h"
#include "linkloadink.h"
#include "topologylayout.h"

class QPainter;
namespace cs {
class Placement;
}

// The colours of everything but the GPU cells: a dark hall, or a light one for the light theme.
struct TopologyInk {
    QColor background;
    QColor rackFill;
    QColor rackOutline;
    QColor domainOutline; // an NVLink domain
    QColor trayFill;
    QColor nvSwitchFill;
    QColor nvLinkLine;
    QColor label;
    QColor hover;
    std::array<QColor, 4> tierFill; // by switch tier, 1 to 3
    std::array<QColor, 4> tierLine;

    static const TopologyInk& dark();
    static const TopologyInk& light();
};

class TopologyRenderer {
public:
    TopologyRenderer(const TopologyLayout& layout, const cs::Placement& placement);

    // Swapping colours is cheap: nothing but the next frame's fill depends on them.
    void setGpuColors(GpuColors colors);
    const GpuColors& gpuColors() const { return m_colors; }
    void setSelection(GroupSelection selection);
    const GroupSelection& selection() const { return m_selection; }
    void setHover(Hit hit) { m_hover = hit; }
    // What the Links dock chose: outlined in the mark colour until another is chosen.
    void setMark(Hit hit) { m_mark = hit; }
    const Hit& mark() const { return m_mark; }
    static QColor markColor();
    // One job of several lit (jobcolors.h): its allocation outlined and its links drawn over
    // the static layer in the job light's colour; an empty light: none.
    void setJobLight(JobLight light) { m_jobLight = std::move(light); }
    const JobLight& jobLight() const { return m_jobLight; }
    static QColor jobLightColor();
    // Links and switches in colours of their own (link load); empty: the ink's tier colours.
    // Links are in the cached static layer: a new link ink draws it anew.
    void setLinkInk(LinkInk ink);
    const LinkInk& linkInk() const { return m_linkInk; }
    // While allowed (a wheel or an animated zoom in progress), a new scale scales the last
    // exact static layer instead of redrawing it; the first paint after it is disallowed draws
    // the exact layer.
    void setScalingPreview(bool allowed) { m_previewAllowed = allowed; }

    void paint(QPainter& painter, const ViewTransform& view);
    // Takes over the cached layers of the renderer of the model before an edit when they show
    // the same (the cluster's shape, names, failures and link widths, in the same ink): an edit
    // of the run, or of a rate, then repaints only what changes. False when they differ.
    // `previous` is left to be destroyed; its layout's topology may be gone already.
    bool adoptStaticLayer(TopologyRenderer& previous);
    // Static layers drawn by every renderer so far, whole or in strips (tests, benchmarks).
    static long staticLayersDrawn();
    // Dark unless told otherwise (images and figures keep the dark hall).
    void setInk(const TopologyInk& ink);
    const TopologyInk& ink() const { return *m_ink; }

    // The size of the names of racks and tiers, in pixels: the view's type size (so it follows
    // the screen's DPI and presenting's larger type); rack names shrink to fit their aisle.
    void setTextPixels(double px);
    double textPixels() const { return m_textPx; }
    // The names the static layer writes for a view, in logical pixels: rack numbers (every
    // rack's, or every k-th column's where the numbers would not fit side by side) and the
    // tier rows' names.
    struct NameLabel {
        QRectF box; // what the text covers
        QString text;
        QPointF baseline; // where it is written from
        QString whole;    // the whole name where `text` is shortened to fit the view, else empty
    };
    std::vector<NameLabel> rackLabels(const ViewTransform& view, const QRectF& cull) const;
    std::vector<NameLabel> tierLabels(const ViewTransform& view) const;
    // The whole name of a tier shortened to fit, for a tooltip at `point`; empty elsewhere.
    QString tierLabelAt(const ViewTransform& view, QPointF point) const;

    // The dark hall's background, and a colour dimmed over it.
    static QColor background();
    static QColor selectionColor(cs::Dim dim);
    static QColor dimmed(QRgb color);
    // Failed links (dashed) and switches (crossed), in every mode.
    static QColor outOfServiceColor();

private:
    void ensureStaticLayer(const ViewTransform& view, qreal devicePixelRatio);
    void drawScaledPreview(QPainter& p, const ViewTransform& view) const;
    void findVisibleGpus(const ViewTransform& view, qreal devicePixelRatio);
    // Static drawing touches only what lies in `cull` (world units). The rack and tier names
    // it writes add their boxes (logical pixels) to `labels`.
    void drawStatic(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                    const QRectF& cull, std::vector<QRectF>& labels) const;
    void drawLinks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                   const QRectF& cull) const;
    void drawRacks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                   const QRectF& cull, std::vector<QRectF>& labels) const;
    void drawSwitches(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                      const QRectF& cull, std::vector<QRectF>& labels) const;
    QFont rackLabelFont(const ViewTransform& view) const;
    double aislePixels(const ViewTransform& view) const; // between two rows, less the gaps
    QFont tierLabelFont() const;
    // Out of service: a cross over each failed switch or NVSwitch in view, a dashed outline
    // round each failed rack and node.
    void drawOutOfService(QPainter& p, const ViewTransform& view, const QRectF& cull) const;
    void composeFrame(const ViewTransform& view);
    void restoreOverlaidPixels();
    void fillGpuCells();
    // The overlay painters add what they cover (logical pixels) to `touched`.
    void drawSelectedLinks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                           std::vector<QRectF>& touched) const;
    void drawSelectedGpus(QPainter& p, const ViewTransform& view,
                          std::vector<QRectF>& touched) const;
    // topologyjoblight.cpp: the lit job's links (under the GPU cells) and its outline (over).
    void drawJobLinks(QPainter& p, const ViewTransform& view, const LevelOfDetail& lod,
                      std::vector<QRectF>& touched) const;
    void drawJobOutline(QPainter& p, const ViewTransform& view, std::vector<QRectF>& touched) const;
    void prepareGpuLabels(const ViewTransform& view, qreal devicePixelRatio);
    void drawGpuLabels(QPainter& p, std::vector<QRectF>& touched) const;
    void drawHover(QPainter& p, const ViewTransform& view, std::vector<QRectF>& touched) const;
    void drawOutline(QPainter& p, const ViewTransform& view, const Hit& hit, const QColor& color,
                     int width, std::vector<QRectF>& touched) const;

    const TopologyLayout& m_layout;
    const cs::Placement& m_placement;
    // What the static layer shows of the cluster (staticDrawing()) and each bundle's width.
    cs::ClusterDesc m_drawnCluster;
    std::vector<uint8_t> m_bundleWidth;
    std::array<double, 2> m_labelledRates; // NVLink and NIC, in the link labels close in
    const TopologyInk* m_ink = &TopologyInk::dark();
    double m_textPx = 12;
    GpuColors m_colors;
    LinkInk m_linkInk;
    std::vector<uint8_t> m_bundleUsable; // per bundle: some link of it is in service
    GroupSelection m_selection;
    std::vector<uint8_t> m_isMember; // per GPU, while a selection is shown
    Hit m_hover;
    Hit m_mark;
    JobLight m_jobLight;

    QImage m_static;
    QImage m_scratch; // the next static layer, drawn from the previous one when panning
    ViewTransform m_staticView;
    bool m_staticValid = false;
    bool m_previewAllowed = false;
    bool m_staticIsPreview = false;
    QImage m_exact; // the last static layer drawn exactly, the source of previews
    ViewTransform m_exactView;
    QImage m_frame; // the last frame; valid while m_static is unchanged
    bool m_frameValid = false;
    std::vector<QRect> m_overlaid; // device pixels of m_frame that differ from m_static's
    // Where m_static has rack and tier names (logical pixels), kept as the layer scrolls, and
    // the rest of the view, where a selection's lit links may paint.
    QRegion m_names;
    QRegion m_linkClip;
    std::vector<int> m_visibleGpus;
    std::vector<QRect> m_gpuCells; // device-pixel rects of m_visibleGpus
    struct LabelLine {
        size_t cell; // index into m_visibleGpus
        QPointF position;
        QStaticText text;
        bool spills; // reaches out of its cell, so the next frame's fill does not cover it
    };
    std::vector<LabelLine> m_labelLines;
    QFont m_labelFont;
};
