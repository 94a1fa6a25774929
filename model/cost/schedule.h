#pragma once
// The pipeline schedule of one step, simulated op by op: every stage runs the forward and
// backward of each micro-batch and virtual chunk, in the order of (interleaved) 1F1B, each op
// waiting for its stage and for the op it takes its input from on the neighbouring stage.
//
// The simulation takes the ready stage whose next op starts first from a queue, so a step costs
// O(ops log stages). Once the steady state repeats itself exactly (every value the rest of the
// step depends on is the same as one block of micro-batches earlier, shifted by one period),
// the repeats are not simulated again: the block is stored once with its count, and the
// simulation goes on from the state the last repeat leaves (see schedule.cpp for why this is
// exact). So the work grows with the stages and the warm-up, not with the micro-batches.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cs {

struct PipelineSpec {
    int stages = 1;
    int chunks = 1; // virtual pipeline stages per rank
    int microBatches = 1;
    // Per micro-batch durations in seconds, indexed [stage * chunks + chunk].
    std::vector<double> forward;
    std::vector<double> backward;
    // Transfer time over the hop from stage s to stage (s + 1) % stages, either direction.
    std::vector<double> send;
    // Earliest start of each chunk's first forward ([stage * chunks + chunk]); empty: 0.
    std::vector<double> chunkReady;
    // Whether a steady state that repeats may be stored once with its count. Off, every op is
    // simulated (tests compare the two).
    bool extendSteadyState = true;
};

enum class OpBound : uint8_t {
    StepStart,  // first op of its stage, nothing to wait for
    Stage,      // started when its stage finished the previous op
    Dependency, // waited for its input from another op (plus the transfer)
    ChunkReady, // waited for its chunk's parameters
};

struct PipelineOp {
    int stage = 0;
    int chunk = 0;
    int microBatch = 0;
    bool backward = false;
    double start = 0;
    double end = 0;
    OpBound bound = OpBound::StepStart;
    // The op it takes its input from, if any (fromStage -1: none): where it ran and when it
    // ended; the transfer from it is 0 on the same stage.
    int fromStage = -1;
    int fromChunk = -1;
    double inputEnd = 0;
    double transferS = 0;
};

struct PipelineSchedule {
    // In the order they were scheduled, each stage's in its order. When the steady state
    // repeats, the block ops[repeatBegin, repeatEnd) runs `repeats` more times right after
    // itself, each time repeatS later and repeatMicroBatches further on; the ops after the
    // block are stored as they run, after the repeats.
    std::vector<PipelineOp> ops;
    size_t repeatBegin = 0;
    size_t repeatEnd = 0;
    int64_t repeats = 0;
    double repeatS = 0;
    int repeatMicroBatches = 0;
    double makespan = 0;
    int relaxedOrder = 0; // ops a stage ran ahead of its order because no stage could go on

    // Every op of the step, the repeats included.
    int64_t opCount() const
    {
        return int64_t(ops.size()) + repeats * int64_t(repeatEnd - repeatBegin);
    }

    // Calls visit(op) for every op of the step in order, the repeats included, until it
    // returns false.
    template <typename Visit> void forEachOp(Visit visit) const
    {
        for (size_t i = 0; i < repeatEnd; ++i)
            if (!visit(ops[i]))
                return;
        for (int64_t r = 1; r <= repeats; ++r) {
            for (size_t i = repeatBegin; i < repeatEnd; ++i)
                if (!visit(repeated(ops[i], r)))
                    return;
        }
        for (size_t i = repeatEnd; i < ops.size(); ++i)
            if (!visit(ops[i]))
                return;
    }

    // Every stored op, those of the block as they run the last time: what the last op of a
    // stage or chunk and the latest end need.
    template <typename Visit> void forEachOpLastRepeat(Visit visit) const
    {
        for (size_t i = 0; i < ops.size(); ++i)
            visit(i >= repeatBegin && i < repeatEnd ? repeated(ops[i], repeats) : ops[i]);
    }

    // The op of the block as it runs in repeat r (r >= 1).
    PipelineOp repeated(PipelineOp op, int64_t r) const
    {
        const double shift = double(r) * repeatS;
        op.start += shift;
        op.end += shift;
        if (op.fromStage >= 0)
            op.inputEnd += shift;
        op.microBatch += int(r * repeatMicroBatches);
        return op;
    }
};

// Forward chunks a stage may hold before it must run a backward: Megatron's warm-up count
// (stages - stage - 1) * 2 + (chunks - 1) * group, plus one; the group is the first group's
// size (= stages when they divide the micro-batches).
int inFlightLimit(int stages, int chunks, int microBatches, int stage);

// Megatron-Core's combined 1F1B (the recipes' all-to-all overlap) runs one micro-batch's forward
// beside another's backward, each hiding the other's all-to-all, except a stage's warm-up
// forwards (inFlightLimit: the schedule adds one to the warm-up for it) and as many cool-down
// backwards, which run alone. The share of a stage's chunk passes that run beside another,
// averaged over the stages: (m - 1) / m with no pipeline.
double pairedShare(int stages, int chunks, int microBatches);

// Micro-batches go through the chunks in groups (Megatron's groups of `stages`). When the
// stages do not divide the micro-batches, the groups are as even as possible and never
// smaller than `stages` (9 micro-batches on 8 stages: one group of 9), since a short group
// would leave stages idle while its micro-batches go round the pipeline alone.
int groupCount(int stages, int microBatches);
int groupSize(int stages, int microBatches, int group);

// The order in which a stage runs its forwards (and, with chunks reversed, its backwards):
// each group of micro-batches through every chunk in turn.
struct ChunkMicroBatch {
    int chunk = 0;
    int microBatch = 0;
};
std::vector<ChunkMicroBatch> forwardOrder(int stages, int chunks, int microBatches);
std::vector<ChunkMicroBatch> backwardOrder(int stages, int chunks, int microBatches);

PipelineSchedule simulatePipeline(const PipelineSpec& spec);

} // namespace cs
