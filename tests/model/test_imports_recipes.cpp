// The recipe switches the cost model reads reach an imported run as its settings give them: a
// launch leaves off what it does not turn on, as argparse does; a config leaves to its class
// what it does not say. Without them an FP8 run on Blackwell would be costed as the 2026
// full-iteration recipes, with no CPU time at all.

#include <catch2/catch.hpp>

#include "costmodel.h"
#include "extensions.h"
#include "importdata.h"
#include "megatron.h"
#include "nemo.h"
#include "samplefiles.h"

using namespace cs;
using nlohmann::json;

namespace {

// A small FP8 MoE on 16 GPUs, TP 2, with `flags` added and `before` it in the script.
Imported launchRecipe(const std::string& flags,
                      const std::string& precision = "--fp8-format hybrid",
                      const std::string& before = "")
{
    Imported i;
    i.run = importMegatron(
        {{"launch.sh", before +
                           "torchrun --nnodes 4 --nproc-per-node 4 pretrain_gpt.py \\\n"
                           "  --num-layers 8 --hidden-size 2048 \\\n"
                           "  --num-attention-heads 16 --seq-length 4096 \\\n"
                           "  --micro-batch-size 1 --global-batch-size 64 \\\n"
                           "  --vocab-size 32000 --make-vocab-size-divisible-by 1 \\\n"
                           "  --swiglu --disable-bias-linear --bf16 " +
                           precision +
                           " \\\n"
                           "  --tensor-model-parallel-size 2 --sequence-parallel \\\n"
                           "  --num-experts 64 --moe-router-topk 8 "
                           "--moe-ffn-hidden-size 768 \\\n"
                           "  --expert-model-parallel-size 8 " +
                           flags + "\n"}},
        nullptr, i.report);
    INFO(i.report.errors.formatAll());
    REQUIRE(i.run);
    return i;
}

double stepOnGb200(const json& imported)
{
    const LoadedFile sample = loadSample("gb200-nvl72-16.cluster.json");
    return evaluate(*sample.cluster, loadedRun(imported)).stepTimeS;
}

} // namespace

TEST_CASE("a launch leaves off the switches it does not give, and says so", "[imports][recipes]")
{
    const Imported i = launchRecipe("");
    const json& run = *i.run;
    CHECK(run[kTpCommOverlapKey] == false);
    CHECK(run[kAllToAllOverlapKey] == false);
    CHECK(run[kFp8AttentionKey] == false);
    CHECK(run[kFp8BlockScalingKey] == false); // --fp8-recipe is "delayed" unless given
    CHECK(run[kFrameworkKey] == "megatron-core-2025");
    CHECK(run[kOverlapGradReduceKey] == false);   // Megatron-LM reduces after the backward pass
    CHECK_FALSE(run.contains(kFp8OutputProjKey)); // off unless given, the cost model's default
    CHECK(hasLine(i.report.notes, {"off, as the launch does not give them: --tp-comm-overlap, "
                                   "--overlap-grad-reduce, --overlap-moe-expert-parallel-comm, "
                                   "--fp8-dot-product-attention"}));
    CHECK(hasLine(i.report.notes, {"no full-iteration CUDA graph", "--cuda-graph-impl"}));
}

TEST_CASE("an MXFP8 LM head without MXFP8 is noted as costed in BF16", "[imports][recipes]")
{
    const Imported i = launchRecipe("--fp8-output-proj");
    CHECK((*i.run)[kFp8OutputProjKey] == true);
    CHECK(hasLine(i.report.notes, {"--fp8-output-proj needs MXFP8", "costed in BF16"}));
    const Imported mx = launchRecipe("--fp8-output-proj --fp8-recipe mxfp8");
    CHECK_FALSE(hasLine(mx.report.notes, {"needs MXFP8"}));
}

