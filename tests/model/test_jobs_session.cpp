// Issue 38: a session holding several jobs on one cluster (formats.md "Several jobs on one
// cluster"): written and read back the same, each job's problems at its pointer, overlapping
// allocations refused naming both jobs and the first shared node, and an allocation that splits
// an NVLink domain said.

#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "../helpers/bounded.h"
#include "clicommands.h"
#include "comparison.h"
#include "loader.h"
#include "validation.h"
#include "writer.h"

using nlohmann::json;

namespace {

// 8 racks of 4 nodes of 8 H100 (node-wide NVLink): node = rack x 4 + node in the rack.
json h100Cluster()
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

// 2 GB200 NVL72 racks of 18 nodes of 4 GPUs, a rack one NVLink domain.
json nvl72Cluster()
{
    return {{"format", cs::kClusterFormat},
            {"name", "nvl72"},
            {"gpu", "GB200"},
            {"racks", 2},
            {"nodes_per_rack", 18},
            {"gpus_per_node", 4},
            {"scale_up", {{"domain", "rack"}, {"GBps_per_gpu", 1800}}},
            {"scale_out", {{"Gbps_per_gpu", 400}}}};
}

// A tensor-parallel-4 run named `name` on `allocation` (null: none); dp derived.
json runJson(const std::string& name, const json& allocation)
{
    json j = {{"format", cs::kRunFormat},
              {"name", name},
              {"model",
               {{"layers", 8},
                {"hidden", 2048},
                {"ffn_hidden", 8192},
                {"heads", 16},
                {"vocab", 32000},
                {"seq_len", 4096}}},
              {"precision", "bf16"},
              {"batch", {{"global", 576}, {"micro", 1}}},
              {"parallelism", {{"tp", 4}}}};
    if (!allocation.is_null())
        j["allocation"] = allocation;
    return j;
}

json racks(int first, int last)
{
    return {{"racks", {{first, last}}}};
}

json nodeRange(int first, int last)
{
    return {{"nodes", {{first, last}}}};
}

// A session of the cluster, its run and the other jobs' runs.
json sessionJson(const json& cluster, const json& run, const std::vector<json>& jobs)
{
    json j = {{"format", cs::kSessionFormat}, {"cluster", cluster}, {"run", run}};
    if (!jobs.empty()) {
        j["jobs"] = json::array();
        for (const json& job : jobs)
            j["jobs"].push_back({{"run", job}});
    }
    return j;
}

std::optional<cs::Session> load(const json& j, cs::Diagnostics& diags)
{
    return cs::sessionFromJson(j, "s.csession", diags);
}

} // namespace

TEST_CASE("a session with jobs is written and read back the same", "[jobs][session]")
{
    const json j = sessionJson(
        h100Cluster(), runJson("main", racks(0, 1)),
        {runJson("second", racks(2, 5)), runJson("third", {{"nodes", {{24, 27}, {30, 31}}}})});
    cs::Diagnostics diags;
    const auto session = load(j, diags);
    INFO(diags.formatAll());
    REQUIRE(session);
    REQUIRE(session->jobs.size() == 2);
    CHECK(session->run.name == "main");
    CHECK(session->jobs[1].name == "third");
    CHECK(session->jobs[1].allocation->unit == cs::Allocation::Unit::Nodes);
    CHECK(cs::sessionRuns(*session).size() == 3);

    // Through the file's text, with the parser's per-part limits.
    const std::string text = cs::toJson(*session).dump(2);
    CHECK(cs::checkReadsBack(text, "s.csession", diags));
    const auto parsed = cs::parseJson(text, "s.csession", diags);
    REQUIRE(parsed);
    CHECK((*parsed)["jobs"].size() == 2);
    CHECK(load(*parsed, diags) == *session);
    CHECK(diags.empty());

    // A session of one run keeps no `jobs`.
    cs::Session single = *session;
    single.jobs.clear();
    CHECK_FALSE(cs::toJson(single).contains("jobs"));
}

