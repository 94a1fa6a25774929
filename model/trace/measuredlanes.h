#pragma once
// The timeline's measured lanes (issue 37): the measured step of each pipeline stage's slowest
// rank, laid under the predicted step of that stage, as a short list of intervals (compute, the
// communication the GPU waited for by kernel kind and process group, idle) from the step's
// start. The step is the one the comparison shows: the rank's step closest to its median.
//
// The intervals partition the step as the step figures read it (intervals.h): compute wherever
// a compute kernel runs; else communication wherever a communication kernel runs, a moment
// that several groups' (or kinds') kernels share split evenly among them, one after the other;
// else idle. So the lane's totals by kind are the step's compute busy, exposed communication
// by group and idle time.
//
// A lane stays small, whatever the trace: neighbours of the same kind merge, which keeps the
// totals exact; a lane still over its cap (laneIntervalCap) lets every interval shorter than
// 1/4096 of the step (a quarter of a pixel on a full step 1,000 pixels wide) join the interval
// before it, then merges again, doubling that length until the lane fits. Each such pass moves
// at most that length per interval left between kinds. A session keeps the lanes
// (app/profilesession.cpp), not the kernels.

#include <optional>
#include <vector>

#include "profilemapping.h"

namespace cs {

// The shortest interval a lane keeps, as a fraction of its step.
inline constexpr double kLaneResolution = 1.0 / 4096;
// Intervals over all lanes of a profile, and of one lane at most.
inline constexpr size_t kMaxLaneIntervalsTotal = 32768;
inline constexpr size_t kMaxLaneIntervals = 4096;

// The cap of each lane of a run of `stages` pipeline stages (at least 16; past 2,048 stages the
// later stages get no lane, so that the total holds).
size_t laneIntervalCap(int stages);

// A rank's step (index in its steps) as contiguous intervals from the step's start, exact
// (nothing merged): needs the rank's kernels.
std::vector<LaneInterval> stepIntervals(const RankProfile& rank, int step);

// The intervals merged by the rule above, to at most `cap` (the shortest kept: kLaneResolution
// of `stepS`, doubled as needed).
std::vector<LaneInterval> compactIntervals(const std::vector<LaneInterval>& intervals, double stepS,
                                           size_t cap);

// One lane per pipeline stage that has a measured rank with kernels (slowestRankPerStage), by
// stage. A stage whose slowest rank's kernels were not kept has none, noted in `notes`.
std::vector<MeasuredLane> measuredLanes(const MeasuredProfile& profile, const ClusterDesc& cluster,
                                        const RunDesc& run, Diagnostics* notes = nullptr);

// What the window keeps of a profile read with its kernels: the lanes made (into
// profile.lanes), the kernels let go.
void keepMeasuredLanes(MeasuredProfile& profile, const ClusterDesc& cluster, const RunDesc& run);

// The dimension a Comm interval's time counts under (`matches`: groupMatchesOf the lane's
// rank), nothing where its group matches none (or for compute and idle).
std::optional<Dim> laneIntervalDim(const LaneInterval& interval, const std::vector<int>& matches,
                                   const std::vector<GroupMatch>& groups);

// A lane's totals as a Breakdown, as measuredRankBreakdown reads the step: compute, exposed
// communication by dimension (unmatched groups' in `unmatchedS`), idle as bubble.
Breakdown laneBreakdown(const MeasuredLane& lane, const RankProfile& rank,
                        const std::vector<GroupMatch>& groups, double* unmatchedS = nullptr);

} // namespace cs
