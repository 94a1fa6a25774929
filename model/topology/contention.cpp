#include "contention.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace cs {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kTolerance = 1e-9;

// What each class's flows would get if only their ends limited them, the class alone: the
// least of its ends' capacity over the flows sharing that end. Ends are a NIC link or a GPU's
// NVLink port, in a direction.
std::vector<double> endLimitedRates(const Router& router, const std::vector<ClassFlow>& flows,
                                    int classes)
{
    const Topology& t = router.topology();
    const double nvlinkPort = t.cluster().nvlinkGBpsPerDirection();
    const size_t nics = t.nics().size();
    std::vector<int> order(flows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return flows[size_t(a)].cls < flows[size_t(b)].cls; });
    std::vector<int> sharing(2 * (nics + t.gpus().size()), 0);
    std::vector<size_t> touched;
    std::vector<double> rate(size_t(classes), kInfinity);
    for (size_t i = 0; i < order.size();) {
        const int cls = flows[size_t(order[i])].cls;
        for (; i < order.size() && flows[size_t(order[i])].cls == cls; ++i) {
            const ClassFlow& f = flows[size_t(order[i])];
            const bool fabric = router.throughFabric(f.src, f.dst);
            const size_t from = fabric ? size_t(t.gpus()[size_t(f.src)].nic) : nics + size_t(f.src);
            const size_t to = fabric ? size_t(t.gpus()[size_t(f.dst)].nic) : nics + size_t(f.dst);
            for (size_t end : {2 * from, 2 * to + 1})
                if (sharing[end]++ == 0)
                    touched.push_back(end);
        }
        for (size_t end : touched) {
            const size_t node = end / 2;
            const double cap =
                node < nics ? t.links()[size_t(t.nicLinkOf(int(node)))].GBps : nvlinkPort;
            rate[size_t(cls)] = std::min(rate[size_t(cls)], cap / sharing[end]);
            sharing[end] = 0;
        }
        touched.clear();
    }
    return rate;
}

// Progressive filling until every class has a flow held at its level; the classes' first
// levels are their slowest flows' rates.
class Filling {
public:
    Filling(const Router& router, const std::vector<ClassFlow>& flows, int classes)
        : m_router(router)
        , m_topology(router.topology())
        , m_flows(flows)
        , m_slowest(size_t(classes), kInfinity)
    {
    }

    // `allRising`: every flow at unit rate.
    void run(const LinkLoadSum& allRising)
    {
        std::vector<int> active(m_flows.size());
        std::iota(active.begin(), active.end(), 0);
        std::vector<bool> hasFlows(m_slowest.size(), false);
        for (const ClassFlow& f : m_flows)
            hasFlows[size_t(f.cls)] = true;
        int classesLeft = int(std::count(hasFlows.begin(), hasFlows.end(), true));
        const LinkLoadSum* rising = &allRising;
        std::optional<LinkLoadSum> later;
        while (!active.empty() && classesLeft > 0) {
            const double level = nextLevel(*rising);
            if (level == kInfinity)
                break;
            if (classesLeft == 1 && oneClass(active)) {
                // One class rising alone: its slowest flow stops at the first full link.
                m_slowest[size_t(m_flows[size_t(active.front())].cls)] = level;
                break;
            }
            std::vector<int> frozen, still;
            for (int i : active)
                (touchesFull(m_flows[size_t(i)]) ? frozen : still).push_back(i);
            if (frozen.empty())
                break;
            LinkLoadSum held(m_router);
            for (int i : frozen) {
                const ClassFlow& f = m_flows[size_t(i)];
                held.add(f.src, f.dst, level);
                double& slowest = m_slowest[size_t(f.cls)];
                if (slowest == kInfinity) {
                    slowest = level;
                    --classesLeft;
                }
            }
            held.finish();
            m_used.resize(2 * m_topology.links().size(), 0.0);
            for (int link : held.touched()) {
                const size_t l = size_t(link);
                m_used[2 * l] += held.up(l);
                m_used[2 * l + 1] += held.down(l);
            }
            active.swap(still);
            later.emplace(m_router);
            for (int i : active)
                later->add(m_flows[size_t(i)].src, m_flows[size_t(i)].dst, 1.0);
            later->finish();
            rising = &*later;
        }
    }

