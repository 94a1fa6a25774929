#include "measuredlanes.h"

#include <algorithm>
#include <map>

#include "placement.h"
#include "text.h"

namespace cs {

namespace {

// A communication kernel's key in the sweep: its group and kind together.
int commCode(const ProfileKernel& k)
{
    return (k.group + 1) * int(kKernelKindCount) + int(k.kind);
}

LaneInterval commInterval(int code, double start, double duration)
{
    LaneInterval iv{start, duration, LaneIntervalKind::Comm, KernelKind::Compute, -1};
    iv.collective = KernelKind(code % int(kKernelKindCount));
    iv.group = code / int(kKernelKindCount) - 1;
    return iv;
}

struct Boundary {
    double t;
    int delta;
    int code; // -1: compute
};

// What the GPU does between two boundaries: compute, the communication codes running (not
// under compute), or nothing.
struct State {
    bool compute = false;
    std::vector<int> comm;
    bool operator==(const State&) const = default;
};

// A run of one state, emitted as its intervals: communication shared by several codes is split
// evenly among them, one after the other, as the step figures share it.
void emit(const State& s, double start, double end, double stepS, std::vector<LaneInterval>& out)
{
    if (end <= start)
        return;
    if (s.compute) {
        out.push_back({start, end - start, LaneIntervalKind::Compute, KernelKind::Compute, -1});
    } else if (!s.comm.empty()) {
        const double share = (end - start) / double(s.comm.size());
        for (size_t i = 0; i < s.comm.size(); ++i)
            out.push_back(commInterval(s.comm[i], start + double(i) * share, share));
    } else if (start < stepS) { // idle counts inside the step only
        out.push_back(
            {start, std::min(end, stepS) - start, LaneIntervalKind::Idle, KernelKind::Compute, -1});
    }
}

bool sameKind(const LaneInterval& a, const LaneInterval& b)
{
    return a.kind == b.kind && (a.kind != LaneIntervalKind::Comm ||
                                (a.collective == b.collective && a.group == b.group));
}

// One pass of the merging rule with the shortest interval kept `least` seconds.
std::vector<LaneInterval> merged(const std::vector<LaneInterval>& in, double least)
{
    std::vector<LaneInterval> out;
    for (LaneInterval iv : in) {
        if (!out.empty()) {
            LaneInterval& last = out.back();
            if (sameKind(last, iv) || iv.durationS < least) {
                last.durationS = iv.endS() - last.startS;
                continue;
            }
            if (last.durationS < least) { // a short first interval joins the one after it
                iv.durationS = iv.endS() - last.startS;
                iv.startS = last.startS;
                last = iv;
                continue;
            }
        }
        out.push_back(iv);
    }
    return out;
}

} // namespace

size_t laneIntervalCap(int stages)
{
    return std::clamp<size_t>(kMaxLaneIntervalsTotal / size_t(std::max(1, stages)), 16,
                              kMaxLaneIntervals);
}

std::vector<LaneInterval> stepIntervals(const RankProfile& rank, int step)
{
    std::vector<LaneInterval> out;
    if (step < 0 || size_t(step) >= rank.steps.size())
        return out;
    const StepFigures& s = rank.steps[size_t(step)];
    std::vector<Boundary> bounds;
    for (const ProfileKernel& k : rank.kernels) {
        if (k.step != step)
            continue;
        const double start = std::max(0.0, k.startS - s.startS), end = k.endS - s.startS;
        if (end <= start)
            continue;
        const int code = isComm(k.kind) ? commCode(k) : -1;
        bounds.push_back({start, +1, code});
        bounds.push_back({end, -1, code});
    }
    std::sort(bounds.begin(), bounds.end(),
              [](const Boundary& a, const Boundary& b) { return a.t < b.t; });
    int computing = 0;
    std::map<int, int> running; // comm code -> kernels running
    State state;
    double since = 0;
    for (size_t i = 0; i < bounds.size();) {
        const double t = bounds[i].t;
        for (; i < bounds.size() && bounds[i].t == t; ++i) {
            if (bounds[i].code < 0)
                computing += bounds[i].delta;
            else if ((running[bounds[i].code] += bounds[i].delta) == 0)
                running.erase(bounds[i].code);
        }
        State next;
        next.compute = computing > 0;
        if (!next.compute)
            for (const auto& [code, count] : running)
                next.comm.push_back(code);
        if (next == state)
            continue;
        emit(state, since, t, s.durationS, out);
        state = std::move(next);
        since = t;
    }
    emit(state, since, std::max(since, s.durationS), s.durationS, out);
    return out;
}

std::vector<LaneInterval> compactIntervals(const std::vector<LaneInterval>& intervals, double stepS,
                                           size_t cap)
{
    std::vector<LaneInterval> out = merged(intervals, 0);
    for (double least = stepS * kLaneResolution; out.size() > std::max<size_t>(1, cap) && least > 0;
         least *= 2)
        out = merged(out, least);
    return out;
}

std::vector<MeasuredLane> measuredLanes(const MeasuredProfile& profile, const ClusterDesc& cluster,
                                        const RunDesc& run, Diagnostics* notes)
{
    std::vector<MeasuredLane> lanes;
    const std::vector<int> slowest = slowestRankPerStage(profile, cluster, run);
    const size_t cap = laneIntervalCap(int(slowest.size()));
    size_t total = 0;
    for (size_t stage = 0; stage < slowest.size(); ++stage) {
        if (total + cap > kMaxLaneIntervalsTotal) { // past 2,048 stages
            if (notes)
                notes->atPointer("", "",
                                 "stages " + std::to_string(stage) +
                                     " and after have no measured "
                                     "lane on the timeline: the lanes hold " +
                                     withThousands(kMaxLaneIntervalsTotal) + " intervals at most");
            break;
        }
        const auto rank =
            std::find_if(profile.ranks.begin(), profile.ranks.end(),
                         [&](const RankProfile& r) { return r.rank == slowest[stage]; });
        if (rank == profile.ranks.end())
            continue;
        const int step = medianStepIndex(*rank);
        if (step < 0)
            continue;
        if (rank->kernels.empty()) {
            if (notes && rank->kernelCount > 0)
                notes->atPointer(rank->file, "",
                                 "its kernels were not kept: stage " + std::to_string(stage) +
                                     " has no measured lane on the timeline");
            continue;
        }
        const StepFigures& s = rank->steps[size_t(step)];
        lanes.push_back({int(stage), rank->rank, s.number, s.durationS,
                         compactIntervals(stepIntervals(*rank, step), s.durationS, cap)});
        total += lanes.back().intervals.size();
    }
    return lanes;
}

void keepMeasuredLanes(MeasuredProfile& profile, const ClusterDesc& cluster, const RunDesc& run)
{
    profile.lanes = measuredLanes(profile, cluster, run, &profile.notes);
    for (RankProfile& r : profile.ranks) {
        r.kernels = {};
        r.kernelNames = {};
    }
}

std::optional<Dim> laneIntervalDim(const LaneInterval& interval, const std::vector<int>& matches,
                                   const std::vector<GroupMatch>& groups)
{
    if (interval.kind != LaneIntervalKind::Comm || interval.group < 0 ||
        size_t(interval.group) >= matches.size())
        return std::nullopt;
    const int m = matches[size_t(interval.group)];
    return m >= 0 && size_t(m) < groups.size() ? groups[size_t(m)].dim : std::nullopt;
}

Breakdown laneBreakdown(const MeasuredLane& lane, const RankProfile& rank,
                        const std::vector<GroupMatch>& groups, double* unmatchedS)
{
    Breakdown b;
    if (unmatchedS)
        *unmatchedS = 0;
    const std::vector<int> matches = groupMatchesOf(rank, groups);
    for (const LaneInterval& iv : lane.intervals) {
        if (iv.kind == LaneIntervalKind::Compute)
            b.compute += iv.durationS;
        else if (iv.kind == LaneIntervalKind::Idle)
            b.bubble += iv.durationS;
        else if (const auto dim = laneIntervalDim(iv, matches, groups))
            b.exposed[*dim] += iv.durationS;
        else if (unmatchedS)
            *unmatchedS += iv.durationS;
    }
    return b;
}

} // namespace cs