TEST_CASE("a launch's switches reach the run, and a full-iteration graph takes the CPU's "
          "launches off the step",
          "[imports][recipes]")
{
    const Imported on = launchRecipe("--tp-comm-overlap --overlap-moe-expert-parallel-comm "
                                     "--fp8-dot-product-attention --fp8-recipe mxfp8 "
                                     "--cuda-graph-impl full_iteration --fp8-output-proj");
    const json& run = *on.run;
    CHECK(run[kFp8OutputProjKey] == true);
    CHECK(run[kTpCommOverlapKey] == true);
    CHECK(run[kAllToAllOverlapKey] == true);
    CHECK(run[kFp8AttentionKey] == true);
    CHECK(run[kFp8BlockScalingKey] == true);
    CHECK(run[kFrameworkKey] == "megatron-core-2026");

    const auto [graph, framework] = GENERATE(table<std::string, std::string>({
        {"--cuda-graph-impl local --cuda-graph-modules full_iteration", "megatron-core-2026"},
        {"--cuda-graph-impl local --cuda-graph-scope full_iteration", "megatron-core-2026"},
        {"--cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router",
         "megatron-core-2025"},
        {"--cuda-graph-impl none", "megatron-core-2025"},
    }));
    INFO(graph);
    CHECK((*launchRecipe(graph).run)[kFrameworkKey] == framework);

    // The same switches, with and without the graph: on GB200 the eager step pays its launches.
    const Imported eager = launchRecipe("--tp-comm-overlap --overlap-moe-expert-parallel-comm "
                                        "--fp8-dot-product-attention --fp8-recipe mxfp8");
    CHECK(stepOnGb200(*eager.run) > stepOnGb200(run));
}

TEST_CASE("a launch's layer-by-layer CUDA graphs take the router's and attention's launches "
          "off the CPU",
          "[imports][recipes]")
{
    const auto [flags, router, attention] = GENERATE(table<std::string, bool, bool>({
        {"--cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router "
         "moe_preprocess",
         true, true},
        {"--cuda-graph-impl transformer_engine --cuda-graph-scope moe_router moe_preprocess", true,
         false},
        {"--cuda-graph-impl local --cuda-graph-modules attn", false, true},
        // The router's share counts its preprocessing too: the router alone is not credited.
        {"--cuda-graph-impl transformer_engine --cuda-graph-scope moe_router", false, false},
        {"--cuda-graph-impl none --cuda-graph-scope attn moe_router", false, false},
    }));
    INFO(flags);
    const Imported graphed = launchRecipe(flags + " --fp8-recipe mxfp8");
    const json& run = *graphed.run;
    CHECK(run.value(kRouterGraphKey, false) == router);
    CHECK(run.value(kAttentionGraphKey, false) == attention);

    // Micro-batches of one on 8 experts a GPU wait on the CPU: fewer launches, a shorter step.
    const Imported eager = launchRecipe("--fp8-recipe mxfp8");
    if (router || attention)
        CHECK(stepOnGb200(run) < stepOnGb200(*eager.run));
    else
        CHECK(stepOnGb200(run) == Approx(stepOnGb200(*eager.run)));
}

TEST_CASE("switches that do not apply to the run are not set", "[imports][recipes]")
{
    // NVFP4's GEMMs run without TP overlap whatever the flag: the cost model's rule decides.
    const Imported nvfp4 = launchRecipe("--tp-comm-overlap", "--fp4-format e2m1");
    CHECK_FALSE(nvfp4.run->contains(kTpCommOverlapKey));
    CHECK_FALSE(nvfp4.run->contains(kFp8BlockScalingKey));
    CHECK_FALSE(nvfp4.run->contains(kFrameworkKey)); // only FP8 has a full-iteration recipe
    const Imported bf16 = launchRecipe("", "");
    CHECK_FALSE(bf16.run->contains(kFp8AttentionKey));
    CHECK_FALSE(bf16.run->contains(kFrameworkKey));
}

TEST_CASE("a config sets what it says and leaves the rest to the cost model's defaults",
          "[imports][recipes]")
{
    const std::string model = "model:\n  num_layers: 8\n  hidden_size: 2048\n"
                              "  num_attention_heads: 16\n  seq_length: 4096\n"
                              "  vocab_size: 32000\n  micro_batch_size: 1\n"
                              "  global_batch_size: 64\n  tensor_model_parallel_size: 2\n"
                              "  num_moe_experts: 64\n  add_bias_linear: false\n";
    ImportReport silent;
    const auto quiet = importNemo(
        {"quiet.yaml", model + "mixed_precision: bf16_with_fp8_current_scaling_mixed\n"}, silent);
    INFO(silent.errors.formatAll());
    REQUIRE(quiet);
    CHECK((*quiet)[kFp8BlockScalingKey] == false); // current scaling: one scale a tensor
    for (const char* key :
         {kTpCommOverlapKey, kAllToAllOverlapKey, kFp8AttentionKey, kFrameworkKey})
        CHECK_FALSE(quiet->contains(key));

    ImportReport said;
    const auto told = importNemo({"told.yaml", model + "  cuda_graph_impl: full_iteration\n"
                                                       "comm_overlap:\n"
                                                       "  tp_comm_overlap: true\n"
                                                       "  overlap_moe_expert_parallel_comm: true\n"
                                                       "mixed_precision: bf16_with_mxfp8_mixed\n"},
                                 said);
    INFO(said.errors.formatAll());
    REQUIRE(told);
    CHECK((*told)[kTpCommOverlapKey] == true);
    CHECK((*told)[kAllToAllOverlapKey] == true);
    CHECK((*told)[kFp8BlockScalingKey] == true);
    CHECK((*told)[kFrameworkKey] == "megatron-core-2026");
}

