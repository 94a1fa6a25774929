#pragma once
// Ranks laid on GPUs by a run's `placement` (innermost dimension first): rank r runs on GPU r,
// and its coordinate in each dimension is a digit of r in the mixed radix of the placement.
// Nothing is stored per rank, so placement costs the same at 8 or 131,072 GPUs.

#include <array>
#include <cstdint>
#include <vector>

#include "description.h"

namespace cs {

struct RankCoord {
    std::array<int, 4> c{}; // indexed by Dim
    int operator[](Dim d) const { return c[size_t(d)]; }
};

// How one dimension's groups sit on the NVLink domains.
struct DimensionPlacement {
    Dim dim = Dim::TP;
    int size = 1;           // members per group
    int stride = 1;         // rank distance between consecutive members
    int groups = 1;         // number of groups
    int groupsCrossing = 0; // groups with members in more than one NVLink domain
    int maxDomainsPerGroup = 1;
    int minMembersPerDomain = 1; // of a crossing group: fewest members sharing one domain
    bool insideDomain() const { return groupsCrossing == 0; }
};

class Placement {
public:
    // worldSize = tp x cp x pp x dp must equal gpus; dp resolved by the caller.
    Placement(const Parallelism& par, int dp, const std::array<Dim, 4>& order, int domainSize);

    int worldSize() const { return m_world; }
    int size(Dim d) const { return m_sizes[size_t(d)]; }
    int stride(Dim d) const { return m_strides[size_t(d)]; }
    const std::array<Dim, 4>& order() const { return m_order; }
    int domainSize() const { return m_domainSize; }

    int gpuOfRank(int rank) const { return rank; }
    RankCoord coord(int rank) const;
    int rankOf(const RankCoord& c) const;
    // Index of the rank's group in dimension d, in [0, groupCount(d)).
    int groupIndex(int rank, Dim d) const;
    int groupCount(Dim d) const { return m_world / size(d); }
    std::vector<int> groupMembers(int rank, Dim d) const;

    const DimensionPlacement& dimension(Dim d) const { return m_dims[size_t(d)]; }

private:
    DimensionPlacement measure(Dim d) const;

    int m_world = 1;
    int m_domainSize = 1;
    std::array<int, 4> m_sizes{1, 1, 1, 1};
    std::array<int, 4> m_strides{1, 1, 1, 1};
    std::array<Dim, 4> m_order{Dim::TP, Dim::CP, Dim::PP, Dim::DP};
    std::array<DimensionPlacement, 4> m_dims{};
};

// Layers held by each virtual pipeline stage (index v * pp + s is chunk v of stage s, as in
// interleaved 1F1B). When the layers do not divide, the first virtual stages take one more.
std::vector<int> layersPerVirtualStage(int layers, int pp, int vp);
// Layers per pipeline stage (the sum of its chunks); the heaviest stage sets the pace.
std::vector<int> layersPerStage(int layers, int pp, int vp);

// Convenience: the placement of a run on a cluster (dp derived when not given).
Placement placeRun(const RunDesc& run, const ClusterDesc& cluster);

} // namespace cs
