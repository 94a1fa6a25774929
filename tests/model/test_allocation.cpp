// Issue 38: a run's `allocation` (formats.md): its ranges read and written back, each wrong
// value refused at its pointer, and the run placed on the healthy GPUs of its allocation only,
// dp derived from them.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "loader.h"
#include "placement.h"
#include "validation.h"
#include "writer.h"

using nlohmann::json;

namespace {

// 8 racks of 4 nodes of 8 H100: node = rack x 4 + node in the rack, GPU = node x 8 + GPU.
json clusterJson()
{
    return {{"format", cs::kClusterFormat},
            {"name", "c"},
            {"gpu", "H100"},
            {"racks", 8},
            {"nodes_per_rack", 4},
            {"gpus_per_node", 8},
            {"scale_up", {{"domain", "node"}, {"GBps_per_gpu", 900}}},
            {"scale_out", {{"Gbps_per_gpu", 400}}}};
}

json allocationRunJson(const json& allocation = nullptr)
{
    json j = {{"format", cs::kRunFormat},
              {"name", "r"},
              {"model",
               {{"layers", 32},
                {"hidden", 4096},
                {"ffn_hidden", 14336},
                {"heads", 32},
                {"kv_heads", 8},
                {"vocab", 128256},
                {"seq_len", 8192}}},
              {"precision", "bf16"},
              {"batch", {{"global", 512}, {"micro", 1}}},
              {"parallelism", {{"tp", 8}, {"pp", 2}}}};
    if (!allocation.is_null())
        j["allocation"] = allocation;
    return j;
}

cs::ClusterDesc allocationCluster(const json& failures = nullptr)
{
    json j = clusterJson();
    if (!failures.is_null())
        j["failures"] = failures;
    cs::Diagnostics diags;
    const auto c = cs::clusterFromJson(j, "c.json", "", diags);
    INFO(diags.formatAll());
    REQUIRE(c);
    return *c;
}

cs::RunDesc allocationRun(const json& allocation = nullptr)
{
    cs::Diagnostics diags;
    const auto r = cs::runFromJson(allocationRunJson(allocation), "r.run.json", "", diags);
    INFO(diags.formatAll());
    REQUIRE(r);
    return *r;
}

// Whether GPU g is in the allocation's GPU ranges.
bool holds(const cs::ClusterDesc& c, const cs::Allocation& a, int g)
{
    for (const auto& [first, end] : cs::allocatedGpuRanges(c, a))
        if (g >= first && g < end)
            return true;
    return false;
}

} // namespace

TEST_CASE("an allocation's ranges are read and written back", "[allocation]")
{
    using Unit = cs::Allocation::Unit;
    struct Case {
        json allocation;
        cs::Allocation expected;
    };
    const Case c = GENERATE(values<Case>({
        {{{"racks", {{0, 3}}}}, {Unit::Racks, {{0, 3}}}},
        {{{"racks", {{5, 5}, {0, 1}}}}, {Unit::Racks, {{5, 5}, {0, 1}}}},
        {{{"nodes", {{0, 255}}}}, {Unit::Nodes, {{0, 255}}}},
        {{{"nodes", {{3, 4}, {6, 9}, {12, 12}}}}, {Unit::Nodes, {{3, 4}, {6, 9}, {12, 12}}}},
    }));
    INFO(c.allocation.dump());
    const cs::RunDesc r = allocationRun(c.allocation);
    REQUIRE(r.allocation);
    CHECK(*r.allocation == c.expected);
    CHECK(cs::toJson(r)["allocation"] == c.allocation);
    cs::Diagnostics diags;
    CHECK(cs::runFromJson(cs::toJson(r), "again.run.json", "", diags) == r);
    // Without one, none is written.
    CHECK_FALSE(cs::toJson(allocationRun()).contains("allocation"));
}

