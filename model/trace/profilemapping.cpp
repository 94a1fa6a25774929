#include "profilemapping.h"

#include <algorithm>
#include <cmath>
#include <map>

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

// The same group in every rank's file: by its ranks, or by its name where it gives none.
std::string keyOf(const std::string& name, const std::vector<int>& sortedRanks)
{
    if (sortedRanks.empty())
        return "name:" + name;
    std::string key;
    for (int r : sortedRanks)
        key += std::to_string(r) + ",";
    return key;
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

void classify(GroupMatch& g, const Placement& p)
{
    const int n = int(g.ranks.size());
    const int world = p.worldSize();
    g.role = GroupRole::Unmatched;
    g.label = "unmatched";
    if (n < 2 || g.ranks.back() >= world)
        return;
    const int first = g.ranks.front();
    for (const DimInfo& d : kDims) {
        if (p.size(d.dim) == n && sorted(p.groupMembers(first, d.dim)) == g.ranks) {
            g.role = GroupRole::Dimension;
            g.dim = d.dim;
            g.label = std::string(d.shortLabel);
            return;
        }
    }
    if (p.expertData().size == n && sorted(p.expertDataMembers(first)) == g.ranks) {
        g.role = GroupRole::ExpertData;
        g.dim = Dim::DP;
        g.label = "expert-DP";
    } else if (p.size(Dim::CP) > 1 && dataContextMembers(p, first) == g.ranks) {
        g.role = GroupRole::DataContext;
        g.dim = Dim::DP;
        g.label = "DP x CP";
    } else if (n == world) {
        g.role = GroupRole::World;
        g.label = "world";
    }
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
    std::map<std::string, size_t> seen;
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
            classify(m, placement);
            groups.push_back(std::move(m));
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