    const std::vector<double>& slowest() const { return m_slowest; }

private:
    bool oneClass(const std::vector<int>& active) const
    {
        const int first = m_flows[size_t(active.front())].cls;
        return std::all_of(active.begin(), active.end(),
                           [&](int i) { return m_flows[size_t(i)].cls == first; });
    }

    // The level at which the next link fills with every rising flow at it; marks the full
    // links.
    double nextLevel(const LinkLoadSum& rising)
    {
        double level = kInfinity;
        for (int link : rising.touched()) {
            const size_t l = size_t(link);
            if (rising.up(l) > 0)
                level = std::min(level, remaining(l, 0) / rising.up(l));
            if (rising.down(l) > 0)
                level = std::min(level, remaining(l, 1) / rising.down(l));
        }
        m_full.assign(2 * m_topology.links().size(), false);
        for (int link : rising.touched()) {
            const size_t l = size_t(link);
            m_full[2 * l] =
                rising.up(l) > 0 && remaining(l, 0) / rising.up(l) <= level * (1 + kTolerance);
            m_full[2 * l + 1] =
                rising.down(l) > 0 && remaining(l, 1) / rising.down(l) <= level * (1 + kTolerance);
        }
        m_pairFull.clear();
        return level;
    }

    double remaining(size_t link, size_t direction) const
    {
        const double used = m_used.empty() ? 0.0 : m_used[2 * link + direction];
        return std::max(0.0, m_topology.links()[link].GBps - used);
    }

    bool anyFull(const std::vector<Hop>& hops) const
    {
        return std::any_of(hops.begin(), hops.end(), [&](const Hop& h) {
            return m_full[2 * size_t(h.link) + (h.down ? 1 : 0)];
        });
    }

    bool touchesFull(const ClassFlow& f)
    {
        m_hops.clear();
        m_router.routeEnds(f.src, f.dst, m_hops);
        if (anyFull(m_hops))
            return true;
        if (!m_router.throughFabric(f.src, f.dst))
            return false;
        const int a = m_topology.gpus()[size_t(f.src)].leaf;
        const int b = m_topology.gpus()[size_t(f.dst)].leaf;
        if (a == b)
            return false;
        // Adaptive routes depend only on the two leaves; hashed ones on the flow.
        const uint64_t hash = Router::flowHash(f.src, f.dst);
        const uint64_t key = m_router.hashed() ? hash : (uint64_t(uint32_t(a)) << 32 | uint32_t(b));
        auto [it, inserted] = m_pairFull.try_emplace(key, false);
        if (inserted) {
            m_hops.clear();
            m_router.routeBetweenLeaves(a, b, hash, m_hops);
            it->second = anyFull(m_hops);
        }
        return it->second;
    }

    const Router& m_router;
    const Topology& m_topology;
    const std::vector<ClassFlow>& m_flows;
    std::vector<double> m_used; // by held flows, per link and direction; empty before any
    std::vector<bool> m_full;
    std::unordered_map<uint64_t, bool> m_pairFull;
    std::vector<Hop> m_hops;
    std::vector<double> m_slowest;
};

} // namespace

Contention contention(const Router& router, const std::vector<ClassFlow>& flows, int classes)
{
    Contention out;
    out.factor.assign(size_t(classes), 1.0);
    std::vector<ClassFlow> routable;
    routable.reserve(flows.size());
    LinkLoadSum rising(router);
    for (size_t i = 0; i < flows.size(); ++i) {
        if (rising.add(flows[i].src, flows[i].dst, 1.0))
            routable.push_back(flows[i]);
        else if (out.unroutable < 0)
            out.unroutable = int(i);
    }
    rising.finish();
    Filling filling(router, routable, classes);
    filling.run(rising);
    const std::vector<double> ends = endLimitedRates(router, routable, classes);
    for (int c = 0; c < classes; ++c) {
        const double slowest = filling.slowest()[size_t(c)];
        if (slowest < kInfinity && ends[size_t(c)] < kInfinity)
            out.factor[size_t(c)] = std::clamp(slowest / ends[size_t(c)], 0.0, 1.0);
    }
    return out;
}

} // namespace cs
