// Every value rule of formats.md, one changed field at a time: each must be refused with its
// own message at the pointer of the field to fix.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "loader.h"
#include "validation.h"
#include "writer.h"

using nlohmann::json;

namespace {

json validCluster()
{
    return {{"format", cs::kClusterFormat},
            {"name", "c"},
            {"gpu", "H100"},
            {"racks", 4},
            {"nodes_per_rack", 4},
            {"gpus_per_node", 8},
            {"scale_up", {{"domain", "node"}, {"GBps_per_gpu", 900}}},
            {"scale_out", {{"Gbps_per_gpu", 400}}}};
}

json validRun()
{
    return {{"format", cs::kRunFormat},
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
            {"parallelism", {{"tp", 8}, {"cp", 2}, {"pp", 2}, {"vp", 2}}}};
}

struct Change {
    std::string pointer; // the field to change
    json value;          // null: remove the field
};

struct Rule {
    std::vector<Change> changes;
    std::string pointer; // where the problem must be reported
    std::string message;
};

json changed(json j, const std::vector<Change>& changes)
{
    for (const Change& c : changes) {
        const json::json_pointer at(c.pointer);
        if (c.value.is_null())
            j[at.parent_pointer()].erase(at.back());
        else
            j[at] = c.value;
    }
    return j;
}

void checkRefused(const cs::Diagnostics& diags, const Rule& rule)
{
    INFO(diags.formatAll());
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].pointer == rule.pointer);
    CHECK_THAT(diags.items()[0].message, Catch::Contains(rule.message));
}

} // namespace

TEST_CASE("the base descriptions of this file are valid", "[validation]")
{
    cs::Diagnostics diags;
    const auto cluster = cs::clusterFromJson(validCluster(), "c.json", "", diags);
    const auto run = cs::runFromJson(validRun(), "r.json", "", diags);
    REQUIRE(cluster);
    REQUIRE(run);
    cs::checkRunOnCluster(*run, *cluster, "r.json", "", diags);
    CHECK(diags.empty());
}

TEST_CASE("cluster rules", "[validation]")
{
    const std::vector<Rule> rules{
        {{{"/racks", "4"}}, "/racks", "expected an integer, got a string"},
        {{{"/racks", 0}}, "/racks", "must be between 1 and 65536, got 0"},
        {{{"/racks", 1.5}}, "/racks", "expected an integer, got 1.5"},
        {{{"/nodes_per_rack", 1025}}, "/nodes_per_rack", "must be between 1 and 1024, got 1025"},
        {{{"/gpus_per_node", 73}}, "/gpus_per_node", "must be between 1 and 72, got 73"},
        {{{"/racks", 2048}, {"/nodes_per_rack", 32}},
         "/racks",
         "the cluster has 524,288 GPUs; ClusterScope handles at most 131,072"},
        {{{"/racks", 65536}, {"/nodes_per_rack", 1024}, {"/gpus_per_node", 72}},
         "/racks",
         "the cluster has 4,831,838,208 GPUs"},
        {{{"/racks", nullptr}}, "/racks", "missing required key \"racks\""},
        {{{"/name", nullptr}}, "/name", "missing required key \"name\""},
        {{{"/format", "clusterscope/run@1"}}, "/format", "must be \"clusterscope/cluster@1\""},
        {{{"/gpu", "H300"}}, "/gpu", "unknown GPU \"H300\"; the catalog has A100, H100"},
        {{{"/gpu", 5}}, "/gpu", "expected a catalog GPU name or an object, got a number"},
        {{{"/gpu", {{"name", "X1"}, {"peak_tflops", {{"bf16", 100}}}, {"hbm_gib", 80}}}},
         "/gpu/hbm_TBps",
         "missing required key \"hbm_TBps\""},
        {{{"/gpu", {{"name", "H100"}, {"peak_tflops", {{"fp4", 1}}}}}},
         "/gpu/peak_tflops/fp4",
         "unknown key \"fp4\""},
        {{{"/gpu", {{"name", "H100"}, {"hbm_TBps", 0}}}},
         "/gpu/hbm_TBps",
         "must be between 0.1 and 1000, got 0"},
        {{{"/layout", {{"rows", 5}}}}, "/layout/rows", "must be between 1 and 4, got 5"},
        {{{"/layout", {{"columns", 2}}}}, "/layout/columns", "unknown key \"columns\""},
        {{{"/scale_up/domain", "board"}},
         "/scale_up/domain",
         "must be one of node, rack; got \"board\""},
        {{{"/scale_up/domain", nullptr}}, "/scale_up/domain", "missing required key \"domain\""},
        {{{"/scale_up/GBps_per_gpu", 0}},
         "/scale_up/GBps_per_gpu",
         "must be between 1 and 100000, got 0"},
        {{{"/scale_up/latency_us", -1}},
         "/scale_up/latency_us",
         "must be between 0 and 10000, got -1"},
        {{{"/scale_out/Gbps_per_gpu", 1e6}},
         "/scale_out/Gbps_per_gpu",
         "must be between 1 and 100000"},
        {{{"/scale_out/latency_us", 20000}},
         "/scale_out/latency_us",
         "must be between 0 and 10000"},
        {{{"/scale_out/topology", {{"kind", "torus"}}}},
         "/scale_out/topology/kind",
         "must be one of rail-optimized, fat-tree; got \"torus\""},
        {{{"/scale_out/topology", {{"tiers", 0}}}},
         "/scale_out/topology/tiers",
         "must be between 1 and 3, got 0"},
        {{{"/scale_out/topology", {{"oversubscription", 65}}}},
         "/scale_out/topology/oversubscription",
         "must be between 1 and 64, got 65"},
        {{{"/overheads", {{"virtualization", 0.51}}}},
         "/overheads/virtualization",
         "must be between 0 and 0.5, got 0.51"},
        {{{"/overheads", {{"virtualization", true}}}},
         "/overheads/virtualization",
         "expected a number, got a boolean"},
        {{{"/scale_up", "NVLink"}}, "/scale_up", "expected an object, got a string"},
        {{{"/scale_ou", 1}}, "/scale_ou", "unknown key \"scale_ou\""},
    };
    for (const Rule& rule : rules) {
        cs::Diagnostics diags;
        const json j = changed(validCluster(), rule.changes);
        INFO(j.dump());
        CHECK_FALSE(cs::clusterFromJson(j, "c.json", "", diags));
        checkRefused(diags, rule);
    }
}

