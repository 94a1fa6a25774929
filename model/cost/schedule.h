#pragma once
// The pipeline schedule of one step, simulated op by op: every stage runs the forward and
// backward of each micro-batch and virtual chunk, in the order of (interleaved) 1F1B, each op
// waiting for its stage and for the op it takes its input from on the neighbouring stage.

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
    int dependency = -1;  // index into ops of the op it takes its input from, if any
    double transferS = 0; // the transfer from that op; 0 on the same stage
};

struct PipelineSchedule {
    std::vector<PipelineOp> ops; // in the order they were scheduled
    double makespan = 0;
    int relaxedOrder = 0; // ops a stage ran ahead of its order because no stage could go on
};

// Forward chunks a stage may hold before it must run a backward: Megatron's warm-up count
// (stages - stage - 1) * 2 + (chunks - 1) * group, plus one; the group is the first group's
// size (= stages when they divide the micro-batches).
int inFlightLimit(int stages, int chunks, int microBatches, int stage);

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
