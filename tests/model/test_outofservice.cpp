// Racks, nodes and GPUs out of service: they hold no rank, a run that needs them is refused
// with the healthy count, and the search re-plans on what is left, the global batch kept.

#include <algorithm>

#include <catch2/catch.hpp>

#include "costmodel.h"
#include "costmodeltests.h"
#include "placement.h"
#include "samplefiles.h"
#include "search.h"
#include "validation.h"

using namespace cs;
using namespace costmodeltests;

namespace {

std::string problemsOf(const RunDesc& run, const ClusterDesc& cluster)
{
    Diagnostics diags;
    checkRunOnCluster(run, cluster, "run.json", "", diags);
    return diags.formatAll();
}

// A small NVL72-like cluster (8 racks of 64 GPUs) and a 70B-class model on it, so that the
// search runs in a test.
ClusterRun smallRackCluster()
{
    ClusterRun s = fairwater128();
    s.cluster.racks = 8;
    s.cluster.layoutRows = 2;
    s.run.model.layers = 80;
    s.run.model.hidden = 8192;
    s.run.model.ffnHidden = 28672;
    s.run.model.heads = 64;
    s.run.model.kvHeads = 8;
    s.run.batch.global = 96;
    s.run.parallelism = Parallelism{};
    s.run.parallelism.tp = 4;
    s.run.parallelism.pp = 8;
    s.run.parallelism.dp = 16;
    s.run.parallelism.sequenceParallel = true;
    s.run.parallelism.distributedOptimizer = true;
    s.run.trainingSteps = 1000;
    return s;
}

} // namespace

TEST_CASE("a rack out of Fairwater leaves 64 GPUs failed and placement skips them")
{
    ClusterRun s = fairwater128();
    s.cluster.failures.racks = {5};
    CHECK(s.cluster.healthyGpuCount() == 8192 - 64);
    s.run.parallelism.dp = 96; // the widest the global batch of 1,152 divides on 127 racks
    REQUIRE(problemsOf(s.run, s.cluster).empty());

    const Evaluation e = evaluate(s.cluster, s.run);
    CHECK(e.gpusFailed == 64);
    CHECK(e.gpusUsed == 64 * 96);
    CHECK(e.gpusIdle == 8192 - 64 - 64 * 96);

    const Placement p = placeRun(s.run, s.cluster);
    for (int g = 5 * 64; g < 6 * 64; ++g)
        CHECK(p.rankOfGpu(g) == -1);
    // Racks 0 to 4 keep their ranks; rank 320 starts on rack 6.
    CHECK(p.gpuOfRank(5 * 64 - 1) == 5 * 64 - 1);
    CHECK(p.gpuOfRank(5 * 64) == 6 * 64);
    for (int r = 0; r < p.worldSize(); r += 61)
        CHECK(p.rankOfGpu(p.gpuOfRank(r)) == r);
    // Every replica's TP, CP and PP groups still sit inside one rack.
    CHECK(p.dimension(Dim::TP).insideDomain());
    CHECK(p.dimension(Dim::PP).insideDomain());
}

TEST_CASE("a rack out of service times a step as a cluster without that rack, a node out does "
          "not split the others' NVLink groups")
{
    ClusterRun s = fairwater128();
    s.run.parallelism.dp = 96;
    ClusterDesc fewer = s.cluster;
    fewer.racks = 127;
    ClusterDesc rackOut = s.cluster;
    rackOut.failures.racks = {5};
    const Evaluation withoutRack = evaluate(fewer, s.run), withRackOut = evaluate(rackOut, s.run);
    CHECK(withRackOut.stepTimeS == Approx(withoutRack.stepTimeS).epsilon(1e-12));
    CHECK(withRackOut.commTotalS[Dim::DP] ==
          Approx(withoutRack.commTotalS[Dim::DP]).epsilon(1e-12));

    // One tray out leaves rack 5 partly healthy: ranks then straddle racks and some TP or PP
    // groups cross the fabric, which the step must show.
    ClusterDesc nodeOut = s.cluster;
    nodeOut.failures.nodes = {5 * 16 + 3};
    const Placement p = placeRun(s.run, nodeOut);
    CHECK_FALSE(p.dimension(Dim::PP).insideDomain());
    CHECK(evaluate(nodeOut, s.run).stepTimeS > withRackOut.stepTimeS);
}