TEST_CASE("run rules", "[validation]")
{
    const std::vector<Rule> rules{
        {{{"/model/heads", 36}, {"/model/kv_heads", 4}},
         "/parallelism/tp",
         "tp = 8 must divide the model's 36 attention heads"},
        {{{"/model/heads", 48}, {"/model/kv_heads", 12}},
         "/model/kv_heads",
         "kv_heads = 12 and tp = 8: one must divide the other"},
        {{{"/model/heads", 40}, {"/model/kv_heads", 16}},
         "/model/kv_heads",
         "kv_heads = 16 must divide heads = 40"},
        {{{"/model/seq_len", 8190}},
         "/model/seq_len",
         "seq_len = 8190 must be divisible by 2 x cp = 4"},
        {{{"/model/layers", 1}},
         "/model/layers",
         "layers = 1 and the embedding and the loss, a stage each at most, are fewer than pp x "
         "vp = 2 x 2 = 4"},
        {{{"/parallelism/pp", 1}}, "/parallelism/vp", "vp = 2 needs pp > 1"},
        {{{"/parallelism/dp", 6}},
         "/batch/global",
         "global batch 512 must be divisible by dp x micro = 6 x 1 = 6"},
        {{{"/parallelism/dp", 8}, {"/batch/micro", 3}},
         "/batch/global",
         "must be divisible by dp x micro = 8 x 3 = 24"},
        {{{"/placement", {"tp", "cp", "pp"}}},
         "/placement",
         "must list tp, cp, pp and dp once each; missing dp"},
        {{{"/placement", {"dp", "dp", "tp", "cp", "pp"}}}, "/placement", "repeated dp"},
        {{{"/placement", {"tp", "cp", 3, "dp"}}},
         "/placement/2",
         "must be one of tp, cp, pp, dp; got a number"},
        {{{"/placement", "tp,cp,pp,dp"}}, "/placement", "expected an array, got a string"},
        {{{"/parallelism/recompute", "some"}},
         "/parallelism/recompute",
         "must be one of none, selective, full; got \"some\""},
        {{{"/precision", "fp16"}}, "/precision", "must be one of bf16, fp8, nvfp4; got \"fp16\""},
        {{{"/precision", nullptr}}, "/precision", "missing required key \"precision\""},
        {{{"/model/vocab", nullptr}}, "/model/vocab", "missing required key \"vocab\""},
        {{{"/model/heads", 5000}}, "/model/heads", "must be between 1 and 4096, got 5000"},
        {{{"/parallelism/tp", 0}}, "/parallelism/tp", "must be between 1 and 131072, got 0"},
        {{{"/parallelism/sequence_parallel", 1}},
         "/parallelism/sequence_parallel",
         "expected true or false, got a number"},
        {{{"/batch/global", 99999999999.0}}, "/batch/global", "must be between 1 and 16777216"},
        {{{"/batch/micro", -1}}, "/batch/micro", "must be between 1 and 65536, got -1"},
        {{{"/cluster", ""}}, "/cluster", "must name a cluster file"},
        {{{"/training", {{"steps", 0}}}},
         "/training/steps",
         "must be between 1 and 1000000000, got 0"},
        {{{"/measured", {{"source", "x"}}}},
         "/measured/step_time_s",
         "missing required key \"step_time_s\""},
        {{{"/model/experts", 8}}, "/model/experts", "unknown key \"experts\""},
    };
    for (const Rule& rule : rules) {
        cs::Diagnostics diags;
        const json j = changed(validRun(), rule.changes);
        INFO(j.dump());
        CHECK_FALSE(cs::runFromJson(j, "r.json", "", diags));
        checkRefused(diags, rule);
    }
}

