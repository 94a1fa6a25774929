#pragma once
// A measured profile laid onto the run it measures: each process group matched to a parallel
// dimension by its ranks and the run's placement, and the measured step beside the predicted
// one, part by part.
//
// A trace has no critical path: what it shows is each GPU's own step (compute busy, the
// communication it waited for, idle). So the prediction is read the same way for the comparison:
// the predicted events of the measured rank's pipeline stage, through the same interval
// arithmetic as the measurement (`predictedRankBreakdown`). Both are `Breakdown`s, drawn by the
// same views: `compute` is the union of compute kernels (recompute and the optimizer's kernels
// included: a trace cannot tell them apart), `exposed` per dimension, and `bubble` the idle rest
// of the step. The evaluation's own `breakdown` (the critical path) stays what `evaluate` says.

#include <optional>
#include <string>
#include <vector>

#include "costmodel.h"
#include "profile.h"

namespace cs {

// What a process group of the profile is in the run.
enum class GroupRole : uint8_t {
    Dimension,   // exactly the groups of one parallel dimension (`dim`)
    ExpertData,  // the expert data-parallel groups (counted as DP in the breakdown)
    DataContext, // data parallel over the context-parallel ranks too (counted as DP)
    World,       // every rank, no dimension's alone
    Unmatched,   // none of the above
};
constexpr auto enumTexts(GroupRole)
{
    return std::array<EnumText<GroupRole>, 5>{{{GroupRole::Dimension, "dimension", "dimension"},
                                               {GroupRole::ExpertData, "expert_dp", "expert DP"},
                                               {GroupRole::DataContext, "dp_cp", "DP x CP"},
                                               {GroupRole::World, "world", "all ranks"},
                                               {GroupRole::Unmatched, "unmatched", "unmatched"}}};
}

struct GroupMatch {
    std::string name;        // the process group's name in the trace
    std::string description; // its description, if any
    std::vector<int> ranks;  // sorted
    GroupRole role = GroupRole::Unmatched;
    std::optional<Dim> dim; // the dimension its time counts under (DP for expert DP and DP x CP)
    std::string label;      // "TP", "expert-DP", "DP x CP", "world", "unmatched"
};

// One part of the comparison: measured beside predicted (both read per GPU, as above).
struct PartComparison {
    std::string key;   // as Breakdown::parts() names it: "compute", "dp_exposed", "bubble"
    std::string label; // "compute", "DP exposed", "idle"
    double measuredS = 0;
    double predictedS = 0;
    double difference() const { return measuredS - predictedS; }
    // measured over predicted, minus one; nothing when the prediction is 0
    std::optional<double> relative() const;
};

struct ProfileComparison {
    std::vector<GroupMatch> groups;    // each distinct process group of the profile once
    int rank = -1;                     // the rank compared: the profile's slowest
    int stage = 0;                     // its pipeline stage
    Breakdown measured;                // its median step (the step closest to its median)
    Breakdown predicted;               // the predicted step of its stage, read the same way
    double measuredStepS = 0;          // the profile's step time
    double predictedStepS = 0;         // the evaluation's step time
    std::vector<PartComparison> parts; // the parts either side has, in Breakdown::parts() order
    // Exposed communication of the compared step in groups that match no dimension (or whose
    // group the trace does not say): in no part above.
    double unmatchedExposedS = 0;
    // "measured DP exposed 61 ms vs 24 ms predicted; compute within 2 %"
    std::string summary;
    Diagnostics notes; // ranks outside the run, groups that match no dimension, ...
};

// Matches every process group of the profile to the run's dimensions (placeRun's placement).
// Needs the run valid on the cluster.
std::vector<GroupMatch> matchGroups(const MeasuredProfile& profile, const ClusterDesc& cluster,
                                    const RunDesc& run);

// For each of the rank's own process groups (RankProfile::groups), its index in `groups`
// (matchGroups' answer), or -1: what colours a measured kernel by its dimension.
std::vector<int> groupMatchesOf(const RankProfile& rank, const std::vector<GroupMatch>& groups);

// The rank with the longest median step of each pipeline stage (index: stage), -1 where the
// profile has no rank of that stage: the ranks the timeline shows.
std::vector<int> slowestRankPerStage(const MeasuredProfile& profile, const ClusterDesc& cluster,
                                     const RunDesc& run);

// The index of the rank's step closest to its median step (the one the comparison shows), -1
// without steps.
int medianStepIndex(const RankProfile& rank);

// A rank's step (`step`: index in its steps; -1: the step closest to its median) as a
// Breakdown: compute busy as compute, the exposed communication of each group under the
// dimension it matched (unmatched groups' under none, said in `unmatchedS`), idle as bubble.
Breakdown measuredRankBreakdown(const RankProfile& rank, const std::vector<GroupMatch>& groups,
                                int step = -1, double* unmatchedS = nullptr);

// The predicted step of one pipeline stage read as a measured one: the evaluation's events of
// that stage through the same interval arithmetic (compute events as compute kernels, each
// dimension's communication as its kernels, the rest of the step idle).
Breakdown predictedRankBreakdown(const Evaluation& evaluation, int stage);

// The whole comparison. `evaluation` must be evaluate(cluster, run) with its events.
ProfileComparison compareWithPrediction(const MeasuredProfile& profile, const ClusterDesc& cluster,
                                        const RunDesc& run, const Evaluation& evaluation);

} // namespace cs
