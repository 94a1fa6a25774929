#pragma once
// Goodput: the share of a training job's wall time that trains. Checkpoints stall the step,
// failures cost a restart, a checkpoint load and the work since the last checkpoint, and every
// step waits for its slowest GPU. See docs/cost-model.md, "Goodput", for every formula.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint.h"
#include "failures.h"
#include "stragglers.h"

namespace cs {

struct GoodputInputs {
    double stepS = 0;        // the predicted step (the cost model's step_time_s)
    double stragglerS = 0;   // expected wait for the slowest GPU, every step
    double failuresPerS = 0; // of the components the job uses
    double recoveryS = 0;    // per failure: restart (detect, reschedule, start) + checkpoint read
    double writeS = 0;       // the checkpoint to storage
    double hostCopyS = 0;    // the checkpoint to host memory (asynchronous only)
    bool async = false;

    double wallStepS() const { return stepS + stragglerS; }
};

// Wall time per training step, split as the goodput view stacks it; times the steps, the run's.
struct TimeSplit {
    double training = 0;    // the predicted step
    double stragglers = 0;  // waiting for the slowest GPU
    double checkpoints = 0; // steps stalled by checkpoint writes
    double lostWork = 0;    // work since the last checkpoint, done again after a failure
    double restarts = 0;    // restart and checkpoint load after a failure

    struct Part {
        std::string_view key;   // "training", "stragglers", "checkpoints", "lost_work", "restarts"
        std::string_view label; // in words
        double seconds = 0;
    };
    // In the order the views stack them.
    std::vector<Part> parts() const;
    double total() const { return training + stragglers + checkpoints + lostWork + restarts; }
    TimeSplit times(double k) const;
};

// The goodput at one checkpoint interval.
struct GoodputPoint {
    int64_t intervalSteps = 1;
    double goodput = 0; // training over wall time, 0..1; 0 when failures outpace progress
    TimeSplit perStep;  // infinite parts when the goodput is 0
};

GoodputPoint goodputAt(const GoodputInputs& in, int64_t intervalSteps);

// The interval, in whole steps, that maximizes goodputAt (exact for the formula; to first order
// Young's sqrt(2 C MTBF)).
int64_t optimalIntervalSteps(const GoodputInputs& in);

// Goodput at `points` intervals spaced evenly in log scale from `first` to `last` steps (repeats
// of a whole step dropped), for a curve of goodput against the interval.
std::vector<GoodputPoint> goodputCurve(const GoodputInputs& in, int64_t first, int64_t last,
                                       int points);

// The goodput of a run, as evaluate() reports it.
struct Goodput {
    GoodputInputs inputs;
    CheckpointCost checkpoint;
    ComponentsInUse components;
    FailureRate failures;
    bool intervalAuto = true;
    bool checkpointAssumed = false; // the run gives no `checkpoint`: "auto", synchronous
    int64_t optimalIntervalSteps = 1;
    GoodputPoint chosen; // at the run's interval (the optimum when "auto")
    // Around the optimum (1/16x to 16x, and the run's own interval), for the view's curve.
    std::vector<GoodputPoint> curve;
    std::optional<int64_t> trainingSteps;

    double goodput() const { return chosen.goodput; }
    // The defaults taken for what the description leaves out: "reliability", "storage",
    // "checkpoint".
    std::vector<std::string> assumed() const;
    int64_t intervalSteps() const { return chosen.intervalSteps; }
    // With failures, restarts, checkpoints and stragglers; infinite when the goodput is 0.
    std::optional<double> timeToTrainS() const;
    // The predicted step times the steps: what time_to_train_s says at the top of evaluate.
    std::optional<double> timeToTrainIdealS() const;
    std::optional<TimeSplit> timeToTrainSplit() const;
};

// What evaluate() adds to one step: the goodput of the whole run and the step's variance.
struct TrainingRun {
    Goodput goodput;
    StepVariance variance;
};

// `stepS` is the predicted step time, `modelParams` the whole model's parameters, `gpusUsed`
// the GPUs the run's ranks occupy (the first healthy ones).
TrainingRun trainingRunOf(const ClusterDesc& cluster, const RunDesc& run, double stepS,
                          double modelParams, int64_t gpusUsed);

} // namespace cs
