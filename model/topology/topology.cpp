#include "topology.h"

#include <algorithm>
#include <atomic>

namespace cs {

namespace {

// An NVL72 rack's NVLink fabric is nine NVSwitch trays; every GPU has links to all nine.
constexpr int kNvSwitchTraysPerRack = 9;

uint64_t nextDevicesId()
{
    static std::atomic<uint64_t> last{0};
    return ++last;
}

} // namespace

ClusterDesc devicesOf(ClusterDesc c)
{
    c.name.clear();
    c.gpu = {};
    c.gpuByName = true;
    c.virtualization = 0;
    c.storage.reset();
    c.reliability.reset();
    c.extensions = {};
    c.scaleUp.name.clear();
    c.scaleOut.name.clear();
    c.scaleUp.GBpsPerGpu = c.scaleOut.GbpsPerGpu = 0;
    c.scaleUp.latencyUs = c.scaleOut.latencyUs = 0;
    c.scaleOut.topology.routing = {}; // the Router's choice, not the graph's
    return c;
}

bool sameDevices(const ClusterDesc& a, const ClusterDesc& b)
{
    return devicesOf(a) == devicesOf(b);
}

int nvSwitchesPerDomain(const ClusterDesc& c)
{
    if (c.scaleUp.domain == DomainKind::Rack)
        return kNvSwitchTraysPerRack;
    return c.gpusPerNode > 1 ? 1 : 0; // the baseboard's NVSwitch complex
}

Topology::Topology(const ClusterDesc& cluster)
    : m_cluster(cluster)
    , m_devicesId(nextDevicesId())
    , m_shape(fabricShape(cluster))
{
    buildCompute();
    buildNics();
    buildFabric();
    applyRates(true, true);
    markFailures();
}

bool Topology::retime(const ClusterDesc& cluster)
{
    if (cluster == m_cluster)
        return true;
    if (!sameDevices(cluster, m_cluster))
        return false;
    // Most of the links are NVLinks, which an edit of the scale-out fabric leaves alone.
    const bool scaleUp = cluster.scaleUp.GBpsPerGpu != m_cluster.scaleUp.GBpsPerGpu ||
                         cluster.scaleUp.latencyUs != m_cluster.scaleUp.latencyUs;
    const bool scaleOut = cluster.scaleOut.GbpsPerGpu != m_cluster.scaleOut.GbpsPerGpu ||
                          cluster.scaleOut.latencyUs != m_cluster.scaleOut.latencyUs;
    m_cluster = cluster;
    applyRates(scaleUp, scaleOut);
    return true;
}

// The one place links get their rates and latencies, when built and when retimed: the NVLinks
// (first, up to the NICs' links) and the scale-out links (the rest).
void Topology::applyRates(bool scaleUp, bool scaleOut)
{
    const ClusterDesc& c = m_cluster;
    const double nvlinkGBps = c.nvlinkGBpsPerDirection() / std::max(1, m_nvSwitchesPerDomain);
    // Switch ports run at the rate of an average NIC.
    const double portGBps = c.nicGBpsPerDirection() * m_shape.gpusPerNode / m_shape.nicsPerNode;
    const size_t first = scaleUp ? 0 : size_t(m_firstNicLink);
    const size_t end = scaleOut ? m_links.size() : size_t(m_firstNicLink);
    for (size_t i = first; i < end; ++i) {
        Link& link = m_links[i];
        switch (link.cls) {
        case LinkClass::NVLink:
            link.GBps = nvlinkGBps;
            link.latencyUs = c.scaleUp.latencyUs;
            break;
        case LinkClass::ScaleOut1:
            link.GBps = c.nicGBpsPerDirection() * m_nics[size_t(link.a.index)].gpus;
            link.latencyUs = c.scaleOut.latencyUs;
            break;
        case LinkClass::ScaleOut2:
        case LinkClass::ScaleOut3:
            link.GBps = link.cables * portGBps;
            link.latencyUs = c.scaleOut.latencyUs;
            break;
        }
    }
}

void Topology::buildCompute()
{
    const ClusterDesc& c = m_cluster;
    const int columns = c.columns();
    const int domainSize = c.domainSize();
    m_domainCount = c.domainCount();
    m_nvSwitchesPerDomain = cs::nvSwitchesPerDomain(c);

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
    // Every link at once: an array grown past its reservation holds the old copy beside the
    // new one, the peak memory of a large cluster.
    const FabricShape& s = m_shape;
    const size_t fabricLinks = (s.tiers >= 2 ? size_t(s.leaves) * size_t(s.spinesPerPod) : 0) +
                               (s.tiers == 3 ? size_t(s.spines()) * size_t(s.coresPerPlane) : 0);
    m_links.reserve(m_gpus.size() * size_t(m_nvSwitchesPerDomain) +
                    size_t(c.nodeCount()) * size_t(s.nicsPerNode) + fabricLinks);
    for (size_t g = 0; g < m_gpus.size(); ++g) {
        for (int s = 0; s < m_nvSwitchesPerDomain; ++s)
            m_links.push_back(
                {LinkClass::NVLink,
                 {EndpointKind::Gpu, int(g)},
                 {EndpointKind::NvSwitch, m_gpus[g].domain * m_nvSwitchesPerDomain + s},
                 1});
    }
}

// NIC k of a node serves the GPUs fabricShape assigns it; leaves are numbered by node group,
// then rail, so that a pod holds every rail of its node groups.
void Topology::buildNics()
{
    const ClusterDesc& c = m_cluster;
    const FabricShape& s = m_shape;
    m_nics.reserve(size_t(c.nodeCount()) * size_t(s.nicsPerNode));
    m_firstNicLink = int(m_links.size());
    for (int n = 0; n < c.nodeCount(); ++n) {
        const int group = n / s.nodesPerLeaf;
        for (int k = 0; k < s.nicsPerNode; ++k) {
            Nic nic;
            nic.node = n;
            nic.rail = k;
            nic.leaf = group * s.leavesPerGroup() + (s.railLeaves ? k : 0);
            nic.firstGpu = m_nodes[size_t(n)].firstGpu + s.firstLocalOfNic(k);
            nic.gpus = s.firstLocalOfNic(k + 1) - s.firstLocalOfNic(k);
            for (int g = nic.firstGpu; g < nic.firstGpu + nic.gpus; ++g) {
                m_gpus[size_t(g)].nic = int(m_nics.size());
                m_gpus[size_t(g)].leaf = nic.leaf;
            }
            m_links.push_back({LinkClass::ScaleOut1,
                               {EndpointKind::Nic, int(m_nics.size())},
                               {EndpointKind::Switch, nic.leaf},
                               1});
            m_nics.push_back(nic);
        }
    }
}

void Topology::buildFabric()
{
    const FabricShape& s = m_shape;

    m_firstSwitch[1] = 0;
    for (int l = 0; l < s.leaves; ++l) {
        Switch leaf;
        leaf.tier = 1;
        leaf.index = l;
        leaf.rail = s.railLeaves ? l % s.nicsPerNode : -1;
        leaf.group = l / s.leavesPerGroup();
        leaf.pod = l / s.leavesPerPod;
        m_switches.push_back(leaf);
    }
    for (const Nic& nic : m_nics)
        ++m_switches[size_t(nic.leaf)].ports;
    m_firstSwitch[2] = int(m_switches.size());
    for (int i = 0; i < s.spines(); ++i) {
        Switch spine;
        spine.tier = 2;
        spine.index = i;
        spine.pod = i / s.spinesPerPod;
        spine.plane = i % s.spinesPerPod;
        m_switches.push_back(spine);
    }
    m_firstSwitch[3] = int(m_switches.size());
    for (int i = 0; i < s.cores(); ++i) {
        Switch core;
        core.tier = 3;
        core.index = i;
        core.plane = i / s.coresPerPlane;
        m_switches.push_back(core);
    }
    m_firstSwitch[4] = int(m_switches.size());

    m_firstUplink.assign(m_switches.size(), int(m_links.size()));
    auto connect = [&](int lower, int upper, int cables, LinkClass cls) {
        m_links.push_back(
            {cls, {EndpointKind::Switch, lower}, {EndpointKind::Switch, upper}, cables});
        m_switches[size_t(lower)].ports += cables;
        m_switches[size_t(upper)].ports += cables;
    };
    if (s.tiers >= 2) {
        for (int l = 0; l < s.leaves; ++l) {
            m_firstUplink[size_t(l)] = int(m_links.size());
            const int pod = l / s.leavesPerPod;
            for (int j = 0; j < s.spinesPerPod; ++j)
                connect(l, spineOf(pod, j), s.cablesLeafSpine, LinkClass::ScaleOut2);
        }
    }
    for (int i = 0; i < s.spines(); ++i) {
        const int sw = m_firstSwitch[2] + i;
        m_firstUplink[size_t(sw)] = int(m_links.size());
        if (s.tiers == 3) {
            for (int k = 0; k < s.coresPerPlane; ++k)
                connect(sw, coreOf(i % s.spinesPerPod, k), s.cablesSpineCore, LinkClass::ScaleOut3);
        }
    }
    for (int sw = m_firstSwitch[3]; sw < m_firstSwitch[4]; ++sw)
        m_firstUplink[size_t(sw)] = int(m_links.size());
}

int Topology::uplinkCount(int sw) const
{
    const int tier = m_switches[size_t(sw)].tier;
    if (tier == 1)
        return m_shape.tiers >= 2 ? m_shape.spinesPerPod : 0;
    if (tier == 2)
        return m_shape.tiers == 3 ? m_shape.coresPerPlane : 0;
    return 0;
}

int Topology::spineOf(int pod, int plane) const
{
    return m_firstSwitch[2] + pod * m_shape.spinesPerPod + plane;
}

int Topology::coreOf(int plane, int indexInPlane) const
{
    return m_firstSwitch[3] + plane * m_shape.coresPerPlane + indexInPlane;
}

void Topology::markFailures()
{
    const Failures& f = m_cluster.failures;
    if (!f.racks.empty() || !f.nodes.empty() || !f.gpus.empty()) {
        m_gpuOut = m_cluster.healthyGpus();
        m_gpuOut.flip();
    }
    if (f.switches.empty() && f.links.empty())
        return;
    m_switchOut.assign(m_switches.size(), false);
    m_nvSwitchOut.assign(m_nvSwitches.size(), false);
    m_linkFailed.assign(m_links.size(), false);
    for (const std::string& name : f.switches) {
        if (const std::optional<Endpoint> e = findSwitch(name)) {
            if (e->kind == EndpointKind::Switch)
                m_switchOut[size_t(e->index)] = true;
            else
                m_nvSwitchOut[size_t(e->index)] = true;
        }
    }
    for (const std::string& name : f.links)
        if (const std::optional<int> link = findLink(name))
            m_linkFailed[size_t(*link)] = true;
    m_linkDown = m_linkFailed;
    auto endDown = [&](const Endpoint& e) {
        return (e.kind == EndpointKind::Switch && m_switchOut[size_t(e.index)]) ||
               (e.kind == EndpointKind::NvSwitch && m_nvSwitchOut[size_t(e.index)]);
    };
    for (size_t i = 0; i < m_links.size(); ++i)
        if (endDown(m_links[i].a) || endDown(m_links[i].b))
            m_linkDown[i] = true;
}

int Topology::switchCount(int tier) const
{
    if (tier < 1 || tier > 3)
        return 0;
    return m_firstSwitch[size_t(tier) + 1] - m_firstSwitch[size_t(tier)];
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
           m_gpus.capacity() * sizeof(Gpu) + m_nics.capacity() * sizeof(Nic) +
           m_nvSwitches.capacity() * sizeof(NvSwitch) + m_switches.capacity() * sizeof(Switch) +
           m_links.capacity() * sizeof(Link) + m_firstUplink.capacity() * sizeof(int) +
           (m_gpuOut.capacity() + m_switchOut.capacity() + m_nvSwitchOut.capacity() +
            m_linkFailed.capacity() + m_linkDown.capacity()) /
               8;
}

} // namespace cs
