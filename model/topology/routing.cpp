#include "routing.h"

#include <algorithm>

namespace cs {

namespace {

uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t pairKey(int a, int b)
{
    return uint64_t(uint32_t(a)) << 32 | uint32_t(b);
}

} // namespace

Router::Router(const Topology& topology)
    : m_topology(topology)
    , m_ecmp(topology.cluster().scaleOut.topology.routing == Routing::Ecmp)
{
}

uint64_t Router::flowHash(int srcGpu, int dstGpu)
{
    return splitmix64(pairKey(srcGpu, dstGpu));
}

bool Router::route(int srcGpu, int dstGpu, std::vector<Hop>& hops) const
{
    const size_t mark = hops.size();
    if (!routeEnds(srcGpu, dstGpu, hops))
        return false;
    if (!throughFabric(srcGpu, dstGpu))
        return true;
    const int leafA = m_topology.gpus()[size_t(srcGpu)].leaf;
    const int leafB = m_topology.gpus()[size_t(dstGpu)].leaf;
    if (leafA != leafB && !routeBetweenLeaves(leafA, leafB, flowHash(srcGpu, dstGpu), hops)) {
        hops.resize(mark);
        return false;
    }
    return true;
}

bool Router::routeEnds(int srcGpu, int dstGpu, std::vector<Hop>& hops) const
{
    const Topology& t = m_topology;
    if (!throughFabric(srcGpu, dstGpu)) {
        const int switches = t.nvSwitchesPerDomain();
        int usable = 0;
        for (int k = 0; k < switches; ++k)
            usable += t.linkUsable(t.nvLinkOf(srcGpu, k)) && t.linkUsable(t.nvLinkOf(dstGpu, k));
        if (usable == 0)
            return false;
        for (int k = 0; k < switches; ++k) {
            if (!t.linkUsable(t.nvLinkOf(srcGpu, k)) || !t.linkUsable(t.nvLinkOf(dstGpu, k)))
                continue;
            hops.push_back({t.nvLinkOf(srcGpu, k), false, 1.0 / usable});
            hops.push_back({t.nvLinkOf(dstGpu, k), true, 1.0 / usable});
        }
        return true;
    }
    const int from = t.nicLinkOfGpu(srcGpu), to = t.nicLinkOfGpu(dstGpu);
    if (!t.linkUsable(from) || !t.linkUsable(to))
        return false;
    hops.push_back({from, false, 1.0});
    hops.push_back({to, true, 1.0});
    return true;
}

int64_t Router::pathsThroughPlane(int leafA, int leafB, int plane,
                                  std::vector<int64_t>* perCore) const
{
    const Topology& t = m_topology;
    const int upA = t.firstUplink(leafA) + plane, upB = t.firstUplink(leafB) + plane;
    if (!t.linkUsable(upA) || !t.linkUsable(upB))
        return 0;
    const int64_t leafPaths =
        int64_t(t.links()[size_t(upA)].cables) * t.links()[size_t(upB)].cables;
    const int podA = t.switches()[size_t(leafA)].pod, podB = t.switches()[size_t(leafB)].pod;
    if (podA == podB)
        return leafPaths;
    const int spineA = t.spineOf(podA, plane), spineB = t.spineOf(podB, plane);
    int64_t corePaths = 0;
    for (int k = 0; k < t.uplinkCount(spineA); ++k) {
        const int a = t.firstUplink(spineA) + k, b = t.firstUplink(spineB) + k;
        const int64_t paths =
            t.linkUsable(a) && t.linkUsable(b)
                ? int64_t(t.links()[size_t(a)].cables) * t.links()[size_t(b)].cables
                : 0;
        if (perCore)
            perCore->push_back(paths);
        corePaths += paths;
    }
    return leafPaths * corePaths;
}

void Router::routeUniformly(int leafA, int leafB, uint64_t hash, std::vector<Hop>& hops) const
{
    const Topology& t = m_topology;
    const int planes = t.uplinkCount(leafA);
    const int pod = t.switches()[size_t(leafA)].pod, podB = t.switches()[size_t(leafB)].pod;
    const int cores = pod == podB ? 0 : t.shape().coresPerPlane;
    const auto plane = [&](int j, int firstCore, int lastCore, double share) {
        hops.push_back({t.firstUplink(leafA) + j, false, share});
        hops.push_back({t.firstUplink(leafB) + j, true, share});
        const int spineA = t.spineOf(pod, j), spineB = t.spineOf(podB, j);
        for (int k = firstCore; k < lastCore; ++k) {
            const double coreShare = share / (lastCore - firstCore);
            hops.push_back({t.firstUplink(spineA) + k, false, coreShare});
            hops.push_back({t.firstUplink(spineB) + k, true, coreShare});
        }
    };
    if (m_ecmp) {
        // Every plane, and every core of it, has as many paths: the pick is a plane and a core.
        const uint64_t pick = hash % uint64_t(planes * std::max(1, cores));
        const int core = cores > 0 ? int(pick % uint64_t(cores)) : 0;
        plane(int(pick / uint64_t(std::max(1, cores))), core, cores > 0 ? core + 1 : 0, 1.0);
        return;
    }
    for (int j = 0; j < planes; ++j)
        plane(j, 0, cores, 1.0 / planes);
}

bool Router::routeBetweenLeaves(int leafA, int leafB, uint64_t hash, std::vector<Hop>& hops) const
{
    const Topology& t = m_topology;
    const int planes = t.uplinkCount(leafA);
    if (planes == 0)
        return false;
    if (!t.hasFabricFailures()) {
        routeUniformly(leafA, leafB, hash, hops);
        return true;
    }
    const bool samePod = t.switches()[size_t(leafA)].pod == t.switches()[size_t(leafB)].pod;
    int64_t total = 0;
    for (int j = 0; j < planes; ++j)
        total += pathsThroughPlane(leafA, leafB, j, nullptr);
    if (total == 0)
        return false;
    // ECMP: the path numbered hash mod total, counting paths plane by plane, core by core.
    int64_t pick = m_ecmp ? int64_t(hash % uint64_t(total)) : -1;
    std::vector<int64_t> perCore;
    for (int j = 0; j < planes; ++j) {
        perCore.clear();
        const int64_t paths = pathsThroughPlane(leafA, leafB, j, samePod ? nullptr : &perCore);
        if (paths == 0)
            continue;
        if (m_ecmp && pick >= paths) {
            pick -= paths;
            continue;
        }
        const double share = m_ecmp ? 1.0 : double(paths) / double(total);
        hops.push_back({t.firstUplink(leafA) + j, false, share});
        hops.push_back({t.firstUplink(leafB) + j, true, share});
        if (!samePod) {
            const int spineA = t.spineOf(t.switches()[size_t(leafA)].pod, j);
            const int spineB = t.spineOf(t.switches()[size_t(leafB)].pod, j);
            int64_t coreTotal = 0;
            for (int64_t p : perCore)
                coreTotal += p;
            // Within the plane, ECMP picks by what is left of the pick over each core's paths.
            int64_t corePick = m_ecmp ? pick / (paths / coreTotal) : -1;
            for (size_t k = 0; k < perCore.size(); ++k) {
                if (perCore[k] == 0)
                    continue;
                if (m_ecmp && corePick >= perCore[k]) {
                    corePick -= perCore[k];
                    continue;
                }
                const double coreShare =
                    m_ecmp ? 1.0 : share * double(perCore[k]) / double(coreTotal);
                hops.push_back({t.firstUplink(spineA) + int(k), false, coreShare});
                hops.push_back({t.firstUplink(spineB) + int(k), true, coreShare});
                if (m_ecmp)
                    break;
            }
        }
        if (m_ecmp)
            break;
    }
    return true;
}

std::string Router::whyNoPath(int srcGpu, int dstGpu) const
{
    const Topology& t = m_topology;
    const Gpu& a = t.gpus()[size_t(srcGpu)];
    const Gpu& b = t.gpus()[size_t(dstGpu)];
    if (!throughFabric(srcGpu, dstGpu))
        return "no NVSwitch of NVLink domain " + std::to_string(a.domain) +
               " that both reach is in service";
    for (int gpu : {srcGpu, dstGpu}) {
        const int link = t.nicLinkOfGpu(gpu);
        const int leaf = t.gpus()[size_t(gpu)].leaf;
        if (t.switchFailed(leaf))
            return t.switchName(leaf) + ", the leaf of GPU " + std::to_string(gpu) +
                   "'s NIC, is out of service";
        if (!t.linkUsable(link))
            return t.linkName(link) + ", the NIC link of GPU " + std::to_string(gpu) +
                   ", is out of service";
    }
    if (t.shape().tiers == 1)
        return t.switchName(a.leaf) + " and " + t.switchName(b.leaf) +
               " are joined by no switch (a fabric of one tier)";
    const bool samePod = t.switches()[size_t(a.leaf)].pod == t.switches()[size_t(b.leaf)].pod;
    return std::string("no ") + (samePod ? "spine" : "path through a spine and a core") + " that " +
           t.switchName(a.leaf) + " and " + t.switchName(b.leaf) + " both reach is in service";
}

LinkLoadSum::LinkLoadSum(const Router& router)
    : m_router(router)
    , m_links(router.topology().links().size())
{
}

void LinkLoadSum::apply(const std::vector<Hop>& hops, double volume, uint32_t tags)
{
    for (const Hop& h : hops) {
        Sum& sum = m_links[size_t(h.link)];
        if (!sum.seen) {
            sum.seen = true;
            m_touched.push_back(h.link);
        }
        (h.down ? sum.down : sum.up) += volume * h.share;
        sum.tags |= tags;
    }
}

bool LinkLoadSum::add(int srcGpu, int dstGpu, double volume, uint32_t tags)
{
    m_scratch.clear();
    const Topology& topology = m_router.topology();
    if (!m_router.throughFabric(srcGpu, dstGpu) && !topology.hasFabricFailures() &&
        topology.nvSwitchesPerDomain() > 0) {
        if (m_sent.empty()) {
            m_sent.resize(topology.gpus().size());
            m_received.resize(topology.gpus().size());
        }
        for (Pending* p : {&m_sent[size_t(srcGpu)], &m_received[size_t(dstGpu)]}) {
            p->volume += volume;
            p->tags |= tags;
            p->any = true;
        }
        return true;
    }
    if (m_router.hashed() || !m_router.throughFabric(srcGpu, dstGpu)) {
        if (!m_router.route(srcGpu, dstGpu, m_scratch))
            return false;
        apply(m_scratch, volume, tags);
        return true;
    }
    if (!m_router.routeEnds(srcGpu, dstGpu, m_scratch))
        return false;
    const Topology& t = m_router.topology();
    const int leafA = t.gpus()[size_t(srcGpu)].leaf, leafB = t.gpus()[size_t(dstGpu)].leaf;
    if (leafA != leafB) {
        auto [it, inserted] = m_betweenLeaves.try_emplace(pairKey(leafA, leafB));
        if (inserted) {
            std::vector<Hop> probe;
            if (!m_router.routeBetweenLeaves(leafA, leafB, 0, probe))
                it->second.volume = -1; // marks a pair with no path
        }
        if (it->second.volume < 0)
            return false;
        it->second.volume += volume;
        it->second.tags |= tags;
    }
    apply(m_scratch, volume, tags);
    return true;
}

void LinkLoadSum::applyInsideDomains()
{
    const Topology& t = m_router.topology();
    const int switches = t.nvSwitchesPerDomain();
    for (size_t g = 0; g < m_sent.size(); ++g) {
        for (bool down : {false, true}) {
            const Pending& p = (down ? m_received : m_sent)[g];
            if (!p.any)
                continue;
            m_scratch.clear();
            for (int k = 0; k < switches; ++k)
                m_scratch.push_back({t.nvLinkOf(int(g), k), down, 1.0 / switches});
            apply(m_scratch, p.volume, p.tags);
        }
    }
    m_sent.clear();
    m_received.clear();
}

void LinkLoadSum::finish()
{
    applyInsideDomains();
    for (const auto& [key, pending] : m_betweenLeaves) {
        if (pending.volume <= 0)
            continue;
        m_scratch.clear();
        m_router.routeBetweenLeaves(int(key >> 32), int(key & 0xffffffffu), 0, m_scratch);
        apply(m_scratch, pending.volume, pending.tags);
    }
    m_betweenLeaves.clear();
}

} // namespace cs
