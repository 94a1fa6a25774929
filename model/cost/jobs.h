#pragma once
// Several jobs on one cluster (formats.md "Several jobs on one cluster"): each runs on the
// healthy GPUs of its allocation, and where their traffic crosses the same links and switches
// they divide the bandwidth. Each job's step is timed with the others running; `slowedBy` says
// how much of it each other job costs. docs/cost-model.md, "Shared fabric", states the model.

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel.h"
#include "linkloads.h"
#include "loader.h"

namespace cs {

// The most jobs one evaluation takes: as many as a session holds, which a link's 64-bit mask
// of jobs can name.
inline constexpr int kMaxJobs = kMaxSessionJobs;
static_assert(kMaxJobs <= 64);

struct JobResult {
    Evaluation alone;  // the job on its allocation, the rest of the cluster idle
    Evaluation shared; // with every other job running
    // Seconds of the shared step owed to each other job's traffic, indexed like the runs
    // (0 for the job itself).
    std::vector<double> slowedByS;
};

struct JobsEvaluation {
    std::vector<JobResult> jobs; // in the order of the runs
};

// The runs must each be valid on the cluster and their allocations must not overlap
// (checkJobs). With one run, shared equals alone and equals evaluate(cluster, run).
JobsEvaluation evaluateJobs(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
                            const EvalOptions& opts = {});

// Job `job`'s evaluation with the others running: evaluateJobs(...).jobs[job].shared, without
// laying out the other jobs' events (what the views show for the job in detail).
Evaluation evaluateJob(const ClusterDesc& cluster, const std::vector<RunDesc>& runs, size_t job,
                       const EvalOptions& opts = {});

// The traffic of every job's step on every link, each job at its shared step time.
struct JobsTraffic {
    // All jobs together: bytes and busy seconds (each of its own job's step) add, and so do
    // utilizations (the fraction of time each job keeps the link busy), up to 1.
    StepTraffic total;
    std::vector<uint64_t> jobsOn; // per link: a bit per job (index in the runs) it carries
    bool carries(size_t link, int job) const { return (jobsOn[link] >> unsigned(job)) & 1u; }
};
JobsTraffic jobsTraffic(const Topology& topology, const std::vector<RunDesc>& runs,
                        const JobsEvaluation& evaluation, const Calibration* calibration = nullptr);

} // namespace cs
