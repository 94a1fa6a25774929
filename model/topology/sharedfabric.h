#pragma once
// Several jobs on one fabric. Each job's collectives are timed with the contention factors of
// its own flows (fabricfactors.h); where another job's traffic crosses the same links, the
// link's bandwidth is divided among the flows of both, max-min, as inside one job. Jobs whose
// collectives keep the links busy for different fractions of their steps share a link in
// proportion to that time: another job's flow counts as the ratio of its busy fraction to the
// job's own (at most one flow: a busier neighbour takes no more than an equal share). A class
// of traffic (a dimension's collectives, or one pipeline hop) then runs at the least of its
// alone rate and, over every link it crosses, the link's bandwidth over its own flows plus the
// others' weighted ones.
// docs/cost-model.md, "Shared fabric", states the model and where it is approximate.

#include <memory>
#include <vector>

#include "description.h"
#include "fabricfactors.h"

namespace cs {

class Placement;
class Topology;

// How many flows of one class of a job's fabric traffic cross each link direction, every flow
// at unit rate (adaptive routing spreads a flow over paths, so counts can be fractions).
struct ClassLoads {
    std::vector<int> links; // increasing
    std::vector<float> up, down;
};

// One job's traffic across NVLink domains, as the links see it.
struct JobLoads {
    PerDim<ClassLoads> dims;      // each dimension's flows, pp with every hop together
    std::vector<ClassLoads> hops; // pp, per sending stage
};

JobLoads jobLoads(const Topology& topology, const Placement& placement, bool interleaved);

// jobLoads of the run's placement on the cluster, cached like the fabric factors. The run must
// be valid on the cluster. Safe to call from any thread.
std::shared_ptr<const JobLoads> cachedJobLoads(const ClusterDesc& cluster, const RunDesc& run);

// Another job as a job's links see it.
struct NeighbourJob {
    const JobLoads* loads = nullptr;
    PerDim<double> busy; // fraction of its step each dimension's collectives run, in [0, 1]
};

struct SharedFactors {
    FabricFactors factors; // the job's, with the neighbours running
    // Per neighbour: its part of what slows each dimension of the job (the neighbours' weights
    // on the link that binds); 0 where the dimension is not slowed.
    std::vector<PerDim<double>> blame;
};

// `alone`: the job's factors with the rest of the cluster idle; `own`: the job itself. With no
// neighbour, or with neighbours whose traffic crosses none of the job's links, the factors are
// `alone` exactly.
SharedFactors sharedFactors(const Topology& topology, const FabricFactors& alone,
                            const NeighbourJob& own, const std::vector<NeighbourJob>& neighbours);

} // namespace cs
