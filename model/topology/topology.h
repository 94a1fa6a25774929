#pragma once
// The device graph of a cluster: racks in the data hall, nodes (trays), GPUs, their NICs,
// NVLink domains with their NVSwitches, the scale-out switches by tier, and the links, each
// switch and link with a stable name (what `failures` names and `describe --json` lists).
// Indices are dense and stable: GPU g is rack-major (rack, node in rack, GPU in node), so
// consecutive GPUs share a node and an NVLink domain.
//
// The scale-out fabric is a folded Clos (fabricshape.h says how it is sized): NICs go to
// leaves; with two tiers every leaf has uplinks to every spine; with three, leaves form pods,
// each leaf with one uplink to every spine of its pod, and spine j of every pod has uplinks to
// the cores of plane j. Links run from a lower end `a` to an upper end `b`: GPU to NVSwitch,
// NIC to leaf, leaf to spine, spine to core.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "description.h"
#include "fabricshape.h"

namespace cs {

enum class LinkClass : uint8_t {
    NVLink,    // GPU <-> NVSwitch inside an NVLink domain
    ScaleOut1, // NIC <-> leaf (tier 1)
    ScaleOut2, // leaf <-> spine (tier 2)
    ScaleOut3, // spine <-> core (tier 3)
};
// The texts are the link tiers of `describe --json` and `links`.
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

// "leaf", "spine", "core" for tiers 1 to 3: the switch tiers of `describe --json`.
std::string_view switchTierName(int tier);

enum class EndpointKind : uint8_t { Gpu, NvSwitch, Nic, Switch };

struct Endpoint {
    EndpointKind kind = EndpointKind::Gpu;
    int index = 0; // into gpus(), nvSwitches(), nics() or switches()
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

struct Gpu {
    int node = 0;
    int rack = 0;
    int local = 0;  // index inside its node
    int domain = 0; // NVLink domain
    int nic = 0;    // index into nics()
    int leaf = 0;   // index into switches() of its NIC's leaf
};

// A NIC serves consecutive GPUs of its node: one GPU each unless `rails` is below
// gpus_per_node.
struct Nic {
    int node = 0;
    int rail = 0; // its index in the node
    int leaf = 0; // index into switches()
    int firstGpu = 0;
    int gpus = 1;
};

struct NvSwitch {
    int domain = 0;
    int rack = 0;
    int indexInDomain = 0;
};

struct Switch {
    int tier = 1;   // 1 leaf, 2 spine, 3 core
    int index = 0;  // inside its tier: the number in its name
    int rail = -1;  // a rail-optimized leaf serves one rail; -1 otherwise
    int group = -1; // a leaf: the group of nodes it serves
    int pod = -1;   // a leaf or spine: its pod
    int plane = -1; // a spine: its index in the pod; a core: the plane it joins
    int ports = 0;  // ports in use, down and up
};

struct Link {
    LinkClass cls = LinkClass::NVLink;
    Endpoint a;      // lower end
    Endpoint b;      // upper end
    int cables = 1;  // parallel physical links bundled in this one
    double GBps = 0; // per direction, all cables together
    double latencyUs = 0;
};

// NVSwitches per NVLink domain: an NVL72 rack's switch trays, or a node's NVSwitch complex
// (none with one GPU a node).
int nvSwitchesPerDomain(const ClusterDesc& cluster);

// The cluster without what a Topology only carries along (rates, latencies, routing, the GPU's
// figures, names, reliability, storage, extensions): a field added later counts as a device
// until shown otherwise.
ClusterDesc devicesOf(ClusterDesc cluster);
// Whether two clusters build the same device graph: racks, nodes, GPUs, NVLink domains, fabric
// and failures alike. They may differ in rates, latencies, routing, the GPU's figures, names
// and what else a Topology only carries along (Topology::retime takes those).
bool sameDevices(const ClusterDesc& a, const ClusterDesc& b);

class Topology {
public:
    // The cluster must be valid (see loader.h); the caller checks kMaxGpus first. Switches
    // and links that `failures` names and the fabric does not have are ignored here
    // (checkFabric in fabriccheck.h reports them).
    explicit Topology(const ClusterDesc& cluster);

    // Takes a cluster of the same devices (sameDevices) with its rates, latencies and the rest
    // of its description, keeping the graph: an edit of a rate need not build 8,192 GPUs'
    // graph again. False, and nothing changed, for other devices.
    bool retime(const ClusterDesc& cluster);
    // Names the device graph: shared by a topology and its copies, retimed or not, and by no
    // other graph in the process, so that a view can tell new rates from new devices (an
    // address can be reused).
    uint64_t devicesId() const { return m_devicesId; }

