#include "placement.h"

#include <algorithm>

namespace cs {

Placement::Placement(const Parallelism& par, int dp, const PlacementOrder& order, int domainSize,
                     std::vector<int> healthyGpus)
    : m_domainSize(std::max(1, domainSize))
    , m_etp(std::max(1, par.etp))
    , m_order(order)
    , m_healthy(std::move(healthyGpus))
{
    for (Dim d : kAllDims)
        m_sizes[d] = std::max(1, d == Dim::DP ? dp : par.size(d));
    int stride = 1;
    for (Dim d : m_order) {
        m_strides[d] = stride;
        stride *= m_sizes[d];
    }
    m_world = stride;
    // Expert groups fold over a stage's tp x cp x dp ranks; a layout they do not divide is the
    // validator's to refuse, and gets one group per rank here.
    const int stageRanks = m_world / m_sizes[Dim::PP];
    if (stageRanks % (m_sizes[Dim::EP] * m_etp) != 0) {
        m_sizes[Dim::EP] = 1;
        m_etp = 1;
    }
    m_strides[Dim::EP] = m_etp;
    for (Dim d : kAllDims)
        m_dims[d] = measure(d);
    if (m_sizes[Dim::EP] > 1) {
        const int span = m_etp * m_sizes[Dim::EP];
        m_expertData = measureGroups(
            stageRanks / span, [&](int r) { return expertDataMembers(r); },
            [&](int r) { return stageLocalIndex(r) < span; });
    } else {
        m_expertData = m_dims[Dim::DP];
    }
}

int Placement::rankOfGpu(int gpu) const
{
    if (m_healthy.empty())
        return gpu < m_world ? gpu : -1;
    const auto it = std::lower_bound(m_healthy.begin(), m_healthy.end(), gpu);
    if (it == m_healthy.end() || *it != gpu)
        return -1;
    const int rank = int(it - m_healthy.begin());
    return rank < m_world ? rank : -1;
}

int Placement::stageLocalIndex(int rank) const
{
    int local = 0, radix = 1;
    for (Dim d : m_order) {
        if (d == Dim::PP)
            continue;
        local += (rank / m_strides[d]) % m_sizes[d] * radix;
        radix *= m_sizes[d];
    }
    return local;
}

int Placement::rankOfStageLocal(int stage, int local) const
{
    int rank = stage * m_strides[Dim::PP];
    for (Dim d : m_order) {
        if (d == Dim::PP)
            continue;
        rank += local % m_sizes[d] * m_strides[d];
        local /= m_sizes[d];
    }
    return rank;
}

RankCoord Placement::coord(int rank) const
{
    RankCoord c;
    for (Dim d : m_order)
        c.c[d] = (rank / m_strides[d]) % m_sizes[d];
    c.c[Dim::EP] = (stageLocalIndex(rank) / m_etp) % m_sizes[Dim::EP];
    return c;
}

int Placement::rankOf(const RankCoord& c) const
{
    int rank = 0;
    for (Dim d : m_order)
        rank += c[d] * m_strides[d];
    return rank;
}

int Placement::groupIndex(int rank, Dim d) const
{
    if (d == Dim::EP) {
        // Groups are numbered by stage, then by the digits around ep: expert-dp and etp.
        const int local = stageLocalIndex(rank);
        const int span = m_etp * m_sizes[Dim::EP];
        const int perStage = m_world / m_sizes[Dim::PP] / m_sizes[Dim::EP];
        const int stage = coord(rank)[Dim::PP];
        return stage * perStage + (local / span) * m_etp + local % m_etp;
    }
    // Drop the rank's digit in d and renumber the remaining digits densely.
    const int s = stride(d);
    const int low = rank % s;
    const int high = rank / (s * size(d));
    return high * s + low;
}

std::vector<int> Placement::groupMembers(int rank, Dim d) const
{
    std::vector<int> members(size_t(size(d)));
    if (d == Dim::EP) {
        const int local = stageLocalIndex(rank);
        const int first = local - coord(rank)[Dim::EP] * m_etp;
        const int stage = coord(rank)[Dim::PP];
        for (int k = 0; k < size(d); ++k)
            members[size_t(k)] = rankOfStageLocal(stage, first + k * m_etp);
        return members;
    }
    const int base = rank - coord(rank)[d] * stride(d);
    for (int k = 0; k < size(d); ++k)
        members[size_t(k)] = base + k * stride(d);
    return members;
}

template <typename Members, typename First>
DimensionPlacement Placement::measureGroups(int size, Members members, First first) const
{
    DimensionPlacement p;
    p.size = size;
    p.groups = m_world / size;
    p.minMembersPerDomain = p.size;
    if (p.size == 1)
        return p;
    for (int r = 0; r < m_world; ++r) {
        if (!first(r))
            continue;
        const std::vector<int>& group = members(r);
        // Members are increasing ranks on increasing GPUs, so domains change monotonically.
        int domains = 1, run = 1, minRun = p.size;
        int domain = domainOfRank(group.front());
        for (size_t m = 1; m < group.size(); ++m) {
            const int next = domainOfRank(group[m]);
            if (next == domain) {
                ++run;
                continue;
            }
            minRun = std::min(minRun, run);
            run = 1;
            domain = next;
            ++domains;
        }
        if (domains > 1) {
            ++p.groupsCrossing;
            p.minMembersPerDomain = std::min(p.minMembersPerDomain, std::min(minRun, run));
        }
        p.maxDomainsPerGroup = std::max(p.maxDomainsPerGroup, domains);
    }
    return p;
}

DimensionPlacement Placement::measure(Dim d) const
{
    // A placed dimension's group from its first rank r: r, r + stride, ..., into one buffer (at
    // 131,072 GPUs an allocation a group would cost more than the walk).
    std::vector<int> group(size_t(size(d)));
    const auto members = [&](int r) -> const std::vector<int>& {
        if (d == Dim::EP)
            group = groupMembers(r, d);
        else
            for (int k = 0; k < size(d); ++k)
                group[size_t(k)] = r + k * stride(d);
        return group;
    };
    DimensionPlacement p = measureGroups(size(d), members, [&](int r) {
        // A placed dimension's digit without the others' (expert groups fold in the stage).
        return d == Dim::EP ? coord(r)[d] == 0 : (r / stride(d)) % size(d) == 0;
    });
    p.dim = d;
    p.stride = stride(d);
    return p;
}

int Placement::expertDataIndex(int rank) const
{
    const int span = m_etp * m_sizes[Dim::EP];
    return coord(rank)[Dim::PP] * span + stageLocalIndex(rank) % span;
}

std::vector<int> Placement::expertDataMembers(int rank) const
{
    const int span = m_etp * m_sizes[Dim::EP];
    const int width = m_world / m_sizes[Dim::PP] / span;
    const int local = stageLocalIndex(rank);
    const int stage = coord(rank)[Dim::PP];
    std::vector<int> members(static_cast<size_t>(width));
    for (int k = 0; k < width; ++k)
        members[size_t(k)] = rankOfStageLocal(stage, local % span + k * span);
    return members;
}

std::vector<int> healthyGpuIndices(const ClusterDesc& cluster)
{
    if (cluster.healthyGpuCount() == cluster.gpuCount())
        return {};
    const std::vector<bool> healthy = cluster.healthyGpus();
    std::vector<int> indices;
    indices.reserve(healthy.size());
    for (size_t g = 0; g < healthy.size(); ++g)
        if (healthy[g])
            indices.push_back(int(g));
    return indices;
}

std::vector<int> allocatedGpuIndices(const ClusterDesc& cluster, const RunDesc& run)
{
    if (!run.allocation)
        return healthyGpuIndices(cluster);
    const std::vector<bool> healthy = cluster.healthyGpus();
    std::vector<int> indices;
    indices.reserve(size_t(allocatedGpuCount(cluster, run)));
    for (const auto& [first, end] : allocatedGpuRanges(cluster, *run.allocation))
        for (int64_t g = first; g < end; ++g)
            if (healthy[size_t(g)])
                indices.push_back(int(g));
    return indices;
}

Placement placeRun(const RunDesc& run, const ClusterDesc& cluster)
{
    return Placement(run.parallelism, run.dpFor(allocatedGpuCount(cluster, run)), run.placement,
                     cluster.domainSize(), allocatedGpuIndices(cluster, run));
}

ExpertRange expertsOfRank(const Placement& placement, const ModelShape& model, int rank)
{
    if (!model.moe)
        return {};
    const int perRank = model.moe->experts / placement.size(Dim::EP);
    return {placement.coord(rank)[Dim::EP] * perRank, perRank};
}

} // namespace cs
