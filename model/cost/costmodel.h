#pragma once
// The cost model of one training step: the one evaluation behind every figure the product
// shows for a layout. See docs/cost-model.md for every formula and constant.

#include <memory>

#include "evaluation.h"

namespace cs {

struct Calibration;
struct FabricFactors;

struct EvalOptions {
    EvalOptions(const Calibration* calibration = nullptr, bool timeline = true)
        : calibration(calibration)
        , timeline(timeline)
    {
    }

    // The efficiency constants; nullptr: defaultCalibration() (calibration.h). Fitting tools
    // and tests pass their own.
    const Calibration* calibration = nullptr;
    // Whether to lay out the step's events for the timeline and the animation. They are drawn
    // from the simulated schedule after its figures are read, so no figure depends on them; a
    // search that lists figures only leaves them out.
    bool timeline = true;
    // How the fabric slows each dimension's traffic; nullptr: the run's own placement alone
    // on the cluster (cachedFabricFactors). Several jobs pass the factors with the others
    // running (jobs.h).
    std::shared_ptr<const FabricFactors> fabric;
};

// The run must be valid on the cluster (checkRunOnCluster reports nothing). The step is
// simulated event by event; the events come with the answer.
Evaluation evaluate(const ClusterDesc& cluster, const RunDesc& run, const EvalOptions& opts = {});

// The closed form of the same model, without events: what a search uses to choose which
// layouts to evaluate. Never shown as a layout's step time.
Evaluation estimate(const ClusterDesc& cluster, const RunDesc& run, const EvalOptions& opts = {});

// The layers of each virtual pipeline stage as the evaluation splits them (index chunk x pp +
// stage): as even in FLOPs as whole layers allow, the LM head and MTP layers on the last.
std::vector<int> layersPerVirtualStage(const ClusterDesc& cluster, const RunDesc& run);

} // namespace cs
