// Measured runs (.jsonl): every public row loads, clusters are set from the row, and problems
// are located by line.

#include <algorithm>
#include <map>
#include <optional>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "extensions.h"
#include "measuredruns.h"
#include "samplefiles.h"

using namespace cs;

namespace {

const std::string kPublic = std::string(CS_SHARED_DIR) + "/reference/validation/public.jsonl";
const std::string kMoePublic =
    std::string(CS_SHARED_DIR) + "/reference/validation/moe-public.jsonl";

std::string rowLine(const std::string& clusterExtra = "", const std::string& parallelism = "")
{
    return R"({"id":"r","cluster":{"gpu":"GB200","gpus":256,"gpus_per_node":4,)"
           R"("nvlink_domain_gpus":72,"gpus_used_per_nvlink_domain":72,"nvlink_GBps_bidir":1800,)"
           R"("scale_out_Gbps_per_gpu":400)" +
           clusterExtra +
           R"(},"model":{"name":"m","layers":126,"hidden":16384,"ffn_hidden":53248,"heads":128,)"
           R"("kv_heads":8,"vocab":128256,"seq_len":8192,"gated_mlp":true},)"
           R"("parallelism":{"tp":4,"cp":1,"pp":16,"vp":4,"dp":)" +
           (parallelism.empty() ? std::string("4") : parallelism) +
           R"(,"sequence_parallel":true,"distributed_optimizer":true,"recompute":"none"},)"
           R"("batch":{"micro":1,"global":1536},"precision":"fp8",)"
           R"("measured":{"step_time_s":60.458,"kind":"derived"}})";
}

const MeasuredRun* byId(const std::vector<MeasuredRun>& runs, const std::string& prefix)
{
    for (const MeasuredRun& r : runs) {
        if (r.id.rfind(prefix, 0) == 0)
            return &r;
    }
    return nullptr;
}

// The value of the run extension `key` of the public row whose id starts with `id`; null
// where the row leaves it out.
nlohmann::json extension(const std::string& id, const char* key)
{
    static const std::vector<MeasuredRun> rows = publicMeasuredRuns(); // read once
    const MeasuredRun* r = byId(rows, id);
    REQUIRE(r);
    const nlohmann::json& ext = r->run.extensions.value();
    return ext.contains(key) ? ext.at(key) : nlohmann::json();
}

} // namespace

TEST_CASE("every public measured run loads into a cluster and run of its GPU count")
{
    Diagnostics diags;
    const std::vector<MeasuredRun> runs = readMeasuredRuns(kPublic, diags);
    INFO(diags.formatAll());
    // Held to the run rules, which take 126 layers on 16 x 8 virtual stages: the embedding and
    // the loss take a stage each.
    REQUIRE(diags.empty());
    REQUIRE(runs.size() == 56);
    for (const MeasuredRun& r : runs) {
        INFO(r.id);
        const Parallelism& par = r.run.parallelism;
        CHECK(r.cluster.gpuCount() == int64_t(par.tp) * par.cp * par.pp * par.dp);
        REQUIRE(r.run.measured.has_value());
        CHECK(r.run.measured->stepTimeS > 0);
        CHECK(r.line >= 1);
    }
}

TEST_CASE("NVL72 rows make rack domains of the GPUs used per rack")
{
    Diagnostics diags;
    const std::vector<MeasuredRun> runs = readMeasuredRuns(kPublic, diags);
    const MeasuredRun* hsg = byId(runs, "mlperf_v5.1_llama31_405b_NVIDIA_hsg");
    REQUIRE(hsg);
    CHECK(hsg->cluster.scaleUp.domain == DomainKind::Rack);
    CHECK(hsg->cluster.nodesPerRack == 16); // 64 of 72 GPUs used, 4 a tray
    CHECK(hsg->cluster.racks == 80);
    CHECK(hsg->cluster.scaleOut.GbpsPerGpu == 400);
    CHECK(hsg->cluster.gpu.name == "GB200");

    // Smaller than a rack: one rack of the trays used.
    const MeasuredRun* small = byId(runs, "nemo_bridge_25.11_DGX-GB200_LLAMA3_8B_8gpu");
    REQUIRE(small);
    CHECK(small->cluster.racks == 1);
    CHECK(small->cluster.nodesPerRack == 2);
    CHECK(small->cluster.domainSize() == 8);

    const MeasuredRun* h100 = byId(runs, "mlperf_v3.1_gpt3_Azure");
    REQUIRE(h100);
    CHECK(h100->cluster.scaleUp.domain == DomainKind::Node);
    CHECK(h100->cluster.domainSize() == 8);
    CHECK(h100->cluster.gpuCount() == 10752);
}