TEST_CASE("a job's problems are reported at its pointer in the session", "[jobs][session]")
{
    struct Case {
        std::vector<json> jobs;
        std::string pointer;
        std::string words;
    };
    json badRange = runJson("b", racks(2, 3));
    badRange["allocation"]["racks"][0] = {3, 2};
    const Case c = GENERATE_COPY(values<Case>({
        {{runJson("b", racks(2, 3)), badRange},
         "/jobs/1/run/allocation/racks/0",
         "first rack 3 is after last 2"},
        {{runJson("b", racks(2, 9))},
         "/jobs/0/run/allocation/racks/0/1",
         "allocation rack 9 is past the cluster's last rack 7"},
        {{runJson("b", nullptr)}, "/jobs/0/run", "job \"b\" needs an allocation"},
        {{runJson("b", racks(6, 7)), runJson("c", racks(2, 2))},
         "/jobs/1/run/parallelism",
         "the allocation's 32 GPUs do not divide"},
    }));
    json j = sessionJson(h100Cluster(), runJson("a", racks(0, 1)), c.jobs);
    if (c.words == "the allocation's 32 GPUs do not divide")
        j["jobs"][1]["run"]["parallelism"]["pp"] = 3;
    cs::Diagnostics diags;
    CHECK_FALSE(load(j, diags));
    INFO(diags.formatAll());
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].file == "s.csession");
    CHECK(diags.items()[0].pointer == c.pointer);
    CHECK_THAT(diags.items()[0].message, Catch::Contains(c.words));
}

TEST_CASE("a job entry holds its run and nothing else", "[jobs][session]")
{
    struct Case {
        json entry;
        std::string pointer;
        std::string words;
    };
    const Case c = GENERATE(values<Case>({
        {json::object(), "/jobs/0/run", "missing"},
        {{{"run", runJson("b", racks(2, 3))}, {"notes", "kept nowhere"}},
         "/jobs/0/notes",
         "a job holds only its \"run\""},
        {json::array(), "/jobs/0", "expected a job object"},
        {{{"run", 3}}, "/jobs/0/run", "expected an object"},
    }));
    json j = sessionJson(h100Cluster(), runJson("a", racks(0, 1)), {});
    j["jobs"] = json::array({c.entry});
    cs::Diagnostics diags;
    CHECK_FALSE(load(j, diags));
    INFO(diags.formatAll());
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].pointer == c.pointer);
    CHECK_THAT(diags.items()[0].message, Catch::Contains(c.words));
}

TEST_CASE("a session holds at most 64 jobs, its run among them", "[jobs][session][limits]")
{
    // 64 jobs on one node each: the run on node 0, the others on nodes 1 to 63 of 64.
    json cluster = h100Cluster();
    cluster["racks"] = 16;
    const int jobs = GENERATE(63, 64);
    std::vector<json> others;
    for (int n = 1; n <= jobs; ++n)
        others.push_back(runJson("job " + std::to_string(n), nodeRange(n, n)));
    const json j = sessionJson(cluster, runJson("job 0", nodeRange(0, 0)), others);
    cs::Diagnostics diags;
    const auto session = load(j, diags);
    INFO(diags.formatAll());
    if (jobs + 1 <= cs::kMaxSessionJobs) {
        REQUIRE(session);
        CHECK(session->jobs.size() == size_t(jobs));
        const auto parsed = cs::parseJson(cs::toJson(*session).dump(2), "s.csession", diags);
        REQUIRE(parsed);
        CHECK(load(*parsed, diags) == *session);
    } else {
        CHECK_FALSE(session);
        REQUIRE(diags.size() == 1);
        CHECK(diags.items()[0].pointer == "/jobs");
        CHECK_THAT(diags.items()[0].message,
                   Catch::Contains("lists 64 jobs beside the session's run; a session holds at "
                                   "most 64 jobs"));
    }
}

