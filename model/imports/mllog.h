#pragma once
// An MLPerf Training result: the ":::MLLOG {json}" lines of a result log (mlcommons/logging)
// and the submission's system description JSON.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "importreport.h"

namespace cs {

struct MlperfResult {
    double stepTimeS = 0;           // the median of stepTimesS
    std::vector<double> stepTimesS; // per step, or per evaluation block, after the warm-up
    std::string stepSource;         // how the step time was measured
    int64_t globalBatch = 0;
    std::optional<int64_t> seqLen;
    std::optional<int64_t> steps;   // training steps run
    std::optional<double> runTimeS; // run_start to run_stop: the time to train
    std::string benchmark;          // submission_benchmark
    std::string status;             // run_stop's status
};

// The step time, in order of preference: train_step_time events (per step); block_start /
// block_stop pairs with samples_count (per evaluation block, timed between the two, so
// evaluation is left out); tracked_stats throughput; run_start to run_stop over the steps. The
// first step or block is left out as warm-up when others remain.
std::optional<MlperfResult> readMllog(const SourceText& log, ImportReport& report);

// step_time_s, global_batch, seq_len, steps, run_time_s (null when the log does not say), and
// step_times_s and source.
nlohmann::json mlperfResultJson(const MlperfResult& result);

// The cluster a system description describes: number_of_nodes, accelerators_per_node,
// accelerator_model_name (a catalog GPU), accelerator_interconnect, host_networking (the NIC
// rate, "8x 400Gb/s InfiniBand") and host_networking_topology.
std::optional<nlohmann::json> clusterFromSystemDescription(const SourceText& system,
                                                           ImportReport& report);

} // namespace cs
