#pragma once
// Weak scaling of a run: the same model-parallel layout and the same work per GPU (micro-
// batches per pipeline, micro-batch size) on clusters from one rack up to twice the given one;
// data parallelism and the global batch grow with the GPU count.

#include <atomic>
#include <cstdint>
#include <vector>

#include "description.h"

namespace cs {

struct ScalingPoint {
    int units = 1; // racks of the scaled cluster (nodes, when the cluster has a single rack)
    int64_t gpus = 0;
    int dp = 1;
    int globalBatch = 1;
    double stepTimeS = 0;
    double efficiency = 1;  // step time of the smallest size over this size's
    bool isCluster = false; // the cluster as described
};

// The cluster with `units` racks, or `units` nodes when it has a single rack.
ClusterDesc scaledCluster(const ClusterDesc& cluster, int units);
// The run at constant work per GPU on a cluster of `gpus` GPUs (dp and global batch scaled).
RunDesc weakScaledRun(const RunDesc& run, int64_t gpus, int64_t baseGpus);

// Sizes 1, 2, 4, ... racks, the cluster's own size and twice it; sizes where the run is not
// valid are left out. The run must be valid on the cluster. Set `cancel` from any thread to
// stop after the size being evaluated (the points so far are returned).
std::vector<ScalingPoint> weakScaling(const ClusterDesc& cluster, const RunDesc& run,
                                      const std::atomic<bool>* cancel = nullptr);

} // namespace cs
