#include "placement.h"

#include <algorithm>

namespace cs {

Placement::Placement(const Parallelism& par, int dp, const std::array<Dim, 4>& order,
                     int domainSize)
    : m_domainSize(std::max(1, domainSize))
    , m_order(order)
{
    m_sizes = {std::max(1, par.tp), std::max(1, par.cp), std::max(1, par.pp), std::max(1, dp)};
    int stride = 1;
    for (Dim d : m_order) {
        m_strides[size_t(d)] = stride;
        stride *= m_sizes[size_t(d)];
    }
    m_world = stride;
    for (Dim d : kAllDims)
        m_dims[size_t(d)] = measure(d);
}

RankCoord Placement::coord(int rank) const
{
    RankCoord c;
    for (Dim d : kAllDims)
        c.c[size_t(d)] = (rank / stride(d)) % size(d);
    return c;
}

int Placement::rankOf(const RankCoord& c) const
{
    int rank = 0;
    for (Dim d : kAllDims)
        rank += c[d] * stride(d);
    return rank;
}

int Placement::groupIndex(int rank, Dim d) const
{
    // Drop the rank's digit in d and renumber the remaining digits densely.
    const int s = stride(d);
    const int low = rank % s;
    const int high = rank / (s * size(d));
    return high * s + low;
}

std::vector<int> Placement::groupMembers(int rank, Dim d) const
{
    const int base = rank - coord(rank)[d] * stride(d);
    std::vector<int> members(size_t(size(d)));
    for (int k = 0; k < size(d); ++k)
        members[size_t(k)] = base + k * stride(d);
    return members;
}

DimensionPlacement Placement::measure(Dim d) const
{
    DimensionPlacement p;
    p.dim = d;
    p.size = size(d);
    p.stride = stride(d);
    p.groups = groupCount(d);
    p.minMembersPerDomain = p.size;
    const int span = p.stride * p.size;
    for (int r = 0; r < m_world; ++r) {
        if ((r / p.stride) % p.size != 0)
            continue; // not the first member of its group
        // Members are increasing ranks on increasing GPUs, so domains change monotonically.
        int domains = 1, run = 1, minRun = p.size;
        int domain = r / m_domainSize;
        for (int m = r + p.stride; m < r + span; m += p.stride) {
            const int next = m / m_domainSize;
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

std::vector<int> layersPerVirtualStage(int layers, int pp, int vp)
{
    const int chunks = std::max(1, pp) * std::max(1, vp);
    std::vector<int> split(size_t(chunks), layers / chunks);
    for (int i = 0; i < layers % chunks; ++i)
        ++split[size_t(i)];
    return split;
}

std::vector<int> layersPerStage(int layers, int pp, int vp)
{
    pp = std::max(1, pp);
    const std::vector<int> chunks = layersPerVirtualStage(layers, pp, vp);
    std::vector<int> stages(size_t(pp), 0);
    for (size_t i = 0; i < chunks.size(); ++i)
        stages[i % size_t(pp)] += chunks[i];
    return stages;
}

Placement placeRun(const RunDesc& run, const ClusterDesc& cluster)
{
    return Placement(run.parallelism, run.dpFor(cluster.gpuCount()), run.placement,
                     cluster.domainSize());
}

} // namespace cs