TEST_CASE("72 GPUs used per rack that do not divide the GPUs: the largest even split")
{
    Diagnostics diags;
    const std::vector<MeasuredRun> runs = parseMeasuredRuns(rowLine(), "x.jsonl", diags);
    INFO(diags.formatAll());
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].cluster.nodesPerRack == 16); // 64 trays: 16 divides, 18 does not
    CHECK(runs[0].cluster.racks == 4);
}

TEST_CASE("measured-run problems are located by line: syntax by column, values by pointer")
{
    const std::string text = rowLine() + "\n\n{\"id\": \"broken\",\n" + rowLine("", "5") + "\n" +
                             rowLine(R"(,"gpus_per_node":"four")") + "\n";
    Diagnostics diags;
    const std::vector<MeasuredRun> runs = parseMeasuredRuns(text, "runs.jsonl", diags);
    INFO(diags.formatAll());
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].line == 1);
    std::map<int, std::vector<Diagnostic>> byLine;
    for (const Diagnostic& d : diags.items()) {
        const std::string text = d.format();
        REQUIRE(text.rfind("runs.jsonl:", 0) == 0);
        byLine[std::stoi(text.substr(11))].push_back(d);
    }
    CHECK(byLine.size() == 3);
    REQUIRE(byLine.count(3));
    CHECK(byLine[3].front().line == 3); // syntax: FILE:LINE:COLUMN
    CHECK(byLine[3].front().column > 0);
    REQUIRE(byLine.count(4));
    CHECK(std::any_of(byLine[4].begin(), byLine[4].end(), [](const Diagnostic& d) {
        return d.format().rfind("runs.jsonl:4: /parallelism/dp: ", 0) == 0;
    }));
    REQUIRE(byLine.count(5)); // a duplicated key
    CHECK(byLine[5].front().line == 5);
}

TEST_CASE("wrong values are reported at their pointer and never crash")
{
    const std::string cases[] = {
        R"({"id":"x"})",
        R"([1,2,3])",
        R"({"id":"x","cluster":7,"model":{},"parallelism":{},"batch":{},"measured":{}})",
        // Fields the converter reads for the software (family, GPU, source) of the wrong type.
        R"({"id":"x","family":7,"source":["a"],"cluster":{"gpu":51200},"model":{"moe":{}}})",
    };
    for (const std::string& text : cases) {
        Diagnostics diags;
        CHECK(parseMeasuredRuns(text, "f.jsonl", diags).empty());
        CHECK_FALSE(diags.empty());
        for (const Diagnostic& d : diags.items())
            CHECK(d.format().rfind("f.jsonl:1", 0) == 0);
    }
    Diagnostics diags;
    std::string unknownGpu = rowLine();
    unknownGpu.replace(unknownGpu.find("GB200"), 5, "Z900");
    CHECK(parseMeasuredRuns(unknownGpu, "f.jsonl", diags).empty());
    CHECK(diags.contains("unknown GPU"));
    CHECK(diags.items().at(0).pointer == "/cluster/gpu");
}

TEST_CASE("a token-drop row's capacity is the run's capacity factor, dropless rows have none")
{
    Diagnostics diags;
    const std::vector<MeasuredRun> runs = readMeasuredRuns(kMoePublic, diags);
    INFO(diags.formatAll());
    int tokenDrop = 0, dropless = 0;
    for (const MeasuredRun& r : runs) {
        INFO(r.id);
        REQUIRE(r.run.model.moe);
        if (r.id.find("tokendrop") != std::string::npos) {
            ++tokenDrop;
            REQUIRE(r.run.model.moe->capacityFactor);
            CHECK(*r.run.model.moe->capacityFactor == 1.0);
        } else if (r.id.starts_with("mbridge_")) {
            ++dropless;
            CHECK_FALSE(r.run.model.moe->capacityFactor);
        }
    }
    CHECK(tokenDrop == 8);
    CHECK(dropless > 40);
}