TEST_CASE("overlapping allocations are refused naming both jobs and the first shared node",
          "[jobs][session]")
{
    struct Case {
        json a, b, c; // c null: two jobs
        std::string pointer;
        std::string message;
    };
    const Case c = GENERATE(values<Case>({
        {racks(0, 4), nodeRange(17, 20), nullptr, "/jobs/0/run/allocation",
         "jobs \"a\" and \"b\" both hold node 17 (rack 4)"},
        {racks(2, 3), racks(3, 3), nullptr, "/jobs/0/run/allocation",
         "jobs \"a\" and \"b\" both hold node 12 (rack 3)"},
        {{{"nodes", {{0, 3}, {30, 31}}}},
         racks(4, 7),
         nullptr,
         "/jobs/0/run/allocation",
         "jobs \"a\" and \"b\" both hold node 30 (rack 7)"},
        {racks(0, 1),
         racks(2, 3),
         {{"nodes", {{20, 20}, {4, 7}}}},
         "/jobs/1/run/allocation",
         "jobs \"a\" and \"c\" both hold node 4 (rack 1)"},
    }));
    std::vector<json> jobs{runJson("b", c.b)};
    if (!c.c.is_null())
        jobs.push_back(runJson("c", c.c));
    // dp given, so that every allocation holds the run whatever its size.
    json a = runJson("a", c.a);
    for (json* run : {&a, &jobs.front(), &jobs.back()})
        (*run)["parallelism"]["dp"] = 1;
    cs::Diagnostics diags;
    CHECK_FALSE(load(sessionJson(h100Cluster(), a, jobs), diags));
    INFO(diags.formatAll());
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].pointer == c.pointer);
    CHECK(diags.items()[0].message == c.message);
}

TEST_CASE("an allocation by nodes that splits an NVLink domain is said, and allowed", "[jobs]")
{
    struct Case {
        json cluster;
        json allocation;
        std::string warning; // empty: none
    };
    const Case c = GENERATE(values<Case>({
        {nvl72Cluster(), nodeRange(0, 8),
         "job \"b\" splits the NVLink domain of rack 0: it holds 9 of the rack's 18 nodes; "
         "NVLink domains are not shared between jobs"},
        {nvl72Cluster(), nodeRange(27, 35), "of rack 1: it holds 9 of the rack's 18 nodes"},
        {nvl72Cluster(), nodeRange(18, 35), ""},
        {nvl72Cluster(), racks(1, 1), ""},
        {h100Cluster(), nodeRange(17, 18), ""}, // a node is the domain
    }));
    cs::Diagnostics diags;
    const auto cluster = cs::clusterFromJson(c.cluster, "c.json", "/cluster", diags);
    const auto run = cs::runFromJson(runJson("b", c.allocation), "b.run.json", "", diags);
    REQUIRE(cluster);
    REQUIRE(run);
    cs::Diagnostics warnings;
    cs::checkJobs(*cluster, {*run}, {{"b.run.json", ""}}, diags, &warnings);
    INFO(diags.formatAll() << warnings.formatAll());
    CHECK(diags.empty());
    if (c.warning.empty()) {
        CHECK(warnings.empty());
    } else {
        REQUIRE(warnings.size() == 1);
        CHECK(warnings.items()[0].pointer == "/allocation");
        CHECK_THAT(warnings.items()[0].message, Catch::Contains(c.warning));
    }
}

TEST_CASE("jobs from several files are checked with their own files and pointers", "[jobs]")
{
    cs::Diagnostics diags;
    const auto cluster = cs::clusterFromJson(h100Cluster(), "c.json", "", diags);
    const auto a = cs::runFromJson(runJson("a", racks(0, 3)), "a.run.json", "", diags);
    const auto b = cs::runFromJson(runJson("b", nullptr), "b.run.json", "", diags);
    REQUIRE(diags.empty());
    cs::checkJobs(*cluster, {*a, *b}, {{"a.run.json", ""}, {"b.run.json", ""}}, diags);
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].file == "b.run.json");
    CHECK(diags.items()[0].pointer.empty());
    CHECK(diags.items()[0].message ==
          "job \"b\" needs an allocation: with 2 jobs on the cluster each says which racks or "
          "nodes it occupies");
    CHECK(cs::sessionRunSources("s.csession", 2).back().pointer == "/jobs/1/run");
}

