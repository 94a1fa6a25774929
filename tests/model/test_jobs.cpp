// Several jobs on one fabric (jobs.h, sharedfabric.h): one job is timed as alone, jobs on
// disjoint leaves leave each other alone, jobs sharing oversubscribed uplinks slow each other's
// data-parallel traffic, and what each job costs the others adds up to its slowdown.

#include <catch2/catch.hpp>

#include "costmodel.h"
#include "fabricclusters.h"
#include "jobs.h"
#include "placement.h"
#include "search.h"
#include "topology.h"
#include "validation.h"

using namespace cs;

namespace {

// HGX nodes on a two-tier fabric of four nodes per leaf, 4:1 at the leaves' uplinks.
ClusterDesc sharedCluster()
{
    return hgxCluster(32, 4, 4.0);
}

Allocation nodes(std::vector<std::pair<int, int>> ranges)
{
    return {Allocation::Unit::Nodes, std::move(ranges)};
}

// tp 8 x pp 4 x dp 4 on the allocation's 16 nodes; data parallelism across leaves.
RunDesc jobOn(const ClusterDesc& cluster, Allocation allocation, const char* name)
{
    ClusterDesc half = hgxCluster(16, 4, 4.0);
    RunDesc r = hgxRun(half, kDpAcrossLeaves);
    r.name = name;
    r.allocation = std::move(allocation);
    Diagnostics diags;
    validateClusterRun(cluster, r, diags);
    INFO(diags.formatAll());
    REQUIRE(diags.empty());
    return r;
}

// Every other pair of nodes: two of each leaf's four.
Allocation halfOfEveryLeaf(int first)
{
    std::vector<std::pair<int, int>> ranges;
    for (int leaf = 0; leaf < 8; ++leaf)
        ranges.push_back({4 * leaf + first, 4 * leaf + first + 1});
    return nodes(std::move(ranges));
}

} // namespace

TEST_CASE("one job is timed exactly as evaluate times it", "[jobs]")
{
    const ClusterDesc cluster = sharedCluster();
    const RunDesc run = hgxRun(cluster, kDpAcrossLeaves);
    const JobsEvaluation jobs = evaluateJobs(cluster, {run});
    REQUIRE(jobs.jobs.size() == 1);
    const double alone = evaluate(cluster, run).stepTimeS;
    CHECK(jobs.jobs[0].alone.stepTimeS == alone);
    CHECK(jobs.jobs[0].shared.stepTimeS == alone);
    CHECK(jobs.jobs[0].slowedByS == std::vector<double>{0.0});
}

TEST_CASE("jobs on disjoint leaves do not change each other's step", "[jobs]")
{
    const ClusterDesc cluster = sharedCluster();
    const std::vector<RunDesc> runs{jobOn(cluster, nodes({{0, 15}}), "a"),
                                    jobOn(cluster, nodes({{16, 31}}), "b")};
    const JobsEvaluation jobs = evaluateJobs(cluster, runs);
    for (const JobResult& r : jobs.jobs) {
        CHECK(r.shared.stepTimeS == Approx(r.alone.stepTimeS).epsilon(0.005));
        for (double s : r.slowedByS)
            CHECK(s == 0.0);
    }
}

TEST_CASE("jobs on halves of every leaf of a 4:1 fabric slow each other's data parallelism",
          "[jobs]")
{
    const ClusterDesc cluster = sharedCluster();
    const std::vector<RunDesc> runs{jobOn(cluster, halfOfEveryLeaf(0), "a"),
                                    jobOn(cluster, halfOfEveryLeaf(2), "b")};
    const JobsEvaluation jobs = evaluateJobs(cluster, runs);
    for (size_t j = 0; j < 2; ++j) {
        const JobResult& r = jobs.jobs[j];
        INFO("job " << j);
        CHECK(r.shared.commTotalS[Dim::DP] >= 1.3 * r.alone.commTotalS[Dim::DP]);
        CHECK(r.shared.stepTimeS > r.alone.stepTimeS);
        // All of the slowdown is owed to the one other job.
        CHECK(r.slowedByS[j] == 0.0);
        CHECK(r.slowedByS[1 - j] == Approx(r.shared.stepTimeS - r.alone.stepTimeS));
    }
}

TEST_CASE("a neighbour's share of the blame follows its traffic on the binding link", "[jobs]")
{
    // Three jobs: b shares a's leaves' uplinks, c sits on leaves of its own.
    const ClusterDesc cluster = hgxCluster(48, 4, 4.0);
    std::vector<std::pair<int, int>> a, b;
    for (int leaf = 0; leaf < 8; ++leaf) {
        a.push_back({4 * leaf, 4 * leaf + 1});
        b.push_back({4 * leaf + 2, 4 * leaf + 3});
    }
    const std::vector<RunDesc> runs{jobOn(cluster, nodes(a), "a"), jobOn(cluster, nodes(b), "b"),
                                    jobOn(cluster, nodes({{32, 47}}), "c")};
    const JobsEvaluation jobs = evaluateJobs(cluster, runs);
    CHECK(jobs.jobs[0].slowedByS[1] > 0);
    CHECK(jobs.jobs[0].slowedByS[2] == 0.0);
    CHECK(jobs.jobs[2].shared.stepTimeS == jobs.jobs[2].alone.stepTimeS);
}