TEST_CASE("the capacity factor is read from however a row's routing prose words token drop")
{
    struct Case {
        const char* routing;
        std::optional<double> factor;
    };
    const Case cases[] = {
        {"token-drop: capacity factor 1.0, pad expert input to capacity", 1.0},
        {"learned routing, drops tokens at capacity factor 1.25", 1.25},
        {"Token drop (--moe-expert-capacity-factor 1.5)", 1.5},
        {"capacity_factor=2", 2.0},
        {"real data, learned routing, dropless with per-rank capacity buffer factor 4", {}},
        {"dropless, capacity factor 1.0 for the CUDA graph buffers", {}},
        {"dropless, router forced to balanced token distribution", {}},
        {"token drop, capacity factor unknown", {}},
        {"capacity factor 0", {}},
        {"", {}},
    };
    for (const Case& c : cases) {
        INFO(c.routing);
        CHECK(capacityFactorOfRouting(c.routing) == c.factor);
    }
}

TEST_CASE("a row's software: MegaScale's Megatron-LM baselines on Megatron-LM's defaults, the "
          "expert all-to-all overlapped where the row's recipe overlaps it")
{
    CHECK(extension("megascale_t2_megatronlm_8192gpu", "x-framework") == "megatron-2021");
    CHECK(extension("sc21_t1_1008.0B", "x-framework") == "megatron-core-2025");
    CHECK(extension("mbridge_2606_dsv3_gb200", "x-framework") == "megatron-core-2026");
    // Recipes by container, model and GPU: on for these, left to the cost model's default
    // (off here: 2025 software) for the same model on other GPUs or in other containers.
    for (const char* on : {"mbridge_2509_dsv3_h100", "mbridge_2511_qwen3-30b_h100",
                           "mbridge_2602_qwen3-30b_h100", "mbridge_2604_qwen3-235b_h100",
                           "mbridge_2602_qwen3-235b_h100", "mbridge_260201_qwen3-235b_h100",
                           "mbridge_260401_dsv3_b200", "mbridge_2604_gptoss-120b_gb200"}) {
        INFO(on);
        CHECK(extension(on, "x-moe_a2a_overlap") == true);
    }
    for (const char* unset : {"mbridge_260201_qwen3-30b_gb200", "mbridge_2604_dsv3_b200",
                              "mbridge_2604_gptoss-120b_gb300", "mbridge_2602_qwen3-235b_gb200"}) {
        INFO(unset);
        CHECK(extension(unset, "x-moe_a2a_overlap").is_null());
    }
    // The full-iteration recipes run attention in FP8 but DeepSeek-V3's on GB200 (26.06 on).
    CHECK(extension("mbridge_2606_dsv3_gb200", "x-fp8_attention") == false);
    CHECK(extension("mbridge_2608_dsv3_gb200", "x-fp8_attention") == false);
    for (const char* unset :
         {"mbridge_2606_dsv3_gb300", "mbridge_2604_dsv3_gb200", "mbridge_2606_qwen3-235b_gb200"}) {
        INFO(unset);
        CHECK(extension(unset, "x-fp8_attention").is_null());
    }
    // The LM head runs in MXFP8 where the recipe's configuration says so: DeepSeek-V3's and
    // gpt-oss's MXFP8 recipes from 26.06, MLPerf's DeepSeek-V3 on GB300; not Qwen3's, not
    // before 26.06, not MLPerf's on GB200, never a current-scaling recipe.
    for (const char* on : {"mbridge_2606_dsv3_gb300", "mbridge_2608_dsv3_gb200",
                           "mbridge_2606_gptoss-120b_gb200", "mlperf_v60_dsv3_CoreWeave"}) {
        INFO(on);
        CHECK(extension(on, "x-fp8_output_proj") == true);
    }
    for (const char* unset : {"mbridge_2606_qwen3-235b_gb300", "mbridge_2604_dsv3_gb300",
                              "mlperf_v60_dsv3_NVIDIA_tyche", "mbridge_2509_dsv3_gb200",
                              "mbridge_2606_qwen3-30b_h100"}) {
        INFO(unset);
        CHECK(extension(unset, "x-fp8_output_proj").is_null());
    }
    // Every FP8 row says how it scales: in blocks where its recipe or source names MXFP8
    // (FP8-MX), per tensor where it names current scaling or nothing; BF16 rows say nothing.
    for (const char* mx : {"mbridge_2511_dsv3_gb300", "mbridge_2606_qwen3-235b_gb200",
                           "mlperf_v60_dsv3_NVIDIA_theia", "mcore_modelzoo_qwen3-235b_gb300"}) {
        INFO(mx);
        CHECK(extension(mx, "x-fp8_block_scaling") == true);
    }
    for (const char* perTensor :
         {"mbridge_2509_qwen3-235b_gb200_64_fp8cs", "nemo_bridge_25.11_DGX-GB300_LLAMA3_70B",
          "nemo_bridge_26.06_DGX-GB200_LLAMA3.1_405B_256gpu_FP8",
          "mlperf_v5.0_llama31_405b_NVIDIA_tyche"}) {
        INFO(perTensor);
        CHECK(extension(perTensor, "x-fp8_block_scaling") == false);
    }
    for (const char* unset : {"mbridge_2604_gptoss-120b_gb300", "sc21_t1_1008.0B",
                              "nemo_bridge_26.06_DGX-GB200_LLAMA3.1_405B_256gpu_NVFP4"}) {
        INFO(unset);
        CHECK(extension(unset, "x-fp8_block_scaling").is_null());
    }
    // DeepSeek-V3 routes each token to 4 of 8 expert groups, forced balance or learned.
    // AutoModel's fake balanced gate gives each token top-k consecutive experts from a multiple
    // of top-k: one group of top-k experts (DeepSeek-V3 256 / 8, Qwen3-30B 128 / 8, gpt-oss
    // 128 / 4). No other row limits its routing.
    const struct {
        const char* id;
        int groups, groupTopK;
    } limitedRows[] = {{"mbridge_2602_dsv3_b200", 8, 4},
                       {"mlperf_v60_dsv3_NVIDIA_theia", 8, 4},
                       {"automodel_89e3a9f_dsv3", 32, 1},
                       {"automodel_89e3a9f_qwen3_30b", 16, 1},
                       {"automodel_89e3a9f_gptoss", 32, 1}};
    for (const auto& limited : limitedRows) {
        INFO(limited.id);
        CHECK(extension(limited.id, "x-moe_router_num_groups") == limited.groups);
        CHECK(extension(limited.id, "x-moe_router_group_topk") == limited.groupTopK);
    }
    for (const char* unset : {"mbridge_2602_qwen3-235b_h100", "mcore_modelzoo_qwen3-235b_h100"}) {
        INFO(unset);
        CHECK(extension(unset, "x-moe_router_num_groups").is_null());
    }
    // The flex dispatcher (DeepEP, HybridEP) where the row's recipe or source runs it.
    for (const char* flex : {"mbridge_2602_dsv3_b200", "mbridge_2604_qwen3-235b_gb200",
                             "mbridge_2604_gptoss-120b_gb200", "mbridge_260201_qwen3-30b_gb200",
                             "automodel_89e3a9f_dsv3", "mcore_modelzoo_qwen3-235b_gb200"}) {
        INFO(flex);
        CHECK(extension(flex, "x-moe_flex_dispatcher") == true);
    }
    for (const char* alltoall :
         {"mbridge_2602_qwen3-235b_h100", "mbridge_260401_gptoss-120b_gb200",
          "mbridge_2511_dsv3_b200", "mbridge_2509_qwen3-235b_gb200_64_fp8cs",
          "mbridge_2602_qwen3-30b_b200", "nemo_bridge_25.11_DGX-GB300_LLAMA3_70B"}) {
        INFO(alltoall);
        CHECK(extension(alltoall, "x-moe_flex_dispatcher").is_null());
    }
    // gpt-oss's linear layers carry biases, its GLU clamps apart and its RoPE runs unfused,
    // whoever ran it; no other model's do.
    for (const char* key : {"x-add_bias_linear", "x-activation_clamp", "x-rope_unfused"}) {
        INFO(key);
        for (const char* gptOss : {"mbridge_2604_gptoss-120b_gb200", "automodel_89e3a9f_gptoss"}) {
            INFO(gptOss);
            CHECK(extension(gptOss, key) == true);
        }
        for (const char* unset : {"mbridge_2602_qwen3-235b_h100", "automodel_89e3a9f_dsv3",
                                  "nemo_bridge_25.11_DGX-GB300_LLAMA3_70B"}) {
            INFO(unset);
            CHECK(extension(unset, key).is_null());
        }
    }
    // Megatron-Bridge's performance scripts run Transformer Engine's cross-entropy from 25.11,
    // as the Model Zoo's Qwen3 configs do on every GPU; Megatron-Bridge's 25.09 rows and every
    // other source Megatron-Core's own.
    for (const char* te :
         {"mbridge_2511_dsv3_gb300", "mbridge_2604_gptoss-120b_gb200",
          "mbridge_2608_qwen3-235b_gb300", "nemo_bridge_25.11_DGX-GB300_LLAMA3_70B",
          "mcore_modelzoo_qwen3-235b_gb200", "mcore_modelzoo_qwen3-235b_h100"}) {
        INFO(te);
        CHECK(extension(te, "x-cross_entropy_te") == true);
    }
    for (const char* own : {"mbridge_2509_qwen3-235b_gb200_64_fp8cs", "automodel_89e3a9f_dsv3",
                            "megascale_", "sc21_t1_18.4B"}) {
        INFO(own);
        CHECK(extension(own, "x-cross_entropy_te").is_null());
    }
}

