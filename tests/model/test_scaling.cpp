#include <catch2/catch.hpp>

#include <algorithm>

#include "costmodel.h"
#include "samplefiles.h"
#include "scaling.h"

TEST_CASE("weak scaling keeps the work per GPU and the model-parallel layout")
{
    for (const char* name :
         {"fairwater-gb200-128-llama405b.run.json", "ndv5-h100-128-gpt3-175b.run.json"}) {
        INFO(name);
        const cs::LoadedFile f = loadSample(name);
        const cs::ClusterDesc& cluster = *f.cluster;
        const cs::RunDesc& run = *f.run;
        const auto points = cs::weakScaling(cluster, run);
        REQUIRE(points.size() >= 3);
        const int microBatches = run.microBatchesFor(cluster.gpuCount());
        const cs::Parallelism& par = run.parallelism;
        int clusterPoints = 0;
        for (size_t i = 0; i < points.size(); ++i) {
            const cs::ScalingPoint& p = points[i];
            INFO(p.gpus << " GPUs");
            CHECK(int64_t(p.dp) * par.tp * par.cp * par.pp == p.gpus);
            CHECK(p.globalBatch == microBatches * p.dp * run.batch.micro);
            CHECK(p.stepTimeS > 0);
            CHECK(p.efficiency == Approx(points.front().stepTimeS / p.stepTimeS));
            if (i > 0)
                CHECK(p.gpus > points[i - 1].gpus);
            clusterPoints += p.isCluster;
        }
        CHECK(clusterPoints == 1);
        CHECK(points.front().efficiency == 1.0);
        CHECK(points.back().gpus == 2 * cluster.gpuCount());
    }
}

TEST_CASE("weak scaling at the cluster's own size is the run itself")
{
    const cs::LoadedFile f = loadSample("fairwater-gb200-128-llama405b.run.json");
    const auto points = cs::weakScaling(*f.cluster, *f.run);
    const auto own = std::find_if(points.begin(), points.end(),
                                  [](const cs::ScalingPoint& p) { return p.isCluster; });
    REQUIRE(own != points.end());
    CHECK(own->gpus == f.cluster->gpuCount());
    CHECK(own->globalBatch == f.run->batch.global);
    CHECK(own->stepTimeS == Approx(cs::evaluate(*f.cluster, *f.run).stepTimeS));
}

TEST_CASE("sizes the model-parallel layout does not divide are left out")
{
    const cs::LoadedFile f = loadSample("fairwater-gb200-128-llama405b.run.json");
    cs::RunDesc run = *f.run;
    // 64 GPUs per model replica need a whole rack: no point below one rack can exist, and a
    // replica of three racks only fits sizes that three racks divide.
    run.parallelism.pp = 24;
    run.model.layers = 24 * 6;
    run.parallelism.vp = 1;
    run.parallelism.dp = 0;
    run.batch.global = 42 * 9;
    cs::ClusterDesc cluster = *f.cluster;
    cluster.racks = 126; // 42 replicas of 3 racks
    for (const cs::ScalingPoint& p : cs::weakScaling(cluster, run))
        CHECK(p.units % 3 == 0);
}