TEST_CASE("each wrong allocation is refused naming the file, the pointer and the problem",
          "[allocation]")
{
    struct Case {
        json allocation;
        std::string pointer;
        std::string words;
    };
    json tooMany = json::array();
    for (int i = 0; i <= cs::kMaxAllocationRanges; ++i)
        tooMany.push_back({2 * i, 2 * i});
    const Case c = GENERATE_COPY(values<Case>({
        {{{"racks", {{0}}}}, "/allocation/racks/0", "expected [first, last], two rack indices"},
        {{{"racks", {{0, 1, 2}}}}, "/allocation/racks/0", "got an array of 3"},
        {{{"nodes", {{0, "3"}}}}, "/allocation/nodes/0", "two node indices (integers)"},
        {{{"nodes", {{0, 1.5}}}}, "/allocation/nodes/0", "two node indices (integers)"},
        {{{"racks", {7}}}, "/allocation/racks/0", "got a number"},
        {{{"racks", {{5, 3}}}}, "/allocation/racks/0", "first rack 5 is after last 3"},
        {{{"racks", {{-1, 2}}}}, "/allocation/racks/0/0", "rack index must be from 0 to 131,071"},
        {{{"nodes", {{0, 131072}}}}, "/allocation/nodes/0/1", "got 131072"},
        {{{"racks", {{0, 1}}}, {"nodes", {{0, 1}}}}, "/allocation", "both racks and nodes"},
        {json::object(), "/allocation", "needs \"racks\" or \"nodes\""},
        {{{"racks", json::array()}}, "/allocation/racks", "is empty"},
        {{{"racks", 3}}, "/allocation/racks", "expected an array"},
        {{{"nodes", {{0, 3}, {2, 5}}}},
         "/allocation/nodes/1",
         "overlaps range 0: both hold node 2"},
        {{{"racks", {{0, 1}}}, {"rack", 2}}, "/allocation/rack", "unknown key"},
        {{{"racks", tooMany}}, "/allocation/racks", "at most 4,096"},
        {json::array(), "/allocation", "expected an object"},
    }));
    INFO(c.allocation.dump().substr(0, 200));
    cs::Diagnostics diags;
    CHECK_FALSE(cs::runFromJson(allocationRunJson(c.allocation), "r.run.json", "", diags));
    INFO(diags.formatAll());
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].file == "r.run.json");
    CHECK(diags.items()[0].pointer == c.pointer);
    CHECK_THAT(diags.items()[0].message, Catch::Contains(c.words));
}

TEST_CASE("an allocation past the cluster is refused naming its last rack or node", "[allocation]")
{
    struct Case {
        json allocation;
        std::string pointer;
        std::string words;
    };
    const Case c = GENERATE(values<Case>({
        {{{"racks", {{0, 70}}}},
         "/allocation/racks/0/1",
         "allocation rack 70 is past the cluster's last rack 7"},
        {{{"racks", {{0, 1}, {8, 8}}}},
         "/allocation/racks/1/1",
         "allocation rack 8 is past the cluster's last rack 7"},
        {{{"nodes", {{30, 40}}}},
         "/allocation/nodes/0/1",
         "allocation node 40 is past the cluster's last node 31"},
    }));
    cs::Diagnostics diags;
    cs::checkRunOnCluster(allocationRun(c.allocation), allocationCluster(), "r.run.json", "",
                          diags);
    INFO(diags.formatAll());
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].pointer == c.pointer);
    CHECK(diags.items()[0].message == c.words);
}

TEST_CASE("an allocation holds the healthy GPUs of its racks or nodes", "[allocation]")
{
    struct Case {
        json allocation; // null: none
        json failures;
        int64_t gpus;
    };
    const Case c = GENERATE(values<Case>({
        {nullptr, nullptr, 256},
        {nullptr, {{"nodes", {9}}}, 248},
        {{{"racks", {{2, 3}}}}, nullptr, 64},
        {{{"racks", {{2, 3}}}}, {{"nodes", {9}}}, 56}, // node 9 is in rack 2
        {{{"racks", {{2, 3}}}}, {{"nodes", {1}}}, 64}, // rack 0: another job's
        {{{"racks", {{2, 3}}}}, {{"gpus", {70, 71, 200}}}, 62},
        {{{"racks", {{2, 3}}}}, {{"racks", {3, 5}}}, 32},
        {{{"nodes", {{0, 0}, {2, 3}}}}, nullptr, 24},
        {{{"nodes", {{0, 0}, {2, 3}}}}, {{"nodes", {0, 1}}, {"gpus", {16}}}, 15},
        {{{"racks", {{2, 2}}}}, {{"racks", {2}}}, 0},
    }));
    INFO(c.allocation.dump() << " failures " << c.failures.dump());
    CHECK(cs::allocatedGpuCount(allocationCluster(c.failures), allocationRun(c.allocation)) ==
          c.gpus);
}