TEST_CASE("the loss runs Transformer Engine's cross-entropy where the settings choose it",
          "[imports][recipes]")
{
    // 1: Transformer Engine's; 0: Megatron-Core's own; -1: not said, the cost model's default.
    const auto [flags, te] = GENERATE(table<std::string, int>({
        {"--cross-entropy-loss-fusion --cross-entropy-fusion-impl te", 1},
        {"--cross-entropy-loss-fusion --cross-entropy-fusion-impl native", 0},
        {"--cross-entropy-loss-fusion", 0},
        {"--cross-entropy-fusion-impl te", 0}, // a launch's fusion is off unless turned on
        {"", -1},
    }));
    INFO(flags);
    const Imported i = launchRecipe(flags);
    if (te < 0)
        CHECK_FALSE(i.run->contains(kTeCrossEntropyKey));
    else
        CHECK((*i.run)[kTeCrossEntropyKey] == (te == 1));

    // A config's class fuses the loss unless the config says otherwise.
    const auto [config, configTe] = GENERATE(table<std::string, bool>({
        {"  cross_entropy_fusion_impl: te\n", true},
        {"  cross_entropy_fusion_impl: te\n  cross_entropy_loss_fusion: false\n", false},
        {"  cross_entropy_loss_fusion: true\n", false},
    }));
    INFO(config);
    ImportReport report;
    const auto run = importNemo({"loss.yaml", "model:\n  num_layers: 8\n  hidden_size: 2048\n"
                                              "  num_attention_heads: 16\n  seq_length: 4096\n"
                                              "  vocab_size: 32000\n  micro_batch_size: 1\n"
                                              "  global_batch_size: 64\n" +
                                                  config},
                                report);
    INFO(report.errors.formatAll());
    REQUIRE(run);
    CHECK((*run)[kTeCrossEntropyKey] == configTe);
}

TEST_CASE("Transformer Engine's cross-entropy shortens an imported run's step",
          "[imports][recipes]")
{
    const Imported own = launchRecipe("--cross-entropy-loss-fusion");
    const Imported te = launchRecipe("--cross-entropy-loss-fusion --cross-entropy-fusion-impl te");
    CHECK(stepOnGb200(*te.run) < stepOnGb200(*own.run));
}

TEST_CASE("NCCL's NVLink SHARP as the script's environment or the recipe's sets it",
          "[imports][recipes]")
{
    CHECK((*launchRecipe("", "--fp8-format hybrid", "export NCCL_NVLS_ENABLE=1\n").run)[kNvlsKey] ==
          true);
    CHECK((*launchRecipe("", "--fp8-format hybrid", "export NCCL_NVLS_ENABLE=0\n").run)[kNvlsKey] ==
          false);
    CHECK_FALSE(launchRecipe("").run->contains(kNvlsKey)); // the cost model's default: off

    ImportReport report;
    const auto run = importNemo({"nvls.yaml", "model:\n  num_layers: 8\n  hidden_size: 2048\n"
                                              "  num_attention_heads: 16\n  seq_length: 4096\n"
                                              "  vocab_size: 32000\n  micro_batch_size: 1\n"
                                              "  global_batch_size: 64\n"
                                              "env_vars:\n  NCCL_NVLS_ENABLE: 1\n"},
                                report);
    INFO(report.errors.formatAll());
    REQUIRE(run);
    CHECK((*run)[kNvlsKey] == true);
}

TEST_CASE("gradients reduced after the backward pass, as a launch without --overlap-grad-reduce "
          "does, cost more than bucket by bucket under it",
          "[imports][recipes]")
{
    const Imported after = launchRecipe("");
    const Imported under = launchRecipe("--overlap-grad-reduce");
    CHECK((*under.run)[kOverlapGradReduceKey] == true);
    CHECK(stepOnGb200(*after.run) > stepOnGb200(*under.run));
}