    const ClusterDesc& cluster() const { return m_cluster; }
    const FabricShape& shape() const { return m_shape; }
    const std::vector<Rack>& racks() const { return m_racks; }
    const std::vector<Node>& nodes() const { return m_nodes; }
    const std::vector<Gpu>& gpus() const { return m_gpus; }
    const std::vector<Nic>& nics() const { return m_nics; }
    const std::vector<NvSwitch>& nvSwitches() const { return m_nvSwitches; }
    const std::vector<Switch>& switches() const { return m_switches; }
    const std::vector<Link>& links() const { return m_links; }

    int domainCount() const { return m_domainCount; }
    int domainSize() const { return m_cluster.domainSize(); }
    int nvSwitchesPerDomain() const { return m_nvSwitchesPerDomain; }
    int switchCount(int tier) const;
    int linkCount(LinkClass c) const;
    double totalGBps(LinkClass c) const; // per direction, summed over links
    size_t memoryBytes() const;

    // Where things are in switches() and links().
    int firstSwitchOfTier(int tier) const { return m_firstSwitch[size_t(tier)]; }
    // GPU g's link to NVSwitch k of its domain.
    int nvLinkOf(int gpu, int k) const { return gpu * m_nvSwitchesPerDomain + k; }
    int nicLinkOf(int nic) const { return m_firstNicLink + nic; }
    int nicLinkOfGpu(int gpu) const { return nicLinkOf(m_gpus[size_t(gpu)].nic); }
    // A leaf's or spine's uplinks are contiguous, one per upper switch it reaches: a leaf's
    // k-th goes to spine k of its pod, a spine's k-th to core k of its plane.
    int firstUplink(int sw) const { return m_firstUplink[size_t(sw)]; }
    int uplinkCount(int sw) const;
    int spineOf(int pod, int plane) const;         // index into switches()
    int coreOf(int plane, int indexInPlane) const; // index into switches()

    // Out of service, by failures: a failed GPU (its rack, node or itself) holds no rank; a
    // link carries nothing when it, or a switch at either end, has failed.
    bool gpuInService(int gpu) const { return m_gpuOut.empty() || !m_gpuOut[size_t(gpu)]; }
    bool switchFailed(int sw) const { return !m_switchOut.empty() && m_switchOut[size_t(sw)]; }
    bool nvSwitchFailed(int i) const { return !m_nvSwitchOut.empty() && m_nvSwitchOut[size_t(i)]; }
    bool linkFailed(int link) const { return !m_linkFailed.empty() && m_linkFailed[size_t(link)]; }
    bool linkUsable(int link) const { return m_linkDown.empty() || !m_linkDown[size_t(link)]; }
    // Whether some switch or link is out of service.
    bool hasFabricFailures() const { return !m_linkDown.empty(); }

    // Names: switches "leaf12", "spine3", "core0"; NVSwitches "nvsw-d5-2" (domain 5, switch
    // 2 of it); links "nvl4097-2" (GPU 4097 to NVSwitch 2 of its domain), "nic4097" (NIC
    // 4097 to its leaf; NIC n is GPU n's when every GPU has its own), "leaf12-spine3",
    // "spine3-core0".
    std::string switchName(int sw) const;
    std::string nvSwitchName(int i) const;
    std::string linkName(int link) const;
    // The switch or NVSwitch a name means; nothing when the fabric has none of that name.
    std::optional<Endpoint> findSwitch(std::string_view name) const;
    std::optional<int> findLink(std::string_view name) const;
    // The leaf-spine or spine-core link between two switches; nothing when they are not joined.
    std::optional<int> linkBetween(int lower, int upper) const;

private:
    void buildCompute();
    void buildNics();
    void buildFabric();
    void markFailures();
    void applyRates(bool scaleUp, bool scaleOut);

    ClusterDesc m_cluster;
    uint64_t m_devicesId = 0;
    FabricShape m_shape;
    std::vector<Rack> m_racks;
    std::vector<Node> m_nodes;
    std::vector<Gpu> m_gpus;
    std::vector<Nic> m_nics;
    std::vector<NvSwitch> m_nvSwitches;
    std::vector<Switch> m_switches;
    std::vector<Link> m_links;
    std::array<int, 5> m_firstSwitch{}; // per tier 1..3, and the end at 4
    std::vector<int> m_firstUplink;     // per switch
    int m_firstNicLink = 0;
    int m_domainCount = 0;
    int m_nvSwitchesPerDomain = 0;
    // Empty when nothing of the kind is out of service.
    std::vector<bool> m_gpuOut;
    std::vector<bool> m_switchOut;
    std::vector<bool> m_nvSwitchOut;
    std::vector<bool> m_linkFailed;
    std::vector<bool> m_linkDown;
};

} // namespace cs
