#pragma once
// Ranks laid on GPUs by a run's `placement` (innermost dimension first): rank r runs on the
// r-th healthy GPU, and its coordinate in each placed dimension is a digit of r in the mixed
// radix of the placement. Expert parallelism folds over the tp x cp x dp ranks of a pipeline
// stage as Megatron-Core does: numbering those ranks in placement order (pp left out), etp is
// the innermost digit, then ep, then expert data parallel. Nothing is stored per rank but the
// healthy GPUs' indices when some are out, so placement costs the same at 8 or 131,072 GPUs.

#include <array>
#include <cstdint>
#include <vector>

#include "description.h"

namespace cs {

struct RankCoord {
    PerDim<int> c;
    int operator[](Dim d) const { return c[d]; }
};

// How one dimension's groups sit on the NVLink domains.
struct DimensionPlacement {
    Dim dim = Dim::TP;
    int size = 1;           // members per group
    int stride = 1;         // rank distance between consecutive members (placed dimensions)
    int groups = 1;         // number of groups
    int groupsCrossing = 0; // groups with members in more than one NVLink domain
    int maxDomainsPerGroup = 1;
    int minMembersPerDomain = 1; // of a crossing group: fewest members sharing one domain
    bool insideDomain() const { return groupsCrossing == 0; }
};

class Placement {
public:
    // tp x cp x pp x dp ranks on the healthy GPUs (`healthyGpus`: their indices in order;
    // empty: every GPU, rank r on GPU r). dp resolved by the caller.
    Placement(const Parallelism& par, int dp, const PlacementOrder& order, int domainSize,
              std::vector<int> healthyGpus = {});

    int worldSize() const { return m_world; }
    int size(Dim d) const { return m_sizes[d]; }
    // Rank distance between consecutive members of a placed dimension's groups.
    int stride(Dim d) const { return m_strides[d]; }
    const PlacementOrder& order() const { return m_order; }
    int domainSize() const { return m_domainSize; }
    int etp() const { return m_etp; }

    int gpuOfRank(int rank) const { return m_healthy.empty() ? rank : m_healthy[size_t(rank)]; }
    // -1 for a GPU that holds no rank (out of service, or idle).
    int rankOfGpu(int gpu) const;
    RankCoord coord(int rank) const;
    // The rank's pipeline stage: coord(rank)[Dim::PP] without the other digits.
    int stageOf(int rank) const { return (rank / m_strides[Dim::PP]) % m_sizes[Dim::PP]; }
    int rankOf(const RankCoord& c) const; // from the placed dimensions' coordinates
    // Index of the rank's group in dimension d, in [0, groupCount(d)).
    int groupIndex(int rank, Dim d) const;
    int groupCount(Dim d) const { return m_world / size(d); }
    std::vector<int> groupMembers(int rank, Dim d) const;

    const DimensionPlacement& dimension(Dim d) const { return m_dims[d]; }
    // The expert data-parallel groups (the ranks of a stage with the same etp and ep digits):
    // expert gradients are reduced over them.
    const DimensionPlacement& expertData() const { return m_expertData; }
    std::vector<int> expertDataMembers(int rank) const;
    // Index of the rank's expert data-parallel group, in [0, pp x etp x ep): one per stage and
    // (etp, ep) digit pair.
    int expertDataIndex(int rank) const;

private:
    // The rank's index among the tp x cp x dp ranks of its stage, and back.
    int stageLocalIndex(int rank) const;
    int rankOfStageLocal(int stage, int local) const;
    int domainOfRank(int rank) const { return gpuOfRank(rank) / m_domainSize; }
    DimensionPlacement measure(Dim d) const;
    // How groups sit on domains; `first` says whether a rank leads its group.
    template <typename Members, typename First>
    DimensionPlacement measureGroups(int size, Members members, First first) const;

    int m_world = 1;
    int m_domainSize = 1;
    int m_etp = 1;
    PerDim<int> m_sizes;
    PerDim<int> m_strides;
    PlacementOrder m_order = kPlacedDims;
    std::vector<int> m_healthy;
    PerDim<DimensionPlacement> m_dims;
    DimensionPlacement m_expertData;
};

// The healthy GPUs' indices in order; empty when every GPU is in service.
std::vector<int> healthyGpuIndices(const ClusterDesc& cluster);
// The healthy GPUs of the run's allocation in order, the ones its ranks go to; without an
// allocation healthyGpuIndices (empty: every GPU, only for a healthy cluster).
std::vector<int> allocatedGpuIndices(const ClusterDesc& cluster, const RunDesc& run);

// The placement of a run on a cluster: ranks on the healthy GPUs of its allocation in order
// (dp derived from their count, allocatedGpuCount, when not given).
Placement placeRun(const RunDesc& run, const ClusterDesc& cluster);

// The routed experts a rank holds, as Megatron-Core numbers them: the ep ranks of an EP group
// split the experts into equal consecutive blocks (validation makes ep divide them), rank with
// EP coordinate e holding [e x experts / ep, (e + 1) x experts / ep); the etp ranks of an
// expert share its block and split each expert's weights.
struct ExpertRange {
    int first = 0;
    int count = 0; // 0: the model has no experts
    int last() const { return first + count - 1; }
};
ExpertRange expertsOfRank(const Placement& placement, const ModelShape& model, int rank);

} // namespace cs
