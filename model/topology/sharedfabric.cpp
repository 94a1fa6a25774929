#include "sharedfabric.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <optional>

#include "fabricshape.h"
#include "placement.h"
#include "routing.h"
#include "topology.h"
#include "traffic.h"

namespace cs {

namespace {

// Flows of one class that leave the NVLink domain, counted per link direction.
ClassLoads loadsOf(const Router& router, const std::vector<Flow>& flows, std::optional<int> hop)
{
    LinkLoadSum sum(router);
    for (const Flow& f : flows)
        if ((!hop || f.hop == *hop) && router.throughFabric(f.src, f.dst))
            sum.add(f.src, f.dst, 1.0);
    sum.finish();
    ClassLoads out;
    out.links = sum.touched();
    std::sort(out.links.begin(), out.links.end());
    out.up.reserve(out.links.size());
    out.down.reserve(out.links.size());
    for (int l : out.links) {
        out.up.push_back(float(sum.up(size_t(l))));
        out.down.push_back(float(sum.down(size_t(l))));
    }
    return out;
}

float countAt(const ClassLoads& c, int link, bool down)
{
    const auto it = std::lower_bound(c.links.begin(), c.links.end(), link);
    if (it == c.links.end() || *it != link)
        return 0;
    const size_t i = size_t(it - c.links.begin());
    return down ? c.down[i] : c.up[i];
}

// The neighbours' weighted flows on every link direction, as one class of the job that runs
// `ownBusy` of its step sees them: each flow weighs its job's busy fraction over `ownBusy`, at
// most 1.
class Background {
public:
    Background(size_t links, const std::vector<NeighbourJob>& neighbours, double ownBusy)
        : m_up(links, 0.0f)
        , m_down(links, 0.0f)
    {
        for (const NeighbourJob& n : neighbours)
            for (Dim d : kAllDims)
                if (n.busy[d] > 0)
                    add(n.loads->dims[d], float(weightOf(n.busy[d], ownBusy)));
    }
    float at(int link, bool down) const { return (down ? m_down : m_up)[size_t(link)]; }

