#include "fabricfactors.h"

#include <bit>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "contention.h"
#include "placement.h"
#include "topology.h"
#include "traffic.h"

namespace cs {

namespace {

// What a graph depends on: everything but rates, latencies and names.
struct FabricKey {
    int racks = 0;
    int nodesPerRack = 0;
    int gpusPerNode = 0;
    DomainKind domain = DomainKind::Node;
    FabricTopology topology;
    Failures failures;
    bool operator==(const FabricKey&) const = default;
};

FabricKey fabricKeyOf(const ClusterDesc& c)
{
    return {c.racks,          c.nodesPerRack,      c.gpusPerNode,
            c.scaleUp.domain, c.scaleOut.topology, c.failures};
}

// A run's ranks go to the GPUs of its allocation: two jobs alike but on other racks meet
// other links.
struct PlacementKey {
    FabricKey fabric;
    std::optional<Allocation> allocation;
    PerDim<int> sizes;
    int etp = 1;
    PlacementOrder order = kPlacedDims;
    bool interleaved = false;
    bool operator==(const PlacementKey&) const = default;
};

class Hasher {
public:
    void add(uint64_t v) { m_h = (m_h ^ v) * 0x100000001b3ull; }
    void add(double v) { add(std::bit_cast<uint64_t>(v)); }
    void add(const std::string& s) { add(uint64_t(std::hash<std::string>{}(s))); }
    template <typename T> void addAll(const std::vector<T>& items)
    {
        add(uint64_t(items.size()));
        for (const T& item : items)
            add(item);
    }
    uint64_t value() const { return m_h; }

private:
    uint64_t m_h = 0xcbf29ce484222325ull;
};

void hashInto(Hasher& h, const FabricKey& k)
{
    for (int v : {k.racks, k.nodesPerRack, k.gpusPerNode, int(k.domain), int(k.topology.kind),
                  k.topology.tiers, k.topology.switchRadix, k.topology.nodesPerLeaf,
                  k.topology.rails, int(k.topology.routing)})
        h.add(uint64_t(uint32_t(v)));
    h.addAll(k.topology.oversubscription);
    for (const std::vector<int>* v : {&k.failures.racks, &k.failures.nodes, &k.failures.gpus}) {
        h.add(uint64_t(v->size()));
        for (int i : *v)
            h.add(uint64_t(uint32_t(i)));
    }
    h.addAll(k.failures.switches);
    h.addAll(k.failures.links);
}

void hashInto(Hasher& h, const std::optional<Allocation>& a)
{
    h.add(uint64_t(a ? 1 + int(a->unit) : 0));
    if (!a)
        return;
    h.add(uint64_t(a->ranges.size()));
    for (const auto& [first, last] : a->ranges)
        h.add(uint64_t(uint32_t(first)) << 32 | uint32_t(last));
}

struct PlacementKeyHash {
    size_t operator()(const PlacementKey& k) const
    {
        Hasher h;
        hashInto(h, k.fabric);
        hashInto(h, k.allocation);
        for (int s : k.sizes)
            h.add(uint64_t(uint32_t(s)));
        h.add(uint64_t(uint32_t(k.etp)));
        for (Dim d : k.order)
            h.add(uint64_t(d));
        h.add(uint64_t(k.interleaved));
        return size_t(h.value());
    }
};

// Entries are small; a search of a large cluster needs a few thousand. When full it starts
// over rather than keeping use order on every hit.
constexpr size_t kMaxCachedFactors = 1 << 15;
// Graphs are large (a 131,072-GPU graph is tens of MiB): the last few used.
constexpr size_t kMaxCachedTopologies = 2;

std::mutex& cacheMutex()
{
    static std::mutex m;
    return m;
}

bool wanted(const Router& router, const Flow& f, bool fabricContends, bool nvlinkFails)
{
    return router.throughFabric(f.src, f.dst) ? fabricContends : nvlinkFails;
}

// One dimension's flows as classes: `base` for NVLink flows, base + 1 across domains.
void addClassFlows(const Router& router, const std::vector<Flow>& flows, bool perHop, int base,
                   bool fabricContends, bool nvlinkFails, std::vector<ClassFlow>& out)
{
    for (const Flow& f : flows) {
        if (!wanted(router, f, fabricContends, nvlinkFails))
            continue;
        const int cls =
            base + (perHop ? 2 * f.hop : 0) + (router.throughFabric(f.src, f.dst) ? 1 : 0);
        out.push_back({f.src, f.dst, cls});
    }
}

// "DP traffic from GPU 0 to GPU 64 has no path: ..."
std::string noPathText(const Router& router, const ClassFlow& f, std::optional<Dim> d)
{
    return (d ? std::string(dimInfo(*d).shortLabel) + " traffic" : std::string("traffic")) +
           " from GPU " + std::to_string(f.src) + " to GPU " + std::to_string(f.dst) +
           " has no path: " + router.whyNoPath(f.src, f.dst);
}

// One dimension's part of FabricFactors.
struct DimensionFactors {
    double fabric = 1;
    double nvlink = 1;
    std::vector<double> hopFabric, hopNvlink; // pp
    std::string noPath;
};

DimensionFactors dimensionFactors(const Router& router, const Placement& placement, Dim d,
                                  bool interleaved)
{
    const Topology& topology = router.topology();
    const bool fabricContends = fabricCanContend(topology.cluster());
    const bool nvlinkFails = topology.hasFabricFailures();
    const bool perHop = d == Dim::PP;
    const int hops = placement.size(Dim::PP);
    DimensionFactors out;
    if (perHop) {
        out.hopFabric.assign(size_t(hops), 1.0);
        out.hopNvlink.assign(size_t(hops), 1.0);
    }
    if ((!fabricContends && !nvlinkFails) || (!nvlinkFails && staysInDomains(placement, d)))
        return out; // nothing of it where anything can slow it
    std::vector<ClassFlow> flows;
    addClassFlows(router, dimensionFlows(topology, placement, d, interleaved), perHop, 0,
                  fabricContends, nvlinkFails, flows);
    if (flows.empty())
        return out;
    const Contention c = contention(router, flows, perHop ? 2 * hops : 2);
    if (c.unroutable >= 0)
        out.noPath = noPathText(router, flows[size_t(c.unroutable)], d);
    if (perHop) {
        for (int s = 0; s < hops; ++s) {
            out.hopNvlink[size_t(s)] = c.factor[size_t(2 * s)];
            out.hopFabric[size_t(s)] = c.factor[size_t(2 * s + 1)];
        }
    } else {
        out.nvlink = c.factor[0];
        out.fabric = c.factor[1];
    }
    return out;
}

void merge(Dim d, const DimensionFactors& part, FabricFactors& out)
{
    out.fabric[d] = part.fabric;
    out.nvlink[d] = part.nvlink;
    if (d == Dim::PP) {
        out.hopFabric = part.hopFabric;
        out.hopNvlink = part.hopNvlink;
    }
    if (out.noPath.empty())
        out.noPath = part.noPath;
}

// What shapes one dimension's groups: its size and stride (dp with cp's), the ranks in use,
// whether the pipeline wraps round; expert groups fold over the whole layout.
struct DimensionKey {
    FabricKey fabric;
    std::optional<Allocation> allocation;
    Dim dim = Dim::TP;
    std::vector<int> shape;
    bool operator==(const DimensionKey&) const = default;
};

struct DimensionKeyHash {
    size_t operator()(const DimensionKey& k) const
    {
        Hasher h;
        hashInto(h, k.fabric);
        hashInto(h, k.allocation);
        h.add(uint64_t(k.dim));
        for (int v : k.shape)
            h.add(uint64_t(uint32_t(v)));
        return size_t(h.value());
    }
};

std::vector<int> dimensionShape(const PlacementKey& k, Dim d)
{
    PerDim<int> strides;
    int world = 1;
    for (Dim placed : k.order) {
        strides[placed] = world;
        world *= k.sizes[placed];
    }
    switch (d) {
    case Dim::TP:
    case Dim::CP:
        return {world, k.sizes[d], strides[d]};
    case Dim::PP:
        return {world, k.sizes[d], strides[d], int(k.interleaved)};
    case Dim::DP:
        return {world, k.sizes[Dim::DP], strides[Dim::DP], k.sizes[Dim::CP], strides[Dim::CP]};
    case Dim::EP:
        break;
    }
    std::vector<int> all{world, k.etp};
    for (Dim placed : k.order) {
        all.push_back(int(placed));
        all.push_back(k.sizes[placed]);
    }
    all.push_back(k.sizes[Dim::EP]);
    return all;
}

} // namespace

FabricFactors::FabricFactors()
{
    for (Dim d : kAllDims) {
        fabric[d] = 1;
        nvlink[d] = 1;
    }
}

FabricFactors fabricFactors(const Topology& topology, const Placement& placement, bool interleaved)
{
    FabricFactors out;
    const Router router(topology);
    for (Dim d : kAllDims)
        merge(d, dimensionFactors(router, placement, d, interleaved), out);
    return out;
}

FabricFactors concurrentFactors(const Topology& topology, const Placement& placement,
                                bool interleaved, const std::vector<Dim>& dims)
{
    FabricFactors out;
    const Router router(topology);
    std::vector<ClassFlow> flows;
    for (Dim d : dims)
        addClassFlows(router, dimensionFlows(topology, placement, d, interleaved), false,
                      2 * int(d), true, true, flows);
    const Contention c = contention(router, flows, 2 * int(kDimCount));
    if (c.unroutable >= 0)
        out.noPath = noPathText(router, flows[size_t(c.unroutable)], std::nullopt);
    for (Dim d : dims) {
        out.nvlink[d] = c.factor[2 * size_t(d)];
        out.fabric[d] = c.factor[2 * size_t(d) + 1];
    }
    return out;
}

std::shared_ptr<const Topology> cachedTopology(const ClusterDesc& cluster)
{
    using Entry = std::pair<FabricKey, std::shared_ptr<const Topology>>;
    static std::list<Entry> recent; // most recent first
    const FabricKey key = fabricKeyOf(cluster);
    {
        std::lock_guard lock(cacheMutex());
        for (auto it = recent.begin(); it != recent.end(); ++it) {
            if (it->first == key) {
                recent.splice(recent.begin(), recent, it);
                return it->second;
            }
        }
    }
    auto built = std::make_shared<const Topology>(cluster);
    std::lock_guard lock(cacheMutex());
    recent.emplace_front(key, built);
    if (recent.size() > kMaxCachedTopologies)
        recent.pop_back();
    return built;
}

std::shared_ptr<const FabricFactors> cachedFabricFactors(const ClusterDesc& cluster,
                                                         const RunDesc& run)
{
    // Whole placements first; on a miss each dimension by what shapes its groups, which many
    // placements share (a search's layouts differ in a few dimensions at a time).
    static std::unordered_map<PlacementKey, std::shared_ptr<const FabricFactors>, PlacementKeyHash>
        placements;
    static std::unordered_map<DimensionKey, DimensionFactors, DimensionKeyHash> dimensions;
    PlacementKey key;
    key.fabric = fabricKeyOf(cluster);
    key.allocation = run.allocation;
    for (Dim d : kAllDims)
        key.sizes[d] = run.parallelism.size(d);
    key.sizes[Dim::DP] = run.dpFor(allocatedGpuCount(cluster, run));
    key.etp = run.parallelism.etp;
    key.order = run.placement;
    key.interleaved = run.parallelism.vp > 1;
    {
        std::lock_guard lock(cacheMutex());
        if (const auto it = placements.find(key); it != placements.end())
            return it->second;
    }
    auto factors = std::make_shared<FabricFactors>();
    std::shared_ptr<const Topology> topology;
    std::optional<Placement> placement;
    std::optional<Router> router;
    for (Dim d : kAllDims) {
        const int groupSize = key.sizes[d] * (d == Dim::DP ? key.sizes[Dim::CP] : 1);
        if (groupSize <= 1) {
            merge(d, DimensionFactors{1, 1, {1.0}, {1.0}, {}}, *factors);
            continue; // no traffic
        }
        DimensionKey dimKey{key.fabric, key.allocation, d, dimensionShape(key, d)};
        {
            std::lock_guard lock(cacheMutex());
            if (const auto it = dimensions.find(dimKey); it != dimensions.end()) {
                merge(d, it->second, *factors);
                continue;
            }
        }
        if (!placement) {
            topology = cachedTopology(cluster);
            placement.emplace(placeRun(run, cluster));
            router.emplace(*topology);
        }
        DimensionFactors part = dimensionFactors(*router, *placement, d, key.interleaved);
        merge(d, part, *factors);
        std::lock_guard lock(cacheMutex());
        if (dimensions.size() >= kMaxCachedFactors)
            dimensions.clear();
        dimensions.emplace(std::move(dimKey), std::move(part));
    }
    std::lock_guard lock(cacheMutex());
    if (placements.size() >= kMaxCachedFactors)
        placements.clear();
    placements.emplace(std::move(key), factors);
    return factors;
}

} // namespace cs
