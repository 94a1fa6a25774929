#pragma once
// How much the fabric slows each parallel dimension's traffic under a placement: the
// contention factors (contention.h) of its routed flows (traffic.h), and whether every flow
// has a path. They depend only on the cluster's fabric and failures and on the placement, so
// they are computed once for each and shared by every thread (cachedFabricFactors).

#include <memory>
#include <string>
#include <vector>

#include "description.h"

namespace cs {

class Placement;
class Topology;

struct FabricFactors {
    // Each dimension's collectives running alone, all its groups at once: the factor of its
    // flows across NVLink domains, and of those inside.
    PerDim<double> fabric;
    PerDim<double> nvlink;
    // Pipeline sends from stage s (to s + 1, the last to the first with virtual stages), every
    // hop sending at once.
    std::vector<double> hopFabric;
    std::vector<double> hopNvlink;
    // Empty when every flow has a path; else why one has none.
    std::string noPath;

    FabricFactors();
    bool routable() const { return noPath.empty(); }
};

// `interleaved`: the pipeline also sends from its last stage to its first (virtual stages).
FabricFactors fabricFactors(const Topology& topology, const Placement& placement, bool interleaved);

// Dimensions whose collectives run at the same time (data-parallel buckets while the pipeline
// sends) share the links where they meet: each one's factors with all of `dims` running. The
// pipeline counts as one class here (hopFabric and hopNvlink stay empty).
FabricFactors concurrentFactors(const Topology& topology, const Placement& placement,
                                bool interleaved, const std::vector<Dim>& dims);

// fabricFactors of the run's placement on the cluster, from a cache keyed by what they depend
// on. The run must be valid on the cluster. Safe to call from any thread.
std::shared_ptr<const FabricFactors> cachedFabricFactors(const ClusterDesc& cluster,
                                                         const RunDesc& run);

// The cluster's graph, from a cache keyed by its fabric and failures (not by its rates, which
// no factor depends on). Safe to call from any thread.
std::shared_ptr<const Topology> cachedTopology(const ClusterDesc& cluster);

} // namespace cs