TEST_CASE("a link names the jobs whose traffic it carries", "[jobs]")
{
    const ClusterDesc cluster = sharedCluster();
    const std::vector<RunDesc> runs{jobOn(cluster, halfOfEveryLeaf(0), "a"),
                                    jobOn(cluster, halfOfEveryLeaf(2), "b")};
    const JobsEvaluation jobs = evaluateJobs(cluster, runs);
    const Topology topology(cluster);
    const JobsTraffic traffic = jobsTraffic(topology, runs, jobs);
    REQUIRE(traffic.jobsOn.size() == topology.links().size());
    int shared = 0, onlyA = 0;
    for (size_t l = 0; l < topology.links().size(); ++l) {
        const bool a = traffic.carries(l, 0), b = traffic.carries(l, 1);
        shared += a && b;
        onlyA += a && !b;
        if (!a && !b)
            CHECK(traffic.total.links[l].bytes == 0.0);
        CHECK(traffic.total.links[l].utilization <= 1.0);
    }
    CHECK(shared > 0); // the leaves' uplinks
    CHECK(onlyA > 0);  // a's NICs and NVLink
}

TEST_CASE("one job's evaluation with the others running is the jobs' shared one", "[jobs]")
{
    const ClusterDesc cluster = sharedCluster();
    const std::vector<RunDesc> runs{jobOn(cluster, halfOfEveryLeaf(0), "a"),
                                    jobOn(cluster, halfOfEveryLeaf(2), "b")};
    const JobsEvaluation jobs = evaluateJobs(cluster, runs);
    for (size_t j = 0; j < runs.size(); ++j) {
        const Evaluation shown = evaluateJob(cluster, runs, j);
        CHECK(shown.stepTimeS == jobs.jobs[j].shared.stepTimeS);
        CHECK(shown.breakdown.exposed == jobs.jobs[j].shared.breakdown.exposed);
        CHECK_FALSE(shown.events.empty()); // laid out for the views
    }
    // Alone on the cluster, as evaluate.
    CHECK(evaluateJob(cluster, {runs[0]}, 0).stepTimeS == evaluate(cluster, runs[0]).stepTimeS);
}

TEST_CASE("a failure inside one job's allocation re-plans that job alone", "[jobs]")
{
    ClusterDesc cluster = sharedCluster();
    const std::vector<RunDesc> runs{jobOn(cluster, nodes({{0, 15}}), "a"),
                                    jobOn(cluster, nodes({{16, 31}}), "b")};
    const Evaluation bBefore = evaluate(cluster, runs[1]);
    cluster.failures.nodes = {5}; // in a's allocation
    // b is untouched: the same GPUs, the same step.
    CHECK(allocatedGpuCount(cluster, runs[1]) == 128);
    CHECK(evaluate(cluster, runs[1]).stepTimeS == bBefore.stepTimeS);
    // a's re-plan (the search, as the window's Re-plan runs it) stays on a's healthy GPUs.
    RunDesc free = runs[0];
    free.parallelism.dp = 0;
    SearchOptions options;
    options.keep = 1;
    const SearchOutcome outcome = searchParallelism(cluster, free, options);
    REQUIRE_FALSE(outcome.results.empty());
    const RunDesc replanned = withLayout(runs[0], outcome.results.front().layout);
    REQUIRE(replanned.allocation == runs[0].allocation);
    const Placement placement = placeRun(replanned, cluster);
    CHECK(placement.worldSize() <= allocatedGpuCount(cluster, replanned));
    for (int rank = 0; rank < placement.worldSize(); ++rank) {
        const int node = placement.gpuOfRank(rank) / cluster.gpusPerNode;
        CHECK(node < 16);
        CHECK(node != 5);
    }
    Diagnostics diags;
    checkJobs(cluster, {replanned, runs[1]}, sessionRunSources("", 1), diags);
    CHECK(diags.empty());
}

TEST_CASE("a job's search lays out the GPUs its allocation holds, whatever they divide", "[jobs]")
{
    // Three nodes of the cluster's 32: 24 GPUs, so model-parallel groups of 32 GPUs or more do
    // not fit, and sizes of 3 divide the allocation though not the cluster's 256.
    const ClusterDesc cluster = sharedCluster();
    RunDesc run = hgxRun(hgxCluster(4), kDpAcrossLeaves);
    run.parallelism.pp = 1;
    run.parallelism.dp = 3;
    run.batch = {24, 1};
    run.allocation = nodes({{0, 2}});
    Diagnostics diags;
    validateClusterRun(cluster, run, diags);
    INFO(diags.formatAll());
    REQUIRE(diags.empty());
    const std::vector<Layout> layouts = enumerateLayouts(cluster, run);
    REQUIRE_FALSE(layouts.empty());
    bool sizeOfThree = false;
    for (const Layout& layout : layouts) {
        const Parallelism& p = layout.parallelism;
        CHECK(int64_t(p.tp) * p.cp * p.pp * p.dp == 24);
        sizeOfThree = sizeOfThree || p.pp == 3 || p.dp == 3;
    }
    CHECK(sizeOfThree);
    SearchOptions options;
    options.keep = 3;
    const SearchOutcome outcome = searchParallelism(cluster, run, options);
    REQUIRE(outcome.results.size() == 3);
    CHECK(outcome.layouts == int64_t(layouts.size()));
}