TEST_CASE("racks, nodes and GPUs out of service overlap and count once")
{
    ClusterDesc c = fairwater128().cluster;
    c.failures.racks = {5, 6};
    c.failures.nodes = {5 * 16 + 3, 7 * 16, 7 * 16};  // one inside rack 5, one twice
    c.failures.gpus = {6 * 64 + 1, 7 * 64 + 1, 8191}; // inside rack 6, inside node 112, the last
    const std::vector<bool> healthy = c.healthyGpus();
    CHECK(c.healthyGpuCount() == std::count(healthy.begin(), healthy.end(), true));
    CHECK(c.healthyGpuCount() == 8192 - 128 - 4 - 1);
    CHECK_FALSE(healthy[7 * 64 + 3]);
    CHECK(healthy[7 * 64 + 4]);
    CHECK_FALSE(healthy[8191]);
}

TEST_CASE("a run too big for the healthy GPUs is refused with the healthy count")
{
    ClusterRun s = fairwater128();
    s.cluster.failures.racks = {5};
    // dp 128 as the sample has it needs all 8,192 GPUs.
    const std::string given = problemsOf(s.run, s.cluster);
    CHECK(given.find("/parallelism/dp") != std::string::npos);
    CHECK(given.find("8,192") != std::string::npos);
    CHECK(given.find("8,128 healthy GPUs") != std::string::npos);
    // dp derived from the 8,128 healthy GPUs: 127, which the global batch does not divide.
    s.run.parallelism.dp = 0;
    const std::string derived = problemsOf(s.run, s.cluster);
    CHECK(derived.find("/batch/global") != std::string::npos);
    CHECK(derived.find("8,128 healthy GPUs") != std::string::npos);
    // A node and a GPU out as well.
    s.cluster.failures.nodes = {700};
    s.cluster.failures.gpus = {4097};
    CHECK(s.cluster.healthyGpuCount() == 8192 - 64 - 4 - 1);
    s.run.parallelism.dp = 128;
    CHECK(problemsOf(s.run, s.cluster).find("8,123 healthy GPUs") != std::string::npos);
}

TEST_CASE("the re-plan on a cluster with a rack out fits the healthy GPUs and keeps the batch")
{
    const ClusterRun intact = smallRackCluster();
    REQUIRE(problemsOf(intact.run, intact.cluster).empty());
    ClusterRun failed = intact;
    failed.cluster.failures.racks = {3};
    const int64_t healthy = failed.cluster.healthyGpuCount();
    REQUIRE(healthy == 7 * 64);
    CHECK_FALSE(problemsOf(failed.run, failed.cluster).empty()); // dp 16 needs 512 GPUs

    SearchOptions options;
    options.keep = 20;
    const SearchOutcome replan = searchParallelism(failed.cluster, failed.run, options);
    REQUIRE_FALSE(replan.results.empty());
    for (const SearchResult& r : replan.results) {
        const RunDesc run = withLayout(failed.run, r.layout);
        INFO(run.parallelism.tp << " x " << run.parallelism.cp << " x " << run.parallelism.pp
                                << " x " << run.parallelism.dp);
        CHECK(run.worldSizeFor(healthy) <= healthy);
        CHECK(run.batch.global == intact.run.batch.global);
        CHECK(problemsOf(run, failed.cluster).empty());
    }

    // The best layout on what is left, against the best on the intact cluster: the same
    // global batch on fewer GPUs takes longer a step and longer to train.
    const SearchOutcome before = searchParallelism(intact.cluster, intact.run, options);
    REQUIRE_FALSE(before.results.empty());
    const Evaluation best =
        evaluate(failed.cluster, withLayout(failed.run, replan.results[0].layout));
    const Evaluation bestIntact =
        evaluate(intact.cluster, withLayout(intact.run, before.results[0].layout));
    CHECK(best.stepTimeS == Approx(replan.results[0].stepTimeS));
    CHECK(best.gpusFailed == 64);
    CHECK(best.gpusUsed <= healthy);
    CHECK(best.stepTimeS > bestIntact.stepTimeS);
    REQUIRE(best.goodput);
    REQUIRE(bestIntact.goodput);
    CHECK(*best.goodput->timeToTrainS() > *bestIntact.goodput->timeToTrainS());
}
