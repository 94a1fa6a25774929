#pragma once
// Synthetic measured profiles: the predicted schedule of a run written as Kineto traces, one
// file per rank, with distributedInfo and the process groups of each dimension as the
// placement lays them, so that tests (and the benchmark) read a profile whose answer is known.
// Each rank's clock may be shifted by a known offset, to be recovered by the alignment.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "costmodel.h"
#include "diagnostics.h"

namespace cs {

struct SyntheticProfileOptions {
    int steps = 2;               // ProfilerStep#1 ... #steps, one predicted step each
    int64_t firstStepNumber = 1; // the N of the first ProfilerStep#N
    // Seconds added to each rank's clock (index: rank; missing ranks: 0).
    std::vector<double> clockOffsetS;
    // CPU operators and kernel launches around each kernel, as PyTorch writes them (about the
    // size a real trace has per kernel); without, only the kernels and the steps.
    bool cpuEvents = true;
    // Each kernel split into this many consecutive kernels (a larger file of the same step).
    int kernelsPerEvent = 1;
};

// The trace of one rank as JSON text, written event by event. `evaluation` is evaluate()'s
// with events; the rank must be one of the run's.
std::string syntheticRankTrace(const Evaluation& evaluation, const ClusterDesc& cluster,
                               const RunDesc& run, int rank,
                               const SyntheticProfileOptions& options = {});

// Writes ranks [0, ranks) (all of the run's when `ranks` is 0) into `folder` as
// rank-N.pt.trace.json (`gzip`: .json.gz). False, with the reason, when a file cannot be
// written.
bool writeSyntheticProfile(const std::string& folder, const ClusterDesc& cluster,
                           const RunDesc& run, const SyntheticProfileOptions& options,
                           Diagnostics& diags, int ranks = 0, bool gzip = false);

} // namespace cs
