#pragma once
// The data-parallel collectives that a chunk's ops carry beyond its layers: FSDP's gathers and
// reductions per op, and the HBM traffic of every DP collective, which slows the compute they
// hide under (collectives.h counts the bytes).

#include "description.h"
#include "layers.h"
#include "workload.h"

namespace cs {

// FSDP gathers each layer's parameters before its forward and again before its backward, and
// reduce-scatters its gradients after; prefetching hides that under the layers' compute, so
// only what a chunk's compute cannot cover waits. The collectives' HBM traffic slows that
// compute. Nothing without FSDP.
void fullyShardedData(const RunDesc& run, const Rates& r, Workload& w);

// The HBM time of each stage's once-a-step DP collectives: the parameter gathers of the
// distributed optimizer and the gradient buckets (none with FSDP, whose traffic is per op).
void dataParallelHbm(const Rates& r, Workload& w);

} // namespace cs
