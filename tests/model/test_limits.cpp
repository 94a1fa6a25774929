// The size limit of formats.md: the largest cluster accepted (131,072 GPUs) loads from its
// files, builds its topology and placement and evaluates with its events; one GPU more, or
// products past 32 bits, are refused by name (the files of tests/data/bad check the messages).

#include <catch2/catch.hpp>

#include <cmath>

#include "costmodel.h"
#include "placement.h"
#include "samplefiles.h"
#include "topology.h"
#include "validation.h"

using namespace cs;

namespace {

// The Fairwater sample's JSON with the given counts.
nlohmann::json fairwaterWith(int64_t racks, int64_t nodesPerRack, int64_t gpusPerNode)
{
    nlohmann::json j = toJson(*loadSample("fairwater-gb200-128.cluster.json").cluster);
    j["racks"] = racks;
    j["nodes_per_rack"] = nodesPerRack;
    j["gpus_per_node"] = gpusPerNode;
    j.erase("layout");
    return j;
}

} // namespace

TEST_CASE("the largest accepted cluster loads, places and evaluates", "[limits]")
{
    Diagnostics diags;
    // 2,048 NVL72 racks of 16 trays x 4 GB200, one Llama 3.1 405B replica a rack.
    const auto cluster = clusterFromJson(fairwaterWith(2048, 16, 4), "limit", "", diags);
    nlohmann::json runJson = toJson(*loadSample("fairwater-gb200-128-llama405b.run.json").run);
    runJson.erase("cluster");
    runJson["parallelism"]["dp"] = 2048;
    runJson["batch"]["global"] = 9 * 2048;
    const auto run = runFromJson(runJson, "limit", "", diags);
    INFO(diags.formatAll());
    REQUIRE(cluster);
    REQUIRE(run);
    checkRunOnCluster(*run, *cluster, "limit", "", diags);
    REQUIRE(diags.empty());
    CHECK(cluster->gpuCount() == kMaxGpus);

    const Topology topology(*cluster);
    CHECK(int64_t(topology.gpus().size()) == kMaxGpus);
    const Placement placement = placeRun(*run, *cluster);
    CHECK(placement.worldSize() == kMaxGpus);
    CHECK(placement.size(Dim::DP) == 2048);
    CHECK(placement.dimension(Dim::TP).insideDomain());

    const Evaluation e = evaluate(*cluster, *run);
    CHECK(std::isfinite(e.stepTimeS));
    CHECK(e.stepTimeS > 0);
    CHECK_FALSE(e.events.empty());
    for (const Event& ev : e.events) {
        CHECK(ev.end >= ev.start);
        CHECK(ev.end <= e.stepTimeS * (1 + 1e-9));
    }
}

TEST_CASE("one GPU over the limit, or an absurd product, is refused by name", "[limits]")
{
    struct Case {
        int64_t racks, nodes, gpus;
        const char* message;
    };
    const Case cases[] = {
        {43691, 3, 1, "the cluster has 131,073 GPUs; ClusterScope handles at most 131,072"},
        {65536, 1024, 72, "the cluster has 4,831,838,208 GPUs; ClusterScope handles at most"},
        {2000000000, 16, 4, "must be between 1 and 65536, got 2000000000"},
        {4, 16, int64_t(1) << 40, "must be between 1 and 72, got 1099511627776"},
    };
    for (const Case& c : cases) {
        Diagnostics diags;
        INFO(c.message);
        CHECK_FALSE(clusterFromJson(fairwaterWith(c.racks, c.nodes, c.gpus), "f", "", diags));
        INFO(diags.formatAll());
        CHECK(diags.contains(c.message));
    }
}