TEST_CASE("rules between a run and its cluster", "[validation]")
{
    const std::vector<Rule> rules{
        {{{"/parallelism/dp", 16}},
         "/run/parallelism/dp",
         "tp x cp x pp x dp = 8 x 2 x 2 x 16 = 512, but the cluster has 128 GPUs"},
        {{{"/parallelism/tp", 4}, {"/parallelism/cp", 3}, {"/model/seq_len", 8184}},
         "/run/parallelism",
         "the cluster's 128 GPUs do not divide by tp x cp x pp = 4 x 3 x 2 = 24"},
        {{{"/batch/global", 102}},
         "/run/batch/global",
         "global batch 102 must be divisible by dp x micro = 4 x 1 = 4 (dp derived"},
        {{{"/precision", "nvfp4"}},
         "/run/precision",
         "the H100 has no nvfp4 peak; it supports bf16, fp8"},
        {{{"/batch/global", 2097156}},
         "/run/batch/global",
         "global / (dp x micro) = 524,289 micro-batches per pipeline x pp 2 x vp 2 = 2,097,156 "
         "passes through a pipeline chunk per step; ClusterScope simulates at most 2,097,152"},
    };
    cs::Diagnostics clusterDiags;
    const cs::ClusterDesc cluster = *cs::clusterFromJson(validCluster(), "c", "", clusterDiags);
    for (const Rule& rule : rules) {
        cs::Diagnostics diags;
        const json j = changed(validRun(), rule.changes);
        INFO(j.dump());
        const auto run = cs::runFromJson(j, "s.csession", "/run", diags);
        REQUIRE(run);
        cs::checkRunOnCluster(*run, cluster, "s.csession", "/run", diags);
        checkRefused(diags, rule);
    }
}

TEST_CASE("every problem of a description is reported, not just the first", "[validation]")
{
    const json j = changed(validCluster(), {{"/racks", "many"},
                                            {"/gpu", "H300"},
                                            {"/scale_up/GBps_per_gpu", -5},
                                            {"/scale_out", nullptr},
                                            {"/x-mine", 1},
                                            {"/colour", "red"}});
    cs::Diagnostics diags;
    CHECK_FALSE(cs::clusterFromJson(j, "c.json", "/cluster", diags));
    std::vector<std::string> pointers;
    for (const cs::Diagnostic& d : diags.items())
        pointers.push_back(d.pointer);
    std::sort(pointers.begin(), pointers.end());
    CHECK(pointers == std::vector<std::string>{"/cluster/colour", "/cluster/gpu", "/cluster/racks",
                                               "/cluster/scale_out",
                                               "/cluster/scale_up/GBps_per_gpu"});
}

TEST_CASE("a broken field does not also trip the rules that use it", "[validation]")
{
    cs::Diagnostics diags;
    CHECK_FALSE(cs::runFromJson(changed(validRun(), {{"/model/heads", "32"}}), "r", "", diags));
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].pointer == "/model/heads");
}

TEST_CASE("notes and x- keys are allowed anywhere and kept at the top", "[validation]")
{
    const json j = changed(validRun(), {{"/notes", "why"},
                                        {"/x-tool", {{"v", 2}}},
                                        {"/model/notes", "dense"},
                                        {"/parallelism/x-hint", true}});
    cs::Diagnostics diags;
    const auto run = cs::runFromJson(j, "r", "", diags);
    REQUIRE(run);
    CHECK(run->extensions.value() == json{{"notes", "why"}, {"x-tool", {{"v", 2}}}});
}

TEST_CASE("view rules", "[validation]")
{
    const std::vector<Rule> rules{
        {{{"/color_by", "rainbow"}},
         "/view/color_by",
         "must be one of tp, cp, pp, dp, ep, domain, memory, activity, links"},
        {{{"/center", {1}}}, "/view/center", "expected [x, y]"},
        {{{"/zoom", 0}}, "/view/zoom", "must be between 0.0001 and 10000, got 0"},
        {{{"/highlight_rank", -2}},
         "/view/highlight_rank",
         "must be between -1 and 131071, got -2"},
        {{{"/playing", "yes"}}, "/view/playing", "expected true or false, got a string"},
        {{{"/speed", -1}}, "/view/speed", "must be between 0 and 1000000, got -1"},
    };
    for (const Rule& rule : rules) {
        cs::Diagnostics diags;
        CHECK_FALSE(cs::viewFromJson(changed(json::object(), rule.changes), "s", "/view", diags));
        checkRefused(diags, rule);
    }
}