TEST_CASE("runs on different allocations compare, the allocation named as an input",
          "[jobs][compare]")
{
    cs::Diagnostics diags;
    const auto cluster = cs::clusterFromJson(h100Cluster(), "c.json", "", diags);
    const auto a = cs::runFromJson(runJson("a", racks(0, 1)), "a.run.json", "", diags);
    const auto b =
        cs::runFromJson(runJson("b", {{"racks", {{2, 3}, {6, 7}}}}), "b.run.json", "", diags);
    REQUIRE(diags.empty());
    const auto differences = cs::inputDifferences({*cluster, *a}, {*cluster, *b});
    const auto allocation =
        std::find_if(differences.begin(), differences.end(), [](const cs::InputDifference& d) {
            return d.path == "/run/allocation/racks";
        });
    REQUIRE(allocation != differences.end());
    CHECK(allocation->label == "allocated racks");
    CHECK(cs::inputText(allocation->a) == "0-1");
    CHECK(cs::inputText(allocation->b) == "2-3, 6-7");
    // dp is resolved from each allocation: 64 GPUs / tp 4 against 128 / tp 4.
    const auto dp =
        std::find_if(differences.begin(), differences.end(),
                     [](const cs::InputDifference& d) { return d.path == "/run/parallelism/dp"; });
    REQUIRE(dp != differences.end());
    CHECK(dp->a == 16);
    CHECK(dp->b == 32);
}

TEST_CASE("a comparison puts B on A's allocation once, whatever kind of ranges each has",
          "[jobs][compare]")
{
    cs::Diagnostics diags;
    const auto cluster = cs::clusterFromJson(h100Cluster(), "c.json", "", diags);
    const json allocationB = GENERATE(json(racks(4, 5)), json(nodeRange(16, 23)));
    const auto a = cs::runFromJson(runJson("a", racks(0, 1)), "a.run.json", "", diags);
    const auto b = cs::runFromJson(runJson("b", allocationB), "b.run.json", "", diags);
    REQUIRE(diags.empty());
    const cs::Comparison c = cs::compareRuns({*cluster, *a}, {*cluster, *b});
    CHECK(c.evalA.gpusUsed == 64);
    CHECK(c.evalB.gpusUsed == 64);
    const auto onA =
        std::count_if(c.oneAtATime.begin(), c.oneAtATime.end(),
                      [](const cs::WhatIf& w) { return w.label == "B on A's allocation"; });
    CHECK(onA == 1);
    for (const cs::WhatIf& w : c.oneAtATime) {
        INFO(w.label << ": " << w.why);
        CHECK(w.valid);
    }
}

// The most a session may ask of the jobs' checks: 64 jobs of 4,096 ranges each on 131,072 GPUs,
// every pair sharing node 0. `check` ends, in bounded memory, naming the first pair.
TEST_CASE("check of a session of 64 jobs of 4,096 ranges each ends naming the shared node",
          "[jobs][session][hostile]")
{
    json cluster = h100Cluster();
    cluster["racks"] = 4096; // 16,384 nodes
    json allocation = json::array();
    for (int i = 0; i < cs::kMaxAllocationRanges; ++i)
        allocation.push_back({2 * i, 2 * i});
    json run = runJson("job", {{"nodes", allocation}});
    run["parallelism"]["dp"] = 1;
    const std::vector<json> others(size_t(cs::kMaxSessionJobs - 1), run);
    testing::ScratchDir dir;
    const std::string path = dir.path("many.csession");
    testing::writeContent(path, sessionJson(cluster, run, others).dump());
    const testing::BoundedRun r = testing::runBounded(
        [&](std::ostream& out, std::ostream& err) {
            return cs::cli::run({"check", path}, {out, err});
        },
        1024, 300);
    INFO(r.describe());
    CHECK(r.clean());
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Catch::Contains("/jobs/0/run/allocation: jobs \"job\" and \"job\" both "
                                      "hold node 0 (rack 0)"));
}
