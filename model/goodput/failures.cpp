#include "failures.h"

#include <algorithm>
#include <vector>

#include "topology.h"

namespace cs {

namespace {

// The switches of `tier` linked to a marked switch of the tier below; `below` and the result
// are indexed by switch.
std::vector<bool> linkedAbove(const Topology& topology, const std::vector<bool>& below, int tier)
{
    const std::vector<Switch>& switches = topology.switches();
    std::vector<bool> above(switches.size(), false);
    for (const Link& link : topology.links()) {
        if (link.a.kind != EndpointKind::Switch || link.b.kind != EndpointKind::Switch)
            continue;
        for (const auto& [lower, upper] : {std::pair(link.a, link.b), std::pair(link.b, link.a)})
            if (below[size_t(lower.index)] && switches[size_t(upper.index)].tier == tier)
                above[size_t(upper.index)] = true;
    }
    return above;
}

int marked(const std::vector<bool>& v)
{
    return int(std::count(v.begin(), v.end(), true));
}

} // namespace

// A switch is in use when traffic between used GPUs may cross it: the leaves of their NICs;
// the spines above those leaves once there is more than one leaf to connect; the cores above
// those spines once there is more than one spine. With adaptive routing any of them can carry
// a collective's packets, so each one's failure interrupts the job.
ComponentsInUse componentsInUse(const Topology& topology, int64_t gpusUsed)
{
    const ClusterDesc& cluster = topology.cluster();
    const std::vector<bool> healthy = cluster.healthyGpus();
    const size_t switchCount = topology.switches().size();
    std::vector<bool> nodes(topology.nodes().size(), false);
    std::vector<bool> domains(size_t(topology.domainCount()), false);
    std::vector<bool> leaves(switchCount, false);
    ComponentsInUse used;
    for (size_t g = 0; g < healthy.size() && used.gpus < gpusUsed; ++g) {
        if (!healthy[g])
            continue;
        const Gpu& gpu = topology.gpus()[g];
        ++used.gpus;
        nodes[size_t(gpu.node)] = true;
        domains[size_t(gpu.domain)] = true;
        leaves[size_t(gpu.leaf)] = true;
    }
    used.nodes = marked(nodes);
    // An HGX board's NVSwitches are part of its node; an NVL72 rack's switch trays are not.
    if (cluster.scaleUp.domain == DomainKind::Rack)
        used.nvlinkSwitches = marked(domains) * topology.nvSwitchesPerDomain();
    used.leaves = marked(leaves);
    if (used.leaves > 1) {
        const std::vector<bool> spines = linkedAbove(topology, leaves, 2);
        used.spines = marked(spines);
        if (used.spines > 1)
            used.cores = marked(linkedAbove(topology, spines, 3));
    }
    return used;
}

FailureRate failureRate(const ComponentsInUse& used, const Reliability& r)
{
    FailureRate rate;
    rate.gpusPerH = double(used.gpus) / r.gpuMtbfH;
    rate.nodesPerH = double(used.nodes) / r.nodeMtbfH;
    rate.switchesPerH = double(used.switches()) / r.switchMtbfH;
    return rate;
}

} // namespace cs
