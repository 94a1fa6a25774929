#pragma once
// The device graph of a cluster: racks in the data hall, nodes (trays), GPUs with one NIC
// each, NVLink domains with their NVSwitches, scale-out switches by tier, and the links.
// Indices are dense and stable: GPU g is rack-major (rack, node in rack, GPU in node), so
// consecutive GPUs share a node and an NVLink domain.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "description.h"

namespace cs {

enum class LinkClass : uint8_t {
    NVLink,    // GPU <-> NVSwitch inside an NVLink domain
    ScaleOut1, // NIC <-> leaf (tier 1)
    ScaleOut2, // leaf <-> spine (tier 2)
    ScaleOut3, // spine <-> core (tier 3)
};
constexpr auto enumTexts(LinkClass)
{
    return std::array<EnumText<LinkClass>, 4>{
        {{LinkClass::NVLink, "nvlink", "NVLink"},
         {LinkClass::ScaleOut1, "nic", "NIC to leaf"},
         {LinkClass::ScaleOut2, "leaf-spine", "leaf to spine"},
         {LinkClass::ScaleOut3, "spine-core", "spine to core"}}};
}
inline bool isScaleOut(LinkClass c)
{
    return c != LinkClass::NVLink;
}

enum class EndpointKind : uint8_t { Gpu, NvSwitch, Switch };

struct Endpoint {
    EndpointKind kind = EndpointKind::Gpu;
    int index = 0; // into gpus(), nvSwitches() or switches()
    bool operator==(const Endpoint&) const = default;
};

struct Rack {
    int row = 0;
    int column = 0;
    int firstNode = 0;
    int firstGpu = 0;
};

struct Node {
    int rack = 0;
    int indexInRack = 0;
    int firstGpu = 0;
};

// A GPU and its NIC (one NIC per GPU, on the GPU's rail).
struct Gpu {
    int node = 0;
    int rack = 0;
    int local = 0;  // index inside its node = its rail
    int domain = 0; // NVLink domain
    int leaf = 0;   // index into switches() of the leaf its NIC connects to
};

struct NvSwitch {
    int domain = 0;
    int rack = 0;
    int indexInDomain = 0;
};

struct Switch {
    int tier = 1;  // 1 leaf, 2 spine, 3 core
    int index = 0; // inside its tier
    int rail = -1; // a rail-optimized leaf serves one rail; -1 otherwise
    int group = 0; // which group of nodes a leaf serves; spine plane otherwise
};

struct Link {
    LinkClass cls = LinkClass::NVLink;
    Endpoint a;
    Endpoint b;
    int cables = 1;  // parallel physical links bundled in this one
    double GBps = 0; // per direction, all cables together
    double latencyUs = 0;
};

struct SwitchAssumptions {
    int radix = 64; // ports per switch, at the NIC's rate
};

class Topology {
public:
    // The cluster must be valid (see loader.h); the caller checks kMaxGpus first.
    explicit Topology(const ClusterDesc& cluster, SwitchAssumptions sw = {});

    const ClusterDesc& cluster() const { return m_cluster; }
    const std::vector<Rack>& racks() const { return m_racks; }
    const std::vector<Node>& nodes() const { return m_nodes; }
    const std::vector<Gpu>& gpus() const { return m_gpus; }
    const std::vector<NvSwitch>& nvSwitches() const { return m_nvSwitches; }
    const std::vector<Switch>& switches() const { return m_switches; }
    const std::vector<Link>& links() const { return m_links; }

    int domainCount() const { return m_domainCount; }
    int domainSize() const { return m_cluster.domainSize(); }
    int switchCount(int tier) const;
    int linkCount(LinkClass c) const;
    double totalGBps(LinkClass c) const; // per direction, summed over links
    // Links from GPU g: its NVLink links then its NIC link (contiguous in links()).
    int firstLinkOfGpu(int gpu) const { return gpu * m_linksPerGpu; }
    int linksPerGpu() const { return m_linksPerGpu; }
    int nvSwitchesPerDomain() const { return m_nvSwitchesPerDomain; }
    size_t memoryBytes() const;

private:
    void buildCompute();
    void buildFabric(SwitchAssumptions sw);

    ClusterDesc m_cluster;
    std::vector<Rack> m_racks;
    std::vector<Node> m_nodes;
    std::vector<Gpu> m_gpus;
    std::vector<NvSwitch> m_nvSwitches;
    std::vector<Switch> m_switches;
    std::vector<Link> m_links;
    int m_domainCount = 0;
    int m_linksPerGpu = 0;
    int m_nvSwitchesPerDomain = 0;
};

} // namespace cs
