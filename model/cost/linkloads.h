#pragma once
// The traffic of one step on every link (`clusterscope-cli links`, the Links dock, colouring
// by link load): bytes, busy time, utilization and which dimensions' traffic each NVLink, NIC,
// leaf-spine and spine-core link carries. The bytes are what the workload's collectives move
// (its communication seconds at unit bandwidth and no latency, so link loads and step times
// come from one set of formulas); they go over the routes of each dimension's flows
// (traffic.h, routing.h).

#include <array>
#include <cstdint>
#include <vector>

#include "description.h"
#include "topology.h"

namespace cs {

struct Calibration;

struct LinkTraffic {
    double bytes = 0;       // in the step, both directions together
    double busyS = 0;       // the busier direction's bytes over the link's bandwidth
    double utilization = 0; // busyS over the step time, at most 1
    uint32_t dims = 0;      // a bit per Dim whose traffic the link carries
    bool carries(Dim d) const { return (dims >> unsigned(d)) & 1u; }
};

struct TierTraffic {
    int links = 0; // every link of the tier, idle or not
    double bytes = 0;
    double maxUtilization = 0;
};

struct StepTraffic {
    double stepTimeS = 0;
    std::vector<LinkTraffic> links;   // indexed like Topology::links()
    std::array<TierTraffic, 4> tiers; // indexed by LinkClass

    const TierTraffic& tier(LinkClass c) const { return tiers[size_t(c)]; }
    // Link indices, busiest first (utilization, then bytes, then index), at most n.
    std::vector<int> hottest(size_t n) const;
};

// The run must be valid on the topology's cluster; stepTimeS is its evaluation's step time.
// `calibration`: nullptr for defaultCalibration().
StepTraffic stepTraffic(const Topology& topology, const RunDesc& run, double stepTimeS,
                        const Calibration* calibration = nullptr);

} // namespace cs
