#include "topology.h"

#include <algorithm>

namespace cs {

namespace {

// An NVL72 rack's NVLink fabric is nine NVSwitch trays; every GPU has links to all nine.
constexpr int kNvSwitchTraysPerRack = 9;

int ceilDiv(int64_t a, int64_t b)
{
    return int((a + b - 1) / b);
}

} // namespace

Topology::Topology(const ClusterDesc& cluster, SwitchAssumptions sw)
    : m_cluster(cluster)
{
    buildCompute();
    buildFabric(sw);
}

void Topology::buildCompute()
{
    const ClusterDesc& c = m_cluster;
    const int columns = c.columns();
    const int domainSize = c.domainSize();
    m_domainCount = c.domainCount();
    if (c.scaleUp.domain == DomainKind::Rack)
        m_nvSwitchesPerDomain = kNvSwitchTraysPerRack;
    else
        m_nvSwitchesPerDomain = c.gpusPerNode > 1 ? 1 : 0; // the baseboard's NVSwitch complex
    m_linksPerGpu = (m_nvSwitchesPerDomain > 0 ? m_nvSwitchesPerDomain : 0) + 1;

    m_racks.resize(size_t(c.racks));
    m_nodes.resize(size_t(c.nodeCount()));
    m_gpus.resize(size_t(c.gpuCount()));
    for (int r = 0; r < c.racks; ++r) {
        Rack& rack = m_racks[size_t(r)];
        rack.row = r / columns;
        rack.column = r % columns;
        rack.firstNode = r * c.nodesPerRack;
        rack.firstGpu = rack.firstNode * c.gpusPerNode;
        for (int n = 0; n < c.nodesPerRack; ++n) {
            const int nodeIndex = rack.firstNode + n;
            Node& node = m_nodes[size_t(nodeIndex)];
            node.rack = r;
            node.indexInRack = n;
            node.firstGpu = nodeIndex * c.gpusPerNode;
            for (int g = 0; g < c.gpusPerNode; ++g) {
                Gpu& gpu = m_gpus[size_t(node.firstGpu + g)];
                gpu.node = nodeIndex;
                gpu.rack = r;
                gpu.local = g;
                gpu.domain = (node.firstGpu + g) / domainSize;
            }
        }
    }
    m_nvSwitches.reserve(size_t(m_domainCount) * size_t(m_nvSwitchesPerDomain));
    for (int d = 0; d < m_domainCount; ++d) {
        const int rack = m_gpus[size_t(d) * size_t(domainSize)].rack;
        for (int s = 0; s < m_nvSwitchesPerDomain; ++s)
            m_nvSwitches.push_back({d, rack, s});
    }
}

// Scale-out: one NIC per GPU on a rail (its index in the node). Leaves take `down` ports
// toward NICs and the rest up; a rail-optimized leaf serves one rail of `down` consecutive
// nodes, a fat-tree leaf `down` consecutive NICs. Upper tiers are built to full bisection.
void Topology::buildFabric(SwitchAssumptions sw)
{
    const ClusterDesc& c = m_cluster;
    const FabricTopology& f = c.scaleOut.topology;
    const int radix = std::max(2, sw.radix);
    const double portGBps = c.nicGBpsPerDirection();
    const double latency = c.scaleOut.latencyUs;
    const bool rails = f.kind == FabricKind::RailOptimized;
    const int tiers = std::clamp(f.tiers, 1, 3);

    int down = radix;
    if (tiers > 1)
        down =
            std::clamp(int(radix * f.oversubscriptionAt(0) / (1.0 + f.oversubscriptionAt(0)) + 0.5),
                       1, radix - 1);
    const int up = tiers > 1 ? radix - down : 0;

    const int groupsPerRail = rails ? ceilDiv(c.nodeCount(), down) : 0;
    const int leaves = rails ? groupsPerRail * c.gpusPerNode : ceilDiv(c.gpuCount(), down);
    for (int l = 0; l < leaves; ++l) {
        if (rails)
            m_switches.push_back({1, l, l / groupsPerRail, l % groupsPerRail});
        else
            m_switches.push_back({1, l, -1, l});
    }

    const size_t gpuCount = m_gpus.size();
    m_links.reserve(gpuCount * size_t(m_linksPerGpu) + size_t(leaves) * size_t(up) * 2);
    const double nvlinkGBps = c.nvlinkGBpsPerDirection();
    for (size_t g = 0; g < gpuCount; ++g) {
        Gpu& gpu = m_gpus[g];
        for (int s = 0; s < m_nvSwitchesPerDomain; ++s) {
            const int sw = gpu.domain * m_nvSwitchesPerDomain + s;
            m_links.push_back({LinkClass::NVLink,
                               {EndpointKind::Gpu, int(g)},
                               {EndpointKind::NvSwitch, sw},
                               1,
                               nvlinkGBps / m_nvSwitchesPerDomain,
                               c.scaleUp.latencyUs});
        }
        gpu.leaf = rails ? gpu.local * groupsPerRail + gpu.node / down : int(g) / down;
        m_links.push_back({LinkClass::ScaleOut1,
                           {EndpointKind::Gpu, int(g)},
                           {EndpointKind::Switch, gpu.leaf},
                           1,
                           portGBps,
                           latency});
    }
    if (tiers == 1)
        return;

    // Tier 2: every leaf spreads its uplinks evenly over the spines.
    const int spineDown = tiers == 3 ? radix / 2 : radix;
    const int spines = ceilDiv(int64_t(leaves) * up, spineDown);
    const int firstSpine = int(m_switches.size());
    for (int s = 0; s < spines; ++s)
        m_switches.push_back({2, s, -1, s});
    auto connect = [&](int lowerFirst, int lowerCount, int lowerUp, int upperFirst, int upperCount,
                       LinkClass cls) {
        for (int l = 0; l < lowerCount; ++l) {
            // Uplink k of switch l goes to upper switch (l * lowerUp + k) mod upperCount;
            // consecutive uplinks to the same upper switch are one bundled link.
            const int perUpper = lowerUp / upperCount, extra = lowerUp % upperCount;
            if (perUpper > 0) {
                for (int u = 0; u < upperCount; ++u) {
                    const int cables =
                        perUpper + (((u - l) % upperCount + upperCount) % upperCount < extra);
                    m_links.push_back({cls,
                                       {EndpointKind::Switch, lowerFirst + l},
                                       {EndpointKind::Switch, upperFirst + u},
                                       cables,
                                       cables * portGBps,
                                       latency});
                }
            } else {
                for (int k = 0; k < lowerUp; ++k) {
                    const int u = int((int64_t(l) * lowerUp + k) % upperCount);
                    m_links.push_back({cls,
                                       {EndpointKind::Switch, lowerFirst + l},
                                       {EndpointKind::Switch, upperFirst + u},
                                       1,
                                       portGBps,
                                       latency});
                }
            }
        }
    };
    connect(0, leaves, up, firstSpine, spines, LinkClass::ScaleOut2);
    if (tiers == 2)
        return;

    const int spineUp = radix - spineDown;
    const int cores = ceilDiv(int64_t(spines) * spineUp, radix);
    const int firstCore = int(m_switches.size());
    for (int s = 0; s < cores; ++s)
        m_switches.push_back({3, s, -1, s});
    connect(firstSpine, spines, spineUp, firstCore, cores, LinkClass::ScaleOut3);
}

int Topology::switchCount(int tier) const
{
    return int(std::count_if(m_switches.begin(), m_switches.end(),
                             [tier](const Switch& s) { return s.tier == tier; }));
}

int Topology::linkCount(LinkClass c) const
{
    return int(
        std::count_if(m_links.begin(), m_links.end(), [c](const Link& l) { return l.cls == c; }));
}

double Topology::totalGBps(LinkClass c) const
{
    double sum = 0;
    for (const Link& l : m_links)
        if (l.cls == c)
            sum += l.GBps;
    return sum;
}

size_t Topology::memoryBytes() const
{
    return m_racks.capacity() * sizeof(Rack) + m_nodes.capacity() * sizeof(Node) +
           m_gpus.capacity() * sizeof(Gpu) + m_nvSwitches.capacity() * sizeof(NvSwitch) +
           m_switches.capacity() * sizeof(Switch) + m_links.capacity() * sizeof(Link);
}

} // namespace cs
