#include "profilemapping.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>

#include "intervals.h"
#include "placement.h"
#include "text.h"

namespace cs {

namespace {

std::vector<int> sorted(std::vector<int> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

// The same group in every rank's file: by its ranks and name (two groups may have the same
// ranks: with DP 1, Megatron's DP-with-CP group and the CP group), or by its name alone where it
// gives no ranks.
std::string keyOf(const std::string& name, const std::vector<int>& sortedRanks)
{
    if (sortedRanks.empty())
        return "name:" + name;
    std::string key;
    for (int r : sortedRanks)
        key += std::to_string(r) + ",";
    return key + "|" + name;
}

// The data-parallel ranks of a rank's context-parallel peers together (DP's gradients are
// reduced over the CP ranks too).
std::vector<int> dataContextMembers(const Placement& p, int rank)
{
    std::vector<int> members;
    for (int c : p.groupMembers(rank, Dim::CP))
        for (int d : p.groupMembers(c, Dim::DP))
            members.push_back(d);
    return sorted(members);
}

// One way a group's ranks can be read in the run: which role, counted under which dimension.
struct Reading {
    GroupRole role = GroupRole::Unmatched;
    std::optional<Dim> dim;
    std::string label;
};

// Every reading whose groups have exactly these ranks, most specific first: a dimension's
// (kDims order), the expert data-parallel group, DP with CP, all ranks. Several where groups
// coincide: with DP 1, DP x CP and CP; with EP = DP (CP 1), DP and EP.
std::vector<Reading> readingsOf(const std::vector<int>& ranks, const Placement& p)
{
    const int n = int(ranks.size());
    const int world = p.worldSize();
    std::vector<Reading> out;
    if (n < 2 || ranks.back() >= world)
        return out;
    const int first = ranks.front();
    for (const DimInfo& d : kDims)
        if (p.size(d.dim) == n && sorted(p.groupMembers(first, d.dim)) == ranks)
            out.push_back({GroupRole::Dimension, d.dim, std::string(d.shortLabel)});
    if (p.expertData().size == n && sorted(p.expertDataMembers(first)) == ranks)
        out.push_back({GroupRole::ExpertData, Dim::DP, "expert-DP"});
    if (p.size(Dim::CP) > 1 && dataContextMembers(p, first) == ranks)
        out.push_back({GroupRole::DataContext, Dim::DP, "DP x CP"});
    if (n == world)
        out.push_back({GroupRole::World, std::nullopt, "world"});
    return out;
}

// The descriptions Megatron-Core gives torch.distributed.new_group (`group_desc`, which Kineto
// writes as pg_desc) of the groups whose time is one dimension's. Not "default_pg": plain DDP
// reduces its gradients in it.
struct DescribedGroup {
    std::string_view description;
    GroupRole role;
    Dim dim;
};
constexpr std::array<DescribedGroup, 9> kMegatronGroups{{
    {"TENSOR_MODEL_PARALLEL_GROUP", GroupRole::Dimension, Dim::TP},
    {"EXPERT_TENSOR_PARALLEL_GROUP", GroupRole::Dimension, Dim::TP},
    {"CONTEXT_PARALLEL_GROUP", GroupRole::Dimension, Dim::CP},
    {"PIPELINE_MODEL_PARALLEL_GROUP", GroupRole::Dimension, Dim::PP},
    {"DATA_PARALLEL_GROUP", GroupRole::Dimension, Dim::DP},
    {"DATA_PARALLEL_GROUP_WITH_CP", GroupRole::DataContext, Dim::DP},
    {"INTRA_PARTIAL_DATA_PARALLEL_GROUP_WITH_CP", GroupRole::DataContext, Dim::DP},
    {"EXPERT_MODEL_PARALLEL_GROUP", GroupRole::Dimension, Dim::EP},
    {"EXPERT_DATA_PARALLEL_GROUP", GroupRole::ExpertData, Dim::DP},
}};

// The reading the group's description names, if it is one of `readings`: the same role and
// dimension, else the same dimension (DP with CP is the DP group itself when CP is 1).
std::optional<size_t> describedReading(const std::string& description,
                                       const std::vector<Reading>& readings)
{
    const auto described =
        std::find_if(kMegatronGroups.begin(), kMegatronGroups.end(),
                     [&](const DescribedGroup& g) { return g.description == description; });
    if (described == kMegatronGroups.end())
        return std::nullopt;
    for (size_t i = 0; i < readings.size(); ++i)
        if (readings[i].role == described->role && readings[i].dim == described->dim)
            return i;
    for (size_t i = 0; i < readings.size(); ++i)
        if (readings[i].dim == described->dim)
            return i;
    return std::nullopt;
}

// What a group's kernels were, over every rank read: by kind where the ranks kept their
// kernels, else only how many collectives (not send/recv) it ran (RankProfile::collectiveEnds).
struct GroupKernels {
    PerKernelKind<int64_t> byKind;
    bool kindsKnown = false;
    int64_t collectives = 0;
};

// Whether a dimension's communication runs kernels of this kind in Megatron-LM: TP all-reduce
// (reduce-scatter and all-gather with sequence parallelism); CP's K/V exchange send/recv (the
// all-gather and all-to-all variants too); PP send/recv; the data-parallel gradient reduction
// reduce-scatter or all-reduce, and the distributed optimizer's parameter all-gather; EP's token
// dispatch all-to-all (all-gather and reduce-scatter with the all-gather dispatcher).
bool runsKind(const Reading& r, KernelKind k)
{
    using K = KernelKind;
    if (!r.dim)
        return false;
    switch (*r.dim) {
    case Dim::TP:
        return k == K::AllReduce || k == K::ReduceScatter || k == K::AllGather;
    case Dim::CP:
        return k == K::SendRecv || k == K::AllGather || k == K::AllToAll;
    case Dim::PP:
        return k == K::SendRecv;
    case Dim::DP:
        return k == K::ReduceScatter || k == K::AllReduce || k == K::AllGather;
    case Dim::EP:
        return k == K::AllToAll || k == K::AllGather || k == K::ReduceScatter;
    }
    return false;
}

// How many of the group's kernels the reading explains. Without kinds, the collectives count
// for the readings that run more than send/recv (not CP's ring, not PP).
int64_t kernelsExplained(const Reading& r, const GroupKernels& k)
{
    if (!k.kindsKnown)
        return r.dim && *r.dim != Dim::CP && *r.dim != Dim::PP ? k.collectives : 0;
    int64_t n = 0;
    for (const KernelKindInfo& info : kKernelKinds)
        if (runsKind(r, info.kind))
            n += k.byKind[info.kind];
    return n;
}

// Where a group's ranks allow several readings: the one its description names, else the one
// that explains most of its kernels, else the most specific.
size_t chosenReading(const GroupMatch& g, const std::vector<Reading>& readings,
                     const GroupKernels& kernels)
{
    if (const std::optional<size_t> described = describedReading(g.description, readings))
        return *described;
    size_t best = 0;
    for (size_t i = 1; i < readings.size(); ++i)
        if (kernelsExplained(readings[i], kernels) > kernelsExplained(readings[best], kernels))
            best = i;
    return best;
}

// The kernels of each group (index in matchGroups' answer, by key) over every rank.
std::vector<GroupKernels> kernelsOfGroups(const MeasuredProfile& profile,
                                          const std::map<std::string, size_t>& byKey,
                                          size_t groupCount)
{
    std::vector<GroupKernels> out(groupCount);
    for (const RankProfile& r : profile.ranks) {
        std::vector<GroupKernels*> of; // by the rank's group index
        for (const ProcessGroup& g : r.groups) {
            const auto it = byKey.find(keyOf(g.name, sorted(g.ranks)));
            of.push_back(it == byKey.end() ? nullptr : &out[it->second]);
        }
        auto groupOf = [&](int32_t g) {
            return g >= 0 && size_t(g) < of.size() ? of[size_t(g)] : nullptr;
        };
        for (const RankProfile::CollectiveEnd& e : r.collectiveEnds)
            if (GroupKernels* k = groupOf(e.group))
                ++k->collectives;
        for (const ProfileKernel& kernel : r.kernels)
            if (GroupKernels* k = groupOf(kernel.group)) {
                k->kindsKnown = true;
                ++k->byKind[kernel.kind];
            }
    }
    return out;
}

bool isComputeEvent(const Event& e)
{
    switch (e.kind) {
    case EventKind::Forward:
    case EventKind::Backward:
    case EventKind::Recompute:
    case EventKind::Optimizer:
        return true;
    case EventKind::Bubble:
        return e.wait == WaitReason::Contention; // compute slowed, counted as compute
    default:
        return false;
    }
}

std::string partLabel(const Breakdown::Part& p)
{
    return p.key == "bubble" ? "idle" : p.label;
}

std::string summaryOf(const ProfileComparison& run, double unmatchedS)
{
    const PartComparison* compute = nullptr;
    const PartComparison* largest = nullptr;
    for (const PartComparison& p : run.parts) {
        if (p.key == "compute") {
            compute = &p;
            continue;
        }
        if (!largest || std::abs(p.difference()) > std::abs(largest->difference()))
            largest = &p;
    }
    std::string s;
    const double step = std::max(run.measuredStepS, run.predictedStepS);
    if (largest && std::abs(largest->difference()) > 0.01 * step)
        s = "measured " + largest->label + " " + inStepTimeText(largest->measuredS) + " vs " +
            inStepTimeText(largest->predictedS) + " predicted";
    else
        s = "no part differs from the prediction by more than 1 % of the step";
    if (compute && compute->relative()) {
        const double rel = *compute->relative();
        s += "; ";
        s += std::abs(rel) < 0.05
                 ? "compute within " + numberText(std::max(1.0, std::ceil(std::abs(rel) * 100))) +
                       " %"
                 : "compute " + signedPercentText(rel) + " (" + inStepTimeText(compute->measuredS) +
                       " vs " + inStepTimeText(compute->predictedS) + " predicted)";
    }
    if (unmatchedS > 0.01 * step)
        s += "; " + inStepTimeText(unmatchedS) +
             " of exposed communication in groups that match no dimension";
    return s;
}

} // namespace

int medianStepIndex(const RankProfile& rank)
{
    const double median = rank.medianStepS();
    int best = -1;
    for (size_t i = 0; i < rank.steps.size(); ++i)
        if (best < 0 || std::abs(rank.steps[i].durationS - median) <
                            std::abs(rank.steps[size_t(best)].durationS - median))
            best = int(i);
    return best;
}

std::optional<double> PartComparison::relative() const
{
    if (predictedS <= 0)
        return std::nullopt;
    return measuredS / predictedS - 1;
}

std::vector<GroupMatch> matchGroups(const MeasuredProfile& profile, const ClusterDesc& cluster,
                                    const RunDesc& run)
{
    const Placement placement = placeRun(run, cluster);
    std::vector<GroupMatch> groups;
    std::vector<std::vector<Reading>> readings;
    std::map<std::string, size_t> seen;
    bool undecided = false;
    for (const RankProfile& r : profile.ranks)
        for (const ProcessGroup& g : r.groups) {
            std::vector<int> ranks = sorted(g.ranks);
            const std::string key = keyOf(g.name, ranks);
            if (seen.count(key))
                continue;
            seen[key] = groups.size();
            GroupMatch m;
            m.name = g.name;
            m.description = g.description;
            m.ranks = std::move(ranks);
            m.label = "unmatched";
            readings.push_back(readingsOf(m.ranks, placement));
            undecided = undecided || (readings.back().size() > 1 &&
                                      !describedReading(m.description, readings.back()));
            groups.push_back(std::move(m));
        }
    // The kernels are counted only where the ranks and descriptions leave a choice.
    const std::vector<GroupKernels> kernels = undecided
                                                  ? kernelsOfGroups(profile, seen, groups.size())
                                                  : std::vector<GroupKernels>(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
        if (readings[i].empty())
            continue;
        const Reading& r = readings[i][chosenReading(groups[i], readings[i], kernels[i])];
        groups[i].role = r.role;
        groups[i].dim = r.dim;
        groups[i].label = r.label;
    }
    return groups;
}

std::vector<int> groupMatchesOf(const RankProfile& rank, const std::vector<GroupMatch>& groups)
{
    std::map<std::string, int> byKey;
    for (size_t i = 0; i < groups.size(); ++i)
        byKey[keyOf(groups[i].name, groups[i].ranks)] = int(i);
    std::vector<int> out;
    for (const ProcessGroup& g : rank.groups) {
        const auto it = byKey.find(keyOf(g.name, sorted(g.ranks)));
        out.push_back(it == byKey.end() ? -1 : it->second);
    }
    return out;
}

std::vector<int> slowestRankPerStage(const MeasuredProfile& profile, const ClusterDesc& cluster,
                                     const RunDesc& run)
{
    const Placement placement = placeRun(run, cluster);
    std::vector<int> slowest(size_t(std::max(1, placement.size(Dim::PP))), -1);
    std::vector<double> longest(slowest.size(), -1.0);
    for (const RankProfile& r : profile.ranks) {
        if (r.rank >= placement.worldSize())
            continue;
        const size_t stage = size_t(placement.coord(r.rank)[Dim::PP]);
        const double t = r.medianStepS();
        if (t > longest[stage]) {
            longest[stage] = t;
            slowest[stage] = r.rank;
        }
    }
    return slowest;
}

Breakdown measuredRankBreakdown(const RankProfile& rank, const std::vector<GroupMatch>& groups,
                                int step, double* unmatchedS)
{
    Breakdown b;
    if (unmatchedS)
        *unmatchedS = 0;
    if (step < 0)
        step = medianStepIndex(rank);
    if (step < 0 || size_t(step) >= rank.steps.size())
        return b;
    const StepFigures& s = rank.steps[size_t(step)];
    const std::vector<int> match = groupMatchesOf(rank, groups);
    b.compute = s.computeBusyS;
    b.bubble = s.idleS;
    for (const GroupSeconds& g : s.exposedByGroup) {
        const int m = g.group >= 0 && size_t(g.group) < match.size() ? match[size_t(g.group)] : -1;
        if (m >= 0 && groups[size_t(m)].dim)
            b.exposed[*groups[size_t(m)].dim] += g.seconds;
        else if (unmatchedS)
            *unmatchedS += g.seconds;
    }
    return b;
}

Breakdown predictedRankBreakdown(const Evaluation& evaluation, int stage)
{
    std::vector<BusySpan> compute;
    std::vector<BusySpan> comm;
    for (const Event& e : evaluation.events) {
        if (e.stage != stage && e.stage >= 0)
            continue;
        if (isComputeEvent(e))
            compute.push_back({e.start, e.end, -1});
        else if (e.isComm())
            comm.push_back({e.start, e.end, int(e.dim)});
    }
    const BusyFigures f = spanFigures(compute, comm, int(kDimCount) - 1);
    Breakdown b;
    b.compute = f.computeBusyS;
    for (const DimInfo& d : kDims)
        b.exposed[d.dim] = f.exposedByKey[size_t(d.dim) + 1];
    b.bubble = std::max(0.0, evaluation.stepTimeS - f.busyS);
    return b;
}

ProfileComparison compareWithPrediction(const MeasuredProfile& profile, const ClusterDesc& cluster,
                                        const RunDesc& run, const Evaluation& evaluation)
{
    ProfileComparison m;
    m.groups = matchGroups(profile, cluster, run);
    m.measuredStepS = profile.stepTimeS;
    m.predictedStepS = evaluation.stepTimeS;
    const Placement placement = placeRun(run, cluster);
    if (profile.worldSize != placement.worldSize())
        m.notes.atPointer("", "",
                          "the profile's world size is " + withThousands(profile.worldSize) +
                              ", the run's " + withThousands(placement.worldSize()) +
                              ": groups are matched by their ranks as far as they go");
    for (const GroupMatch& g : m.groups)
        if (g.role == GroupRole::Unmatched && g.ranks.size() > 1)
            m.notes.atPointer(
                "", "",
                "process group " + inQuotes(g.name) +
                    (g.description.empty() ? "" : " (" + printable(g.description) + ")") + " of " +
                    std::to_string(g.ranks.size()) +
                    " ranks matches no parallel dimension of the run");
    const auto slowest =
        std::find_if(profile.ranks.begin(), profile.ranks.end(),
                     [&](const RankProfile& r) { return r.rank == profile.slowestRank; });
    if (slowest == profile.ranks.end())
        return m;
    m.rank = slowest->rank;
    m.stage = m.rank < placement.worldSize() ? placement.coord(m.rank)[Dim::PP] : 0;
    m.measured = measuredRankBreakdown(*slowest, m.groups, -1, &m.unmatchedExposedS);
    m.predicted = predictedRankBreakdown(evaluation, m.stage);
    const std::vector<Breakdown::Part> measured = m.measured.parts();
    const std::vector<Breakdown::Part> predicted = m.predicted.parts();
    for (size_t i = 0; i < measured.size(); ++i) {
        if (measured[i].seconds <= 0 && predicted[i].seconds <= 0)
            continue;
        m.parts.push_back({std::string(measured[i].key), partLabel(measured[i]),
                           measured[i].seconds, predicted[i].seconds});
    }
    if (evaluation.eventsLeftOut > 0)
        m.notes.atPointer("", "",
                          "the prediction's events leave out part of its steady state: its "
                          "per-GPU figures are of the events kept");
    m.summary = summaryOf(m, m.unmatchedExposedS);
    return m;
}

} // namespace cs
