#pragma once
// A Megatron-LM / Megatron-Core launch (a shell script or a command line: torchrun, srun,
// python -m torch.distributed.run or mpirun running pretrain_gpt.py or another *.py with its
// flags, or the flags alone) and its training log.

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "description.h"
#include "importreport.h"

namespace cs {

// Iterations at the start of a log left out of the measured step time: graph capture,
// allocator growth, communicator set-up and data-loader start make them slow.
inline constexpr int64_t kWarmupIterations = 10;

// The "elapsed time per iteration (ms): X" lines of a Megatron training log.
struct MegatronLogTimes {
    std::vector<double> stepTimesS;  // every logged time, in seconds, in log order
    std::vector<int64_t> iterations; // the iteration each was logged at; 0 when not printed
    size_t warmupEntries = 0;        // the first entries, covering the warm-up, left out
    int64_t warmupIterations = 0;    // the iterations those entries cover

    std::vector<double> measuredS() const; // the entries after the warm-up
};

// The log's per-iteration times; nothing and an error when it has none.
std::optional<MegatronLogTimes> readMegatronLog(const SourceText& log, ImportReport& report);

// The measured step time of a log: the median after the warm-up, and how it was measured.
Measured measuredOfLog(const MegatronLogTimes& times, const std::string& logFile);

// The run the launch describes (scripts are read in order, later ones seeing the variables of
// earlier ones); with a log, measured.step_time_s is the median after the warm-up and the times
// themselves are kept under kMeasuredStepTimesKey (an even sample of at most kMaxKeptStepTimes of
// them, steptimes.h, so that the run loads again).
std::optional<nlohmann::json> importMegatron(const std::vector<SourceText>& scripts,
                                             const SourceText* log, ImportReport& report);

} // namespace cs
