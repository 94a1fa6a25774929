#pragma once
// The edits of several jobs on one cluster, before they become undo steps: whether the jobs
// are valid together, where a new job fits first, and the runs after adding, removing, moving
// or showing a job in detail. Runs are the document's order: its run first, then its jobs.

#include <QString>
#include <optional>
#include <vector>

#include "description.h"

namespace cs {
class Placement;
class Topology;
} // namespace cs

// Every job's problems on the cluster and between the jobs, in sentences for people; empty
// when they are valid together.
QString jobsProblems(const cs::ClusterDesc& cluster, const std::vector<cs::RunDesc>& runs);

// The GPUs a run takes: tp x cp x pp x dp, or `whenDerived` when its dp is derived from the
// GPUs it is given.
int64_t gpusNeeded(const cs::RunDesc& run, int64_t whenDerived);

// The first racks, in order, that no job holds, as few as hold `gpus` healthy GPUs (in as
// many ranges as they fall in); nothing when the free racks hold fewer.
std::optional<cs::Allocation> firstFreeRacks(const cs::Topology& topology,
                                             const std::vector<cs::RunDesc>& runs, int64_t gpus);

// A run of a document of one job holds the whole cluster: before another joins it, it gets
// the racks its ranks are on (from 0 to the last, `placement` being its placement).
cs::RunDesc withOwnRacks(cs::RunDesc run, const cs::Topology& topology,
                         const cs::Placement& placement);

// A name not yet taken by any of the runs: `name`, else "name 2", "name 3", ...
std::string freeName(const std::string& name, const std::vector<cs::RunDesc>& runs);

// The document's run and other jobs from the runs in its order (the first is the run).
struct JobsEdit {
    cs::RunDesc run;
    std::vector<cs::RunDesc> jobs;
};
JobsEdit splitRuns(std::vector<cs::RunDesc> runs);
// Job `job` (> 0) shown in detail: it becomes the run, and the run takes its place.
JobsEdit showInDetail(std::vector<cs::RunDesc> runs, int job);
