#pragma once
// What the cost model answers for one step: the step time, where it goes (the breakdown on
// the critical path), communication per dimension, memory, and the step's events for the
// views. Every figure the product shows for a layout is read from one of these.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "description.h"
#include "topology.h"

namespace cs {

// Where the time of the step goes on its critical path; the parts add up to the step time.
struct Breakdown {
    double compute = 0;
    double recompute = 0;
    PerDim<double> exposed; // communication the critical path waits for, per dimension
    double bubble = 0;
    double optimizer = 0;
    double overhead = 0;

    struct Part {
        std::string_view key; // as formats.md names it: "compute", "tp_exposed", ...
        std::string label;    // in words: "compute", "TP exposed", ...
        double seconds = 0;
        std::optional<Dim> dim; // for the exposed communication of a dimension
    };
    // In the order the views show them: compute, recompute, each dimension's exposed time,
    // bubble, optimizer, overhead.
    std::vector<Part> parts() const;
    double total() const;
};

enum class EventKind : uint8_t {
    Forward,
    Backward,
    Recompute,
    Comm, // a dimension's communication (Event::dim)
    Optimizer,
    Bubble, // a stage idle, waiting on the pipeline
};
constexpr auto enumTexts(EventKind)
{
    return std::array<EnumText<EventKind>, 6>{{{EventKind::Forward, "forward", "forward"},
                                               {EventKind::Backward, "backward", "backward"},
                                               {EventKind::Recompute, "recompute", "recompute"},
                                               {EventKind::Comm, "comm", "communication"},
                                               {EventKind::Optimizer, "optimizer", "optimizer"},
                                               {EventKind::Bubble, "bubble", "bubble"}}};
}

struct Event {
    double start = 0; // seconds from the start of the step
    double end = 0;
    int stage = 0; // pipeline stage (PP rank); -1 for cluster-wide events
    int microBatch = -1;
    int chunk = -1; // virtual pipeline chunk
    EventKind kind = EventKind::Forward;
    Dim dim = Dim::TP;                  // for communication events
    LinkClass link = LinkClass::NVLink; // the farthest link tier a communication event uses
    bool exposed = true;                // false: hidden under compute
    bool critical = false;              // on the critical path

    bool isComm() const { return kind == EventKind::Comm; }
};
// "forward", ..., or the dimension's key for communication: "tp", "dp".
std::string_view eventName(const Event& e);

// The most events an evaluation holds: a step of very many micro-batches keeps the events of
// its start and its end, and leaves out repeats of its steady state in between (schedule.h).
inline constexpr size_t kMaxStepEvents = size_t(1) << 20;

struct Evaluation {
    double stepTimeS = 0;
    Breakdown breakdown;
    PerDim<double> commTotalS;   // per dimension, hidden and exposed together
    PerDim<double> commExposedS; // per dimension, on the critical path
    double exposedScaleOutS = 0;
    double mfu = 0;
    double tokensPerS = 0;
    std::vector<double> memoryGiBPerStage; // per pipeline stage
    double memoryGiBPerGpu = 0;            // the most loaded stage
    bool fitsMemory = true;
    std::optional<double> timeToTrainS;
    int64_t gpusUsed = 0;
    int64_t gpusIdle = 0;   // healthy, holding no rank
    int64_t gpusFailed = 0; // out of service
    std::vector<Event> events;
    // Events of the steady state left out of `events` (0: none): from leftOutFromS to
    // leftOutToS every stage repeats what it did in the period before.
    int64_t eventsLeftOut = 0;
    double leftOutFromS = 0;
    double leftOutToS = 0;
};

} // namespace cs
