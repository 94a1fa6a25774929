#pragma once
// Routes between GPUs over the topology's graph. Inside an NVLink domain a flow goes over every
// NVSwitch both GPUs reach, evenly (NVLink stripes traffic over its switches). Across domains
// it leaves through the source GPU's NIC, goes up the Clos only as far as it must and down to
// the destination GPU's NIC (up-down routing): the same leaf turns at the leaf, the same pod
// at a spine, different pods at a core. `adaptive` routing spreads a flow over every
// equal-cost path (every cable alike, so in proportion to the paths through each next hop);
// `ecmp` pins it to one path chosen by a hash of (source, destination), so flows collide.
// Links and switches out of service carry nothing: flows take the paths that are left.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "topology.h"

namespace cs {

struct Hop {
    int link = 0;
    bool down = false; // from the link's upper end to its lower end
    double share = 1;  // of the flow
};

class Router {
public:
    explicit Router(const Topology& topology);

    const Topology& topology() const { return m_topology; }
    bool throughFabric(int srcGpu, int dstGpu) const
    {
        return m_topology.gpus()[size_t(srcGpu)].domain != m_topology.gpus()[size_t(dstGpu)].domain;
    }
    // Appends the hops of a flow between two different GPUs; false, with nothing appended, when
    // no path is left.
    bool route(int srcGpu, int dstGpu, std::vector<Hop>& hops) const;
    // The hops of a flow inside a domain, or of one across domains up to and including the
    // NICs' links (`route` is both parts).
    bool routeEnds(int srcGpu, int dstGpu, std::vector<Hop>& hops) const;
    // The hops between two different leaves, for a flow of this hash (ECMP).
    bool routeBetweenLeaves(int leafA, int leafB, uint64_t hash, std::vector<Hop>& hops) const;
    // Whether the route between two leaves depends on the flow (ECMP) or only on the leaves.
    bool hashed() const { return m_ecmp; }
    static uint64_t flowHash(int srcGpu, int dstGpu);
    // In words, why a flow between two GPUs has no path (for `route` returning false):
    // "leaf3, the leaf of GPU 97's NIC, is out of service".
    std::string whyNoPath(int srcGpu, int dstGpu) const;

private:
    // With nothing out of service every spine and core of the way has equal bundles.
    void routeUniformly(int leafA, int leafB, uint64_t hash, std::vector<Hop>& hops) const;
    // Equal-cost paths through one spine plane between two leaves (product of the cables along
    // them); 0 when a link or switch on the way is out of service.
    int64_t pathsThroughPlane(int leafA, int leafB, int plane, std::vector<int64_t>* perCore) const;

    const Topology& m_topology;
    bool m_ecmp = false;
};

// The load of many flows on every link, in each direction, with a bit per tag (a parallel
// dimension) for what each link carries. Flows between the same two leaves share their route
// above the leaves (adaptive routing), so it is computed once per pair of leaves.
class LinkLoadSum {
public:
    explicit LinkLoadSum(const Router& router);

    // False when the flow has no path; it then adds nothing.
    bool add(int srcGpu, int dstGpu, double volume, uint32_t tags = 0);
    // Routes what is pending between leaves; call before reading.
    void finish();
    // What crosses link `l` upwards (towards the core) and downwards.
    double up(size_t l) const { return m_links[l].up; }
    double down(size_t l) const { return m_links[l].down; }
    // The tags of the flows that cross it (0 when no flow had tags).
    uint32_t tags(size_t l) const { return m_links[l].tags; }
    // The links some flow crosses, each once.
    const std::vector<int>& touched() const { return m_touched; }

private:
    void apply(const std::vector<Hop>& hops, double volume, uint32_t tags);
    void applyInsideDomains();

    // One record per link, so that adding a hop touches one cache line: at 131,072 GPUs the
    // links are 1.4 million and flows reach them in no useful order.
    struct Sum {
        double up = 0;
        double down = 0;
        uint32_t tags = 0;
        bool seen = false;
    };
    struct Pending {
        double volume = 0;
        uint32_t tags = 0;
        bool any = false;
    };
    const Router& m_router;
    std::vector<Sum> m_links;
    // With every NVLink in service, a flow inside a domain spreads evenly over its GPUs'
    // switches: what each GPU sends and receives there is summed first and spread in finish(),
    // two additions a flow instead of two per switch.
    std::vector<Pending> m_sent, m_received; // by GPU
    std::vector<int> m_touched;
    std::unordered_map<uint64_t, Pending> m_betweenLeaves; // by (leaf a, leaf b)
    std::vector<Hop> m_scratch;
};

} // namespace cs
