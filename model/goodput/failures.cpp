#include "failures.h"

#include <algorithm>
#include <vector>

#include "fabricshape.h"
#include "topology.h"

namespace cs {

namespace {

int marked(const std::vector<bool>& v)
{
    return int(std::count(v.begin(), v.end(), true));
}

} // namespace

// A switch is in use when traffic between used GPUs may cross it: the leaves of their NICs;
// the spines above those leaves once there is more than one leaf to connect; the cores above
// those spines once there is more than one spine. With adaptive routing any of them can carry
// a collective's packets, so each one's failure interrupts the job.
//
// Counted on the fabric's shape, as Topology wires it (topology.h): a GPU's NIC goes to the
// leaf of its node group (and rail); every leaf of a pod has uplinks to each spine of the pod;
// spine j of every pod to each core of plane j. The graph itself, tens of bytes a GPU, is not
// built: at 131,072 GPUs it would double the memory of an evaluation.
ComponentsInUse componentsInUse(const ClusterDesc& cluster, int64_t gpusUsed,
                                const Allocation* allocation)
{
    const FabricShape s = fabricShape(cluster);
    const std::vector<bool> healthy = cluster.healthyGpus();
    const int64_t gpusPerNode = cluster.gpusPerNode;
    const int64_t domainSize = cluster.domainSize();
    std::vector<bool> nodes(size_t(cluster.nodeCount()), false);
    std::vector<bool> domains(size_t(cluster.domainCount()), false);
    std::vector<bool> leaves(size_t(s.leaves), false);
    std::vector<bool> pods(size_t(s.pods), false);
    ComponentsInUse used;
    const std::vector<std::pair<int64_t, int64_t>> ranges =
        allocation ? allocatedGpuRanges(cluster, *allocation)
                   : std::vector<std::pair<int64_t, int64_t>>{{0, int64_t(healthy.size())}};
    for (const auto& [first, end] : ranges)
        for (int64_t g = first; g < end && used.gpus < gpusUsed; ++g) {
            if (!healthy[size_t(g)])
                continue;
            ++used.gpus;
            const int64_t node = int64_t(g) / gpusPerNode;
            const int local = int(int64_t(g) % gpusPerNode);
            nodes[size_t(node)] = true;
            domains[size_t(int64_t(g) / domainSize)] = true;
            const int leaf = int(node / s.nodesPerLeaf) * s.leavesPerGroup() +
                             (s.railLeaves ? s.nicOfLocal(local) : 0);
            leaves[size_t(leaf)] = true;
            pods[size_t(leaf / s.leavesPerPod)] = true;
        }
    used.nodes = marked(nodes);
    // An HGX board's NVSwitches are part of its node; an NVL72 rack's switch trays are not.
    if (cluster.scaleUp.domain == DomainKind::Rack)
        used.nvlinkSwitches = marked(domains) * nvSwitchesPerDomain(cluster);
    used.leaves = marked(leaves);
    if (used.leaves > 1 && s.tiers >= 2) {
        used.spines = marked(pods) * s.spinesPerPod;
        // Each pod in use brings every plane: each plane's cores are linked to one of them.
        if (used.spines > 1 && s.tiers == 3)
            used.cores = s.cores();
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