    static double weightOf(double busy, double ownBusy)
    {
        return ownBusy > 0 ? std::min(1.0, busy / ownBusy) : 1.0;
    }

private:
    void add(const ClassLoads& c, float weight)
    {
        for (size_t i = 0; i < c.links.size(); ++i) {
            m_up[size_t(c.links[i])] += weight * c.up[i];
            m_down[size_t(c.links[i])] += weight * c.down[i];
        }
    }
    std::vector<float> m_up, m_down;
};

// Where a class of the job's traffic is held by the neighbours: its rate over its alone rate
// (1 when nothing binds), and the link direction that binds.
struct Binding {
    double ratio = 1;
    int link = -1;
    bool down = false;
};

Binding binding(const Topology& t, const ClassLoads& own, double aloneFactor,
                const Background& background)
{
    // The alone rate: the factor times what the class's NIC ends alone would allow.
    double endRate = 0;
    for (size_t i = 0; i < own.links.size(); ++i) {
        const Link& link = t.links()[size_t(own.links[i])];
        if (link.cls != LinkClass::ScaleOut1)
            continue;
        for (float n : {own.up[i], own.down[i]})
            if (n > 0)
                endRate = endRate == 0 ? link.GBps / n : std::min(endRate, link.GBps / n);
    }
    Binding out;
    if (endRate <= 0)
        return out;
    const double aloneRate = aloneFactor * endRate;
    for (size_t i = 0; i < own.links.size(); ++i) {
        const int l = own.links[i];
        if (!t.linkUsable(l))
            continue;
        for (bool down : {false, true}) {
            const float n = down ? own.down[i] : own.up[i];
            const float others = background.at(l, down);
            if (n <= 0 || others <= 0)
                continue;
            const double ratio = t.links()[size_t(l)].GBps / ((n + others) * aloneRate);
            if (ratio < out.ratio)
                out = {ratio, l, down};
        }
    }
    return out;
}

// Each neighbour's part of the weighted flows on the link that binds.
void blame(const Binding& b, const std::vector<NeighbourJob>& neighbours, double ownBusy, Dim d,
           std::vector<PerDim<double>>& out)
{
    if (b.link < 0)
        return;
    std::vector<double> weight(neighbours.size(), 0.0);
    double total = 0;
    for (size_t k = 0; k < neighbours.size(); ++k) {
        for (Dim e : kAllDims)
            weight[k] += Background::weightOf(neighbours[k].busy[e], ownBusy) *
                         countAt(neighbours[k].loads->dims[e], b.link, b.down);
        total += weight[k];
    }
    for (size_t k = 0; k < neighbours.size(); ++k)
        out[k][d] = std::max(out[k][d], total > 0 ? weight[k] / total : 0.0);
}

// What a job's loads depend on. The graph is referred to, not held: an entry must not keep a
// graph alive (tens of MiB at 131,072 GPUs) after the topology cache has let it go; an entry
// whose graph is gone matches nothing and is dropped.
struct LoadsKey {
    std::weak_ptr<const Topology> topology;
    Parallelism parallelism;
    PlacementOrder order = kPlacedDims;
    std::optional<Allocation> allocation;
    bool matches(const Topology* graph, const RunDesc& run) const
    {
        const std::shared_ptr<const Topology> held = topology.lock();
        return held && held.get() == graph && parallelism == run.parallelism &&
               order == run.placement && allocation == run.allocation;
    }
};

// Place Job times up to 64 allocations beside the running jobs, which stay at the front.
constexpr size_t kMaxCachedLoads = 128;

} // namespace

JobLoads jobLoads(const Topology& topology, const Placement& placement, bool interleaved)
{
    const Router router(topology);
    JobLoads out;
    for (Dim d : kAllDims) {
        if (placement.size(d) <= 1 && !(d == Dim::DP && placement.size(Dim::CP) > 1))
            continue;
        const std::vector<Flow> flows = dimensionFlows(topology, placement, d, interleaved);
        out.dims[d] = loadsOf(router, flows, std::nullopt);
        if (d == Dim::PP)
            for (int s = 0; s < placement.size(Dim::PP); ++s)
                out.hops.push_back(loadsOf(router, flows, s));
    }
    return out;
}

std::shared_ptr<const JobLoads> cachedJobLoads(const ClusterDesc& cluster, const RunDesc& run)
{
    static std::mutex mutex;
    static std::list<std::pair<LoadsKey, std::shared_ptr<const JobLoads>>> recent;
    const std::shared_ptr<const Topology> topology = cachedTopology(cluster);
    {
        std::lock_guard lock(mutex);
        std::erase_if(recent, [](const auto& entry) { return entry.first.topology.expired(); });
        for (auto it = recent.begin(); it != recent.end(); ++it) {
            if (it->first.matches(topology.get(), run)) {
                recent.splice(recent.begin(), recent, it);
                return it->second;
            }
        }
    }
    auto built = std::make_shared<const JobLoads>(
        jobLoads(*topology, placeRun(run, cluster), run.parallelism.vp > 1));
    std::lock_guard lock(mutex);
    recent.emplace_front(LoadsKey{topology, run.parallelism, run.placement, run.allocation}, built);
    if (recent.size() > kMaxCachedLoads)
        recent.pop_back();
    return built;
}

SharedFactors sharedFactors(const Topology& topology, const FabricFactors& alone,
                            const NeighbourJob& own, const std::vector<NeighbourJob>& neighbours)
{
    SharedFactors out;
    out.factors = alone;
    out.blame.assign(neighbours.size(), PerDim<double>{});
    if (neighbours.empty())
        return out;
    for (Dim d : kAllDims) {
        const bool hops = d == Dim::PP;
        if (own.loads->dims[d].links.empty())
            continue;
        const Background background(topology.links().size(), neighbours, own.busy[d]);
        const size_t classes = hops ? std::min(own.loads->hops.size(), alone.hopFabric.size()) : 1;
        for (size_t c = 0; c < classes; ++c) {
            const ClassLoads& loads = hops ? own.loads->hops[c] : own.loads->dims[d];
            double& factor = hops ? out.factors.hopFabric[c] : out.factors.fabric[d];
            const Binding b = binding(topology, loads, factor, background);
            factor *= b.ratio;
            blame(b, neighbours, own.busy[d], d, out.blame);
        }
    }
    return out;
}

} // namespace cs