TEST_CASE("a row's recipe graphs its router, and its attention, as its release's configs say")
{
    struct Expected {
        const char* id;
        bool router, attention;
    };
    const Expected rows[] = {
        // Attention too: Qwen3-235B on GB200, and on 256 GB300 from 26.02, DeepSeek-V3 on GB200
        // from 26.02, the Model Zoo's GB200 row; the router only: Qwen3-30B on GB300, Qwen3-30B's
        // GB200 MXFP8 recipe, B200's in 25.11, DeepSeek-V3 on GB200 in 25.11, the Model Zoo's H100
        // script.
        {"mbridge_2604_qwen3-235b_gb200", true, true},
        {"mbridge_2604_qwen3-235b_gb300", true, true},
        {"mbridge_2602_dsv3_gb200", true, true},
        {"mbridge_2511_dsv3_gb300", true, true},
        {"mbridge_2604_gptoss-120b_gb300", true, true},
        {"mcore_modelzoo_qwen3-235b_gb200", true, true},
        {"mbridge_2604_qwen3-30b_gb300", true, false},
        {"mbridge_2604_qwen3-30b_gb200", true, false},
        {"mbridge_2511_qwen3-30b_b200", true, false},
        {"mbridge_2511_dsv3_gb200", true, false},
        {"mcore_modelzoo_qwen3-235b_h100_256_r2", true, false},
        // Nothing: DeepSeek-V3 on B200 and H100, its GB300 FP8 recipes from 26.02, gpt-oss on
        // GB200, Qwen3-30B's H100 FP8 recipe, 25.09's configs (which graph whole token-drop
        // layers, as no key says), the Model Zoo's other H100 rows (no script), the
        // full-iteration recipes and MLPerf's (the whole step one graph; MLPerf's GB200 rows
        // share a 26.04 container with Bridge recipes that graph the router), dense rows.
        {"mbridge_2604_dsv3_b200", false, false},
        {"mbridge_2509_dsv3_h100", false, false},
        {"mbridge_2602_dsv3_gb300", false, false},
        {"mbridge_2604_gptoss-120b_gb200", false, false},
        {"mbridge_2604_qwen3-30b_h100", false, false},
        {"mbridge_2509_qwen3-235b_gb200_64_fp8cs", false, false},
        {"mcore_modelzoo_qwen3-235b_h100_256_r5", false, false},
        {"mlperf_v60_dsv3_NVIDIA_theia", false, false},
        {"mlperf_v60_dsv3_NVIDIA_tyche_hsg_ngpu4096", false, false},
        {"mlperf_v60_dsv3_Google", false, false},
        {"mbridge_2606_qwen3-30b_gb200", false, false},
        {"mbridge_2608_dsv3_gb200", false, false},
        {"nemo_bridge_25.11_DGX-GB300_LLAMA3_70B", false, false},
    };
    for (const Expected& e : rows) {
        INFO(e.id);
        CHECK(extension(e.id, kRouterGraphKey) ==
              (e.router ? nlohmann::json(true) : nlohmann::json()));
        CHECK(extension(e.id, kAttentionGraphKey) ==
              (e.attention ? nlohmann::json(true) : nlohmann::json()));
    }
}

