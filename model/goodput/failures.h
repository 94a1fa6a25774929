#pragma once
// How often a training job is interrupted: every GPU, node and switch it uses, each failing at
// the rate its mean time between failures gives. A synchronous job stops when any one of them
// fails. See docs/cost-model.md, "Goodput".

#include <cstdint>

#include "description.h"

namespace cs {

// What a job on the first `gpus` healthy GPUs (ranks go to healthy GPUs in order) depends on.
struct ComponentsInUse {
    int64_t gpus = 0;
    int64_t nodes = 0;      // nodes holding at least one used GPU
    int nvlinkSwitches = 0; // NVLink switch trays of the rack domains in use (NVL72)
    int leaves = 0;         // leaves the used GPUs' NICs connect to
    int spines = 0;         // linked to a used leaf, when more than one leaf is used
    int cores = 0;          // linked to a used spine, when more than one spine is used

    int64_t switches() const { return int64_t(nvlinkSwitches) + leaves + spines + cores; }
    bool operator==(const ComponentsInUse&) const = default;
};

// The first `gpusUsed` healthy GPUs of the allocation (nullptr: of the cluster), as ranks take
// them.
ComponentsInUse componentsInUse(const ClusterDesc& cluster, int64_t gpusUsed,
                                const Allocation* allocation = nullptr);

// Failures per hour of the job, by kind of component.
struct FailureRate {
    double gpusPerH = 0;
    double nodesPerH = 0;
    double switchesPerH = 0;
    bool reliabilityAssumed = false; // the cluster gives no `reliability`: the defaults

    double perHour() const { return gpusPerH + nodesPerH + switchesPerH; }
    double perDay() const { return 24 * perHour(); }
    double perSecond() const { return perHour() / 3600; }
};

// Independent components with exponential lifetimes: the job's failure rate is the sum of
// theirs, count / MTBF for each kind.
FailureRate failureRate(const ComponentsInUse& used, const Reliability& reliability);

} // namespace cs