TEST_CASE("dp is derived from the allocation's healthy GPUs", "[allocation]")
{
    struct Case {
        json allocation;
        json failures;
        int dp; // tp 8 x pp 2 ranks per data-parallel replica
    };
    const Case c = GENERATE(values<Case>({
        {nullptr, nullptr, 16},
        {{{"racks", {{0, 1}}}}, nullptr, 4},
        {{{"racks", {{0, 1}}}}, {{"racks", {1}}}, 2},
        {{{"racks", {{0, 1}}}}, {{"racks", {4}}}, 4},
        {{{"nodes", {{4, 5}}}}, nullptr, 1},
    }));
    const cs::ClusterDesc cl = allocationCluster(c.failures);
    const cs::RunDesc r = allocationRun(c.allocation);
    cs::Diagnostics diags;
    cs::checkRunOnCluster(r, cl, "r.run.json", "", diags);
    INFO(diags.formatAll());
    CHECK(diags.empty());
    CHECK(r.dpFor(cs::allocatedGpuCount(cl, r)) == c.dp);
    CHECK(cs::placeRun(r, cl).size(cs::Dim::DP) == c.dp);
}

TEST_CASE("the GPU rules name the allocation when the run has one", "[allocation]")
{
    struct Case {
        json allocation;
        json failures;
        json parallelism;
        std::string pointer;
        std::string message;
    };
    const Case c = GENERATE(values<Case>({
        {{{"racks", {{0, 1}}}},
         {{"gpus", {3}}},
         {{"tp", 8}, {"pp", 2}},
         "/parallelism",
         "the allocation's 63 healthy GPUs do not divide by tp x cp x pp = 8 x 1 x 2 = 16, so "
         "dp cannot be derived"},
        {{{"nodes", {{0, 1}}}},
         nullptr,
         {{"tp", 8}, {"dp", 4}},
         "/parallelism/dp",
         "tp x cp x pp x dp = 8 x 1 x 1 x 4 = 32, but the allocation has 16 GPUs"},
        {{{"racks", {{0, 1}}}},
         nullptr,
         {{"tp", 8}},
         "/batch/global",
         "global batch 500 must be divisible by dp x micro = 8 x 1 = 8 (dp derived from the "
         "allocation's 64 GPUs)"},
        {{{"racks", {{2, 2}}}},
         {{"racks", {2}}},
         {{"tp", 8}},
         "/allocation",
         "the allocation's 32 GPUs are all out of service"},
    }));
    json j = allocationRunJson(c.allocation);
    j["parallelism"] = c.parallelism;
    if (c.pointer == "/batch/global")
        j["batch"]["global"] = 500;
    cs::Diagnostics diags;
    const auto r = cs::runFromJson(j, "r.run.json", "", diags);
    REQUIRE(r);
    cs::checkRunOnCluster(*r, allocationCluster(c.failures), "r.run.json", "", diags);
    INFO(diags.formatAll());
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].pointer == c.pointer);
    CHECK_THAT(diags.items()[0].message, Catch::Contains(c.message));
}

