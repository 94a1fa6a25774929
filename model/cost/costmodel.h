#pragma once
// The analytical cost model of one training step, and its event schedule.
// See docs/cost-model.md for every formula and constant.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "description.h"
#include "topology.h"

namespace cs {

struct Breakdown {
    double compute = 0;
    double recompute = 0;
    double tpExposed = 0;
    double cpExposed = 0;
    double ppExposed = 0;
    double bubble = 0;
    double dpExposed = 0;
    double optimizer = 0;
    double overhead = 0;
    double total() const;
    // (name as in formats.md, value) in the documented order
    std::array<std::pair<const char*, double>, 9> named() const;
};

enum class EventKind : uint8_t {
    Forward,
    Backward,
    Recompute,
    TpComm,
    CpComm,
    PpSend,
    DpComm,
    Optimizer,
    Bubble, // a stage idle, waiting on the pipeline
};
const char* toString(EventKind k);

struct Event {
    double start = 0; // seconds from the start of the step
    double end = 0;
    int stage = 0; // pipeline stage (PP rank); -1 for cluster-wide events
    int microBatch = -1;
    int chunk = -1; // virtual pipeline chunk
    EventKind kind = EventKind::Forward;
    LinkClass link = LinkClass::NVLink; // for communication events
    bool exposed = true;                // false: hidden under compute
    bool critical = false;              // on the critical path
};

struct PerDim {
    std::array<double, 4> s{}; // indexed by Dim
    double& operator[](Dim d) { return s[size_t(d)]; }
    double operator[](Dim d) const { return s[size_t(d)]; }
};

struct Evaluation {
    double stepTimeS = 0;
    Breakdown breakdown;
    PerDim commTotalS;   // per dimension, hidden and exposed together
    PerDim commExposedS; // per dimension, on the critical path
    double exposedScaleOutS = 0;
    double mfu = 0;
    double tokensPerS = 0;
    std::vector<double> memoryGiBPerStage; // per pipeline stage
    double memoryGiBPerGpu = 0;            // the most loaded stage
    bool fitsMemory = true;
    std::optional<double> timeToTrainS;
    std::vector<Event> events; // empty unless asked for
};

struct Calibration;

struct EvalOptions {
    bool withEvents = true;
    // The efficiency constants; nullptr: defaultCalibration() (calibration.h). Fitting tools
    // and tests pass their own.
    const Calibration* calibration = nullptr;
};

// The run must be valid on the cluster (checkRunOnCluster reports nothing).
Evaluation evaluate(const ClusterDesc& cluster, const RunDesc& run, const EvalOptions& opts = {});

} // namespace cs
