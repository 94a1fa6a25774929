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
#include "goodput.h"
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

// What an idle stage (a Bubble event) waits for, so that every gap on a timeline has a name.
enum class WaitReason : uint8_t {
    None,
    PipelineInput,     // its next op's input from another stage (Event::dependsOn)
    Parameters,        // its chunk's parameters, gathered over data parallelism
    GradientReduction, // the slowest stage's gradient reduction, which the optimizer waits for
    Contention,        // compute slowed by the collectives under it, counted as compute, added
                       // before the optimizer
};
constexpr auto enumTexts(WaitReason)
{
    return std::array<EnumText<WaitReason>, 5>{
        {{WaitReason::None, "none", "idle"},
         {WaitReason::PipelineInput, "pipeline_input", "waiting for its input from another stage"},
         {WaitReason::Parameters, "parameters",
          "waiting for its parameters (data-parallel gather)"},
         {WaitReason::GradientReduction, "gradient_reduction",
          "waiting for the last gradient reduction (DP) before the optimizer"},
         {WaitReason::Contention, "contention",
          "compute slowed by the communication running under it (counted as compute)"}}};
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
    WaitReason wait = WaitReason::None; // for Bubble events
    int op = -1;        // the pipeline op (schedule index) this event is part of or precedes
    int dependsOn = -1; // the op whose output that op takes as its input, if any
    int waitStage = -1; // for GradientReduction: the stage whose reduction ends last

    bool isComm() const { return kind == EventKind::Comm; }
};
// "forward", ..., or the dimension's key for communication: "tp", "dp".
std::string_view eventName(const Event& e);

// The most events an evaluation holds: a step of very many micro-batches keeps the events of
// its start and its end, and leaves out repeats of its steady state in between (schedule.h).
inline constexpr size_t kMaxStepEvents = size_t(1) << 20;

// What one GPU holds, in GiB: the most loaded pipeline stage's.
struct MemoryParts {
    double weights = 0;     // with FSDP, the shard and the two layers gathered whole
    double gradients = 0;   // in the type they are reduced in
    double optimizer = 0;   // FP32 master weights and Adam's moments, of the parameters owned
    double activations = 0; // kept for the backward pass, of the micro-batches in flight
    double logits = 0;      // the last stage's, for the loss
    double framework = 0;   // CUDA context, NCCL buffers, allocator fragmentation
    double total() const;
};

// Each part with its name in reports (`memory_gib_parts`, evaluate's text, the status bar).
struct MemoryPart {
    const char* key;
    double MemoryParts::*gib;
};
inline constexpr MemoryPart kMemoryParts[] = {
    {"weights", &MemoryParts::weights},     {"gradients", &MemoryParts::gradients},
    {"optimizer", &MemoryParts::optimizer}, {"activations", &MemoryParts::activations},
    {"logits", &MemoryParts::logits},       {"framework", &MemoryParts::framework},
};

inline double MemoryParts::total() const
{
    double sum = 0;
    for (const MemoryPart& p : kMemoryParts)
        sum += this->*p.gib;
    return sum;
}

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
    MemoryParts memory;                    // what it holds
    bool fitsMemory = true;
    std::optional<double> timeToTrainS;
    int64_t gpusUsed = 0;
    int64_t gpusIdle = 0;   // healthy, holding no rank
    int64_t gpusFailed = 0; // out of service
    // The whole training run: checkpoints, failures and restarts, and the straggler wait, which
    // step_time_s leaves out (the step as the schedule runs it; goodput adds the wait).
    // evaluate() fills them; estimate(), which only ranks layouts for the search, does not.
    std::optional<Goodput> goodput;
    std::optional<StepVariance> variance;
    std::vector<Event> events;
    // Events of the steady state left out of `events` (0: none): from leftOutFromS to
    // leftOutToS every stage repeats what it did in the period before.
    int64_t eventsLeftOut = 0;
    double leftOutFromS = 0;
    double leftOutToS = 0;
};

} // namespace cs