TEST_CASE("an FP8 row on Blackwell is costed as one CUDA graph only where its release's recipe "
          "captures the whole step")
{
    struct Case {
        const char* container;
        const char* family;
        const char* gpu;
        const char* recipe; // precision_recipe
        const char* framework;
    };
    const Case cases[] = {
        // v0.5.0 (26.06): GB200 and GB300 MXFP8 recipes, Qwen3-30B's on B300 too.
        {"26.06", "DeepSeek-V3", "GB300", "mxfp8", "megatron-core-2026"},
        {"26.06", "Qwen3-30B-A3B", "B300", "mxfp8", "megatron-core-2026"},
        // Its B300 DeepSeek-V3, gpt-oss and B200 recipes launch layer by layer.
        {"26.06", "DeepSeek-V3", "B300", "mxfp8", "megatron-core-2025"},
        {"26.06", "gpt-oss-120b", "B300", "mxfp8", "megatron-core-2025"},
        {"26.06", "Qwen3-235B-A22B", "B200", "mxfp8", "megatron-core-2025"},
        // v0.5.1 (26.06.01) captures B300's DeepSeek-V3 and both Qwen3 models on B200.
        {"26.06.01", "DeepSeek-V3", "B300", "mxfp8", "megatron-core-2026"},
        {"26.06.01", "Qwen3-235B-A22B", "B200", "mxfp8", "megatron-core-2026"},
        {"26.08", "gpt-oss-120b", "B300", "mxfp8", "megatron-core-2025"},
        // Current scaling and dense models: never.
        {"26.06", "DeepSeek-V3", "GB300", "fp8 current scaling", "megatron-core-2025"},
        {"26.06", "Llama 3.1 405B", "GB200", "mxfp8", "megatron-core-2025"},
        // Before 26.06: layer by layer.
        {"26.04.01", "Qwen3-30B-A3B", "B300", "mxfp8", "megatron-core-2025"},
    };
    for (const Case& c : cases) {
        nlohmann::json row = nlohmann::json::parse(rowLine());
        row["source"] =
            std::string("NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md, '## ") +
            c.container + " NeMo Container'";
        row["family"] = c.family;
        row["cluster"]["gpu"] = c.gpu;
        row["precision_recipe"] = c.recipe;
        INFO(row["source"].get<std::string>()
             << ", " << c.family << " on " << c.gpu << ", " << c.recipe);
        Diagnostics diags;
        const std::vector<MeasuredRun> runs = parseMeasuredRuns(row.dump(), "rows.jsonl", diags);
        INFO(diags.formatAll());
        REQUIRE(runs.size() == 1);
        CHECK(runs[0].run.extensions.value().at(kFrameworkKey) == c.framework);
    }
    // The public Llama 3.1 405B FP8 (current scaling) row of 26.06 attends in BF16 as its recipe
    // does: no full-iteration graph, no FP8 attention.
    CHECK(extension("nemo_bridge_26.06_DGX-GB200_LLAMA3.1_405B_256gpu_FP8", "x-framework") ==
          "megatron-core-2025");
}