TEST_CASE("a job's ranks stay on the healthy GPUs of its allocation, in order", "[allocation]")
{
    struct Case {
        json allocation;
        json failures;
    };
    const Case c = GENERATE(values<Case>({
        {{{"racks", {{2, 3}}}}, nullptr},
        {{{"racks", {{6, 7}, {0, 1}}}}, nullptr},
        {{{"racks", {{2, 3}}}}, {{"nodes", {9}}, {"gpus", {100}}}},
        {{{"nodes", {{1, 2}, {5, 6}, {20, 25}}}}, {{"gpus", {9, 10, 11, 12, 13, 14, 15, 16}}}},
    }));
    INFO(c.allocation.dump() << " failures " << c.failures.dump());
    const cs::ClusterDesc cl = allocationCluster(c.failures);
    json j = allocationRunJson(c.allocation);
    j["parallelism"] = {{"tp", 1}}; // a rank per GPU, whatever the count
    cs::Diagnostics diags;
    const auto r = cs::runFromJson(j, "r.run.json", "", diags);
    REQUIRE(r);
    const std::vector<bool> healthy = cl.healthyGpus();
    const std::vector<int> gpus = cs::allocatedGpuIndices(cl, *r);
    REQUIRE(int64_t(gpus.size()) == cs::allocatedGpuCount(cl, *r));
    const cs::Placement p = cs::placeRun(*r, cl);
    REQUIRE(p.worldSize() == int(gpus.size()));
    int previous = -1;
    for (int rank = 0; rank < p.worldSize(); ++rank) {
        const int g = p.gpuOfRank(rank);
        INFO("rank " << rank << " on GPU " << g);
        CHECK(holds(cl, *r->allocation, g));
        CHECK(healthy[size_t(g)]);
        CHECK(g > previous);
        CHECK(p.rankOfGpu(g) == rank);
        previous = g;
    }
    for (int g = 0; g < int(cl.gpuCount()); ++g)
        if (!holds(cl, *r->allocation, g))
            CHECK(p.rankOfGpu(g) == -1);
}

TEST_CASE("failures inside one job's allocation shrink only that job", "[allocation]")
{
    const cs::RunDesc a = allocationRun({{"racks", {{0, 3}}}});
    const cs::RunDesc b = allocationRun({{"racks", {{4, 7}}}});
    const cs::ClusterDesc before = allocationCluster();
    const cs::ClusterDesc after = allocationCluster({{"racks", {5}}}); // b's
    CHECK(cs::allocatedGpuCount(after, a) == cs::allocatedGpuCount(before, a));
    CHECK(cs::allocatedGpuCount(after, b) == cs::allocatedGpuCount(before, b) - 32);
    CHECK(cs::allocatedGpuIndices(after, a) == cs::allocatedGpuIndices(before, a));
    const cs::Placement pa = cs::placeRun(a, before), qa = cs::placeRun(a, after);
    REQUIRE(qa.worldSize() == pa.worldSize());
    for (int rank = 0; rank < pa.worldSize(); ++rank)
        CHECK(qa.gpuOfRank(rank) == pa.gpuOfRank(rank));
    CHECK(cs::placeRun(b, before).size(cs::Dim::DP) == 8);
    CHECK(cs::placeRun(b, after).size(cs::Dim::DP) == 6);
}

TEST_CASE("a run without an allocation is placed as before", "[allocation]")
{
    const cs::RunDesc r = allocationRun();
    SECTION("on a healthy cluster, rank r on GPU r")
    {
        const cs::ClusterDesc cl = allocationCluster();
        CHECK(cs::allocatedGpuIndices(cl, r).empty());
        const cs::Placement p = cs::placeRun(r, cl);
        REQUIRE(p.worldSize() == 256);
        for (int rank = 0; rank < p.worldSize(); ++rank)
            CHECK(p.gpuOfRank(rank) == rank);
    }
    SECTION("with failures, on the cluster's healthy GPUs from the first")
    {
        const cs::ClusterDesc cl = allocationCluster({{"racks", {7}}});
        CHECK(cs::allocatedGpuIndices(cl, r) == cs::healthyGpuIndices(cl));
        CHECK(cs::placeRun(r, cl).worldSize() == 224);
        // The whole cluster as an allocation places the same.
        const cs::RunDesc whole = allocationRun({{"racks", {{0, 7}}}});
        const cs::Placement p = cs::placeRun(r, cl), q = cs::placeRun(whole, cl);
        REQUIRE(q.worldSize() == p.worldSize());
        for (int rank = 0; rank < p.worldSize(); ++rank)
            CHECK(q.gpuOfRank(rank) == p.gpuOfRank(rank));
    }
}
