#include "traffic.h"

#include <algorithm>
#include <map>

namespace cs {

namespace {

// Members (GPUs, ascending) split by NVLink domain: runs of consecutive entries.
std::vector<std::pair<size_t, size_t>> domainRuns(const Topology& t, const std::vector<int>& gpus)
{
    std::vector<std::pair<size_t, size_t>> runs; // [begin, end)
    for (size_t i = 0; i < gpus.size(); ++i) {
        const int domain = t.gpus()[size_t(gpus[i])].domain;
        if (runs.empty() || t.gpus()[size_t(gpus[runs.back().first])].domain != domain)
            runs.push_back({i, i});
        runs.back().second = i + 1;
    }
    return runs;
}

void ring(const std::vector<int>& members, FlowPhase phase, std::vector<Flow>& out)
{
    if (members.size() < 2)
        return;
    for (size_t i = 0; i < members.size(); ++i)
        out.push_back({members[i], members[(i + 1) % members.size()], 1.0f, phase, 0});
}

void allToAll(const std::vector<int>& members, FlowPhase phase, std::vector<Flow>& out)
{
    if (members.size() < 2)
        return;
    const float share = 1.0f / float(members.size() - 1);
    for (int a : members)
        for (int b : members)
            if (a != b)
                out.push_back({a, b, share, phase, 0});
}

// Inside each domain, then across domains among the members at the same position.
void hierarchical(const Topology& t, std::vector<int> gpus, bool everyPair, std::vector<Flow>& out)
{
    if (!std::is_sorted(gpus.begin(), gpus.end())) // ranks in order are GPUs in order
        std::sort(gpus.begin(), gpus.end());
    const auto runs = domainRuns(t, gpus);
    const auto collective = everyPair ? allToAll : ring;
    std::vector<int> members;
    size_t widest = 0;
    for (const auto& [begin, end] : runs) {
        members.assign(gpus.begin() + long(begin), gpus.begin() + long(end));
        collective(members, FlowPhase::Inner, out);
        widest = std::max(widest, end - begin);
    }
    if (runs.size() < 2)
        return;
    for (size_t position = 0; position < widest; ++position) {
        members.clear();
        for (const auto& [begin, end] : runs)
            if (begin + position < end)
                members.push_back(gpus[begin + position]);
        collective(members, FlowPhase::Outer, out);
    }
}

void flowsOfGroup(const Topology& t, const Placement& p, const std::vector<int>& ranks, Dim d,
                  bool interleaved, std::vector<Flow>& out)
{
    std::vector<int> gpus(ranks.size());
    for (size_t i = 0; i < ranks.size(); ++i)
        gpus[i] = p.gpuOfRank(ranks[i]);
    switch (d) {
    case Dim::PP:
        for (size_t s = 0; s + 1 < gpus.size(); ++s)
            out.push_back({gpus[s], gpus[s + 1], 1.0f, FlowPhase::Whole, int(s)});
        if (interleaved && gpus.size() > 1)
            out.push_back(
                {gpus.back(), gpus.front(), 1.0f, FlowPhase::Whole, int(gpus.size() - 1)});
        return;
    case Dim::CP:
        ring(gpus, FlowPhase::Whole, out);
        return;
    case Dim::EP:
        hierarchical(t, gpus, true, out);
        return;
    case Dim::TP:
    case Dim::DP:
        hierarchical(t, gpus, false, out);
        return;
    }
}

} // namespace

bool leadsGroup(const Placement& p, int rank, Dim d)
{
    const auto first = [&](Dim placed) { return (rank / p.stride(placed)) % p.size(placed) == 0; };
    if (d == Dim::EP)
        return p.coord(rank)[Dim::EP] == 0;
    if (d == Dim::DP)
        return first(Dim::DP) && first(Dim::CP);
    return first(d);
}

bool staysInDomains(const Placement& p, Dim d)
{
    if (d == Dim::DP)
        return p.dimension(Dim::DP).insideDomain() && p.dimension(Dim::CP).insideDomain();
    return p.dimension(d).insideDomain();
}

std::vector<int> collectiveGroup(const Placement& p, int rank, Dim d)
{
    if (d != Dim::DP)
        return p.groupMembers(rank, d);
    std::vector<int> members;
    members.reserve(size_t(p.size(Dim::DP)) * size_t(p.size(Dim::CP)));
    const int first = rank - p.coord(rank)[Dim::CP] * p.stride(Dim::CP);
    for (int c = 0; c < p.size(Dim::CP); ++c)
        for (int r : p.groupMembers(first + c * p.stride(Dim::CP), Dim::DP))
            members.push_back(r);
    if (!std::is_sorted(members.begin(), members.end()))
        std::sort(members.begin(), members.end());
    return members;
}

std::vector<Flow> dimensionFlows(const Topology& t, const Placement& p, Dim d, bool interleaved)
{
    std::vector<Flow> flows;
    if (collectiveGroup(p, 0, d).size() < 2)
        return flows;
    for (int r = 0; r < p.worldSize(); ++r)
        if (leadsGroup(p, r, d))
            flowsOfGroup(t, p, collectiveGroup(p, r, d), d, interleaved, flows);
    return flows;
}

std::vector<Flow> groupFlows(const Topology& t, const Placement& p, int rank, Dim d,
                             bool interleaved)
{
    std::vector<Flow> flows;
    flowsOfGroup(t, p, collectiveGroup(p, rank, d), d, interleaved, flows);
    return flows;
}

std::vector<GroupLink> groupLinks(const Router& router, const Placement& p, int rank, Dim d,
                                  bool interleaved)
{
    std::map<int, double> shares;
    std::vector<Hop> hops;
    for (const Flow& f : groupFlows(router.topology(), p, rank, d, interleaved)) {
        hops.clear();
        if (!router.route(f.src, f.dst, hops))
            continue;
        for (const Hop& h : hops)
            shares[h.link] += h.share;
    }
    std::vector<GroupLink> links;
    links.reserve(shares.size());
    for (const auto& [link, share] : shares)
        links.push_back({link, share});
    return links;
}

std::vector<int> groupsOnLink(const Router& router, const Placement& p, int link, Dim d,
                              bool interleaved)
{
    std::vector<int> groups;
    if (collectiveGroup(p, 0, d).size() < 2)
        return groups;
    std::vector<Flow> flows;
    std::vector<Hop> hops;
    for (int r = 0; r < p.worldSize(); ++r) {
        if (!leadsGroup(p, r, d))
            continue;
        flows.clear();
        flowsOfGroup(router.topology(), p, collectiveGroup(p, r, d), d, interleaved, flows);
        const bool crosses = std::any_of(flows.begin(), flows.end(), [&](const Flow& f) {
            hops.clear();
            return router.route(f.src, f.dst, hops) &&
                   std::any_of(hops.begin(), hops.end(),
                               [&](const Hop& h) { return h.link == link; });
        });
        if (crosses)
            groups.push_back(r);
    }
    return groups;
}

} // namespace cs
