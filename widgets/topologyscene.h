#pragma once
// The layout and renderer of one cluster and run, kept in step with a view state: the one
// object the window's view and `--render` both draw with.

#include <QSizeF>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

#include "activitylinks.h"
#include "activityoverlay.h"
#include "description.h"
#include "gpucolors.h"
#include "measuredcolors.h"
#include "topologylayout.h"
#include "topologyrenderer.h"

namespace cs {
struct StepTraffic;
class Topology;
class Placement;
struct Evaluation;
struct ViewState;
} // namespace cs

class QPainter;

class TopologyScene {
public:
    TopologyScene(const cs::Topology& topology, const cs::Placement& placement,
                  const cs::Evaluation& evaluation, double aspect = 16.0 / 9.0);
    // With a layout made before (one retimed for new rates, TopologyLayout::retime).
    TopologyScene(TopologyLayout layout, const cs::Placement& placement,
                  const cs::Evaluation& evaluation);

    // Colours (colorBy; in the activity mode, at the view's time) and selection
    // (highlightRank) from the view state.
    void applyView(const cs::ViewState& view);
    // What the scene draws over the renderer's frame: the activity mode's lit links.
    void paintOverlay(QPainter& painter, const ViewTransform& transform) const;
    ViewTransform transform(const cs::ViewState& view, QSizeF viewport) const;
    // The view state's zoom and centre for a transform (the inverse of transform()).
    void storeTransform(const ViewTransform& transform, cs::ViewState* view) const;

    const TopologyLayout& layout() const { return m_layout; }
    TopologyRenderer& renderer() { return m_renderer; }
    const cs::Placement& placement() const { return m_placement; }
    const cs::Evaluation& evaluation() const { return m_evaluation; }
    const cs::ColorMode& colorBy() const { return m_colorBy; }
    Legend legend() const;
    // Tooltip text: what is under the pointer, its groups, and its load when one is known.
    QString describe(const Hit& hit) const;
    // Lines on the load of what a hit names (a link, bundle, switch or GPU) in the step. Empty
    // until a model of the fabric's loads provides them: the Links view plugs in here.
    using LoadDescriber = std::function<QString(const Hit&)>;
    void setLoadDescriber(LoadDescriber describer) { m_load = std::move(describer); }
    // Where the step's link traffic comes from (the document computes it when first asked):
    // the link-load mode colours and explains links with it. Set before applyView.
    using TrafficSource = std::function<const cs::StepTraffic&()>;
    void setTrafficSource(TrafficSource source) { m_traffic = std::move(source); }
    // Colours and legend of a mode whose figures are not the evaluation's (a measured profile,
    // measuredcolors.h): nothing for the modes gpucolors.h colours. recolor() after the
    // figures change.
    using ColorSource = std::function<std::optional<GpuColoring>(const cs::ColorMode&)>;
    void setColorSource(ColorSource source) { m_colorSource = std::move(source); }
    // Another source beside those set before (the first that answers a mode colours it).
    void addColorSource(ColorSource source)
    {
        m_colorSource = [first = std::move(m_colorSource),
                         then = std::move(source)](const cs::ColorMode& mode) {
            auto own = first ? first(mode) : std::nullopt;
            return own ? own : then(mode);
        };
    }
    void recolor() { m_colorsApplied = false; }

private:
    QString describeGpu(int gpu) const;

    const cs::Placement& m_placement;
    LoadDescriber m_load;
    TrafficSource m_traffic;
    ColorSource m_colorSource;
    const cs::Evaluation& m_evaluation;
    TopologyLayout m_layout;
    TopologyRenderer m_renderer;
    cs::ColorMode m_colorBy;
    int m_selectedRank = -2; // nothing applied yet
    bool m_colorsApplied = false;
    std::optional<ActivityOverlay> m_activity; // built when the activity mode is first shown
    std::optional<DimRoutes> m_routes;         // with it, when the traffic is known
    double m_timeS = 0;
};
