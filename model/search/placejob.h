#pragma once
// Where the next job should go (Tools > Place Job, clusterscope-cli place): the free
// allocations that fit a new run beside the jobs already running, each timed with every job
// running (evaluateJobs), best first.
//
// Candidates are contiguous ranges of free units (no GPU held by a running job) with enough
// healthy GPUs for the new run's tp x cp x pp x dp, the fewest units that hold it: first whole
// racks starting on a leaf's first node (whole leaves where a leaf spans racks), then whole
// racks starting anywhere else, then, for a job smaller than a rack on a cluster whose NVLink
// domain is the node, ranges of nodes (an NVL72 rack's domain is never split between jobs:
// the cost model does not share NVLink domains).
// At most `maxCandidates` are evaluated, spread evenly over each kind when there are more.
//
// Ranking: by the new job's step with the others running plus the seconds it adds to the
// running jobs' steps together (each other job's shared step with it, minus without it): what
// the new job costs the cluster per step. Ties (the same microsecond) go to the allocation
// that spans fewer leaves, then to the one that holds fewer GPUs, then to the order above.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "allocationtext.h" // a placement's allocation in words (allocationText)
#include "costmodel.h"
#include "description.h"

namespace cs {

struct JobPlacement {
    Allocation allocation;
    double stepTimeS = 0;     // the new job's step with every other job running
    double othersSlowedS = 0; // seconds it adds to the running jobs' steps, together
    int leaves = 0;           // leaves (rail groups of leaves) the allocation's nodes sit on
    int64_t gpusHeld = 0;     // every GPU of the allocation, those the job leaves idle too
    double costS() const { return stepTimeS + othersSlowedS; }
};

struct PlaceJobOptions {
    EvalOptions eval{nullptr, false};
    // Each candidate is one evaluation of every job: 64 of them place a job beside 8 running on
    // Fairwater within a second (bench/model/bench_jobs.cpp).
    int maxCandidates = 64;
    // Set by another thread to stop between candidates (Place Job's Cancel); nothing is ranked
    // then, and the result says it was cancelled.
    const std::atomic<bool>* cancel = nullptr;
    // Called before each candidate's evaluation and at the end: candidates timed, of how many.
    std::function<void(int done, int total)> progress;
};

struct PlaceJobResult {
    std::vector<JobPlacement> placements; // best first
    int candidatesFound = 0;              // free allocations that fit, before the bound
    std::string nothingFits;              // why no allocation fits, when placements is empty
    bool cancelled = false;               // stopped by PlaceJobOptions::cancel: nothing ranked
};

// `job` must be valid on the cluster and give its data-parallel size (parallelism.dp); its own
// allocation is ignored. `running` must be valid together (checkJobs); a running job without
// an allocation holds the whole cluster, and nothing fits beside it.
PlaceJobResult placeJob(const ClusterDesc& cluster, const RunDesc& job,
                        const std::vector<RunDesc>& running, const PlaceJobOptions& options = {});

} // namespace cs
