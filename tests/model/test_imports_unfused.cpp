// What a run's settings leave outside Megatron-Core's fused kernels reaches the run as the
// extensions the cost model reads: gpt-oss's expert biases, its clamped quick-GEGLU and its
// YaRN-scaled RoPE, from a launch script and from a Megatron-Bridge config alike.

#include <catch2/catch.hpp>

#include "calibration.h"
#include "extensions.h"
#include "importdata.h"
#include "loader.h"
#include "megatron.h"
#include "nemo.h"
#include "unfusedsettings.h"

using namespace cs;
using nlohmann::json;

namespace {

Imported launch(const std::string& flags)
{
    Imported i;
    i.run = importMegatron({{"launch.sh", "torchrun --nproc-per-node 8 pretrain_gpt.py \\\n"
                                          "  --num-layers 4 --hidden-size 2880 \\\n"
                                          "  --num-attention-heads 64 --group-query-attention \\\n"
                                          "  --num-query-groups 8 --kv-channels 64 \\\n"
                                          "  --seq-length 4096 --micro-batch-size 1 \\\n"
                                          "  --global-batch-size 64 --vocab-size 201088 \\\n"
                                          "  --make-vocab-size-divisible-by 1 --bf16 \\\n" +
                                              flags + "\n"}},
                           nullptr, i.report);
    INFO(i.report.errors.formatAll());
    REQUIRE(i.run);
    return i;
}

const std::string kGptOssExperts = "  --num-experts 128 --moe-router-topk 4 "
                                   "--moe-ffn-hidden-size 2880 --expert-model-parallel-size 8 ";

// gpt-oss's own flags (Megatron-LM's gpt-oss example): no --disable-bias-linear.
const std::string kGptOss = kGptOssExperts +
                            "--quick-geglu --glu-linear-offset 1.0 "
                            "--activation-func-clamp-value 7.0 --position-embedding-type yarn "
                            "--rotary-scaling-factor 32";

} // namespace

TEST_CASE("YaRN's attention factor, as Megatron-Core scales RoPE by it", "[imports][unfused]")
{
    struct Case {
        double scale, mscale, mscaleAllDim, factor;
    };
    const Case cases[] = {
        {32, 1, 0, 1 + 0.1 * std::log(32.0)}, // gpt-oss on Megatron-LM's defaults: 1.347
        {40, 1, 1, 1},                        // DeepSeek-V3's mscale = mscale_all_dim
        {1, 1, 0, 1},                         // no scaling
        {0.5, 1, 0, 1},                       // under 1: no scaling either
        {16, 0.707, 0, 1 + 0.0707 * std::log(16.0)},
    };
    for (const Case& c : cases) {
        INFO(c.scale << " " << c.mscale << " " << c.mscaleAllDim);
        CHECK(yarnAttentionFactor(c.scale, c.mscale, c.mscaleAllDim) == Approx(c.factor));
    }
}

TEST_CASE("gpt-oss's launch flags give its biases, clamp and unfused RoPE, which the model "
          "then counts",
          "[imports][unfused]")
{
    const Imported i = launch(kGptOss);
    const json& run = *i.run;
    CHECK(run["model"]["gated_mlp"] == true);      // --quick-geglu is gated
    CHECK(run["model"]["ffn_hidden"] == 4 * 2880); // Megatron narrows only SwiGLU's default
    CHECK(run[kBiasLinearKey] == true);
    CHECK(run[kGluClampKey] == true);
    CHECK(run[kUnfusedRopeKey] == true);
    CHECK(hasLine(i.report.notes, {"launch.sh:1:", "experts' linear layers carry biases",
                                   "--disable-bias-linear"}));
    CHECK(hasLine(i.report.notes, {"launch.sh:8:", "YaRN scales the attention by 1.347"}));

    const RunDesc loaded = loadedRun(run);
    const GpuSpec& h100 = *findCatalogGpu("H100");
    const Framework framework = frameworkOf(loaded, h100);
    CHECK(biasedLinearsOf(loaded, h100, framework));
    CHECK(gluClampOf(loaded, h100, framework));
    CHECK(unfusedRopeOf(loaded, h100, framework));
}

TEST_CASE("a SwiGLU MoE without biases on TE's fused RoPE sets none of them", "[imports][unfused]")
{
    const Imported i = launch(kGptOssExperts + "--swiglu --disable-bias-linear "
                                               "--activation-func-clamp-value 10 "
                                               "--position-embedding-type rope");
    CHECK_FALSE(i.run->contains(kBiasLinearKey));
    CHECK_FALSE(i.run->contains(kGluClampKey)); // Megatron-Core fuses SwiGLU's clamp
    CHECK_FALSE(i.run->contains(kUnfusedRopeKey));
    CHECK(hasLine(i.report.notes, {"launch.sh:8:", "clamp", "fused", "SwiGLU"}));
}

TEST_CASE("RoPE runs unfused where fusion is turned off, but not for learned positions or "
          "latent attention",
          "[imports][unfused]")
{
    CHECK((*launch("  --position-embedding-type rope --no-rope-fusion").run)[kUnfusedRopeKey] ==
          true);
    CHECK((*launch("  --use-rotary-position-embeddings --no-rope-fusion").run)[kUnfusedRopeKey] ==
          true);
    CHECK_FALSE(launch("  --no-rope-fusion").run->contains(kUnfusedRopeKey)); // learned_absolute
    CHECK_FALSE(launch("  --position-embedding-type yarn --rotary-scaling-factor 40 "
                       "--mscale 1.0 --mscale-all-dim 1.0")
                    .run->contains(kUnfusedRopeKey)); // an attention factor of 1
    CHECK_FALSE(launch("  --multi-latent-attention --kv-lora-rank 512 --no-rope-fusion")
                    .run->contains(kUnfusedRopeKey));
    // A dense model's biases are not the experts': nothing to count apart.
    CHECK_FALSE(launch("  --position-embedding-type rope").run->contains(kBiasLinearKey));
}

TEST_CASE("a Megatron-Bridge gpt-oss config gives the same extensions", "[imports][unfused]")
{
    ImportReport report;
    const auto run = importNemo({"gpt-oss.yaml", "model:\n"
                                                 "  num_layers: 36\n"
                                                 "  hidden_size: 2880\n"
                                                 "  ffn_hidden_size: 2880\n"
                                                 "  num_attention_heads: 64\n"
                                                 "  num_query_groups: 8\n"
                                                 "  kv_channels: 64\n"
                                                 "  seq_length: 4096\n"
                                                 "  vocab_size: 201088\n"
                                                 "  gated_linear_unit: true\n"
                                                 "  activation_func:\n"
                                                 "    _target_: megatron.core.fusions."
                                                 "fused_bias_geglu.quick_gelu\n"
                                                 "    _call_: false\n"
                                                 "  activation_func_clamp_value: 7.0\n"
                                                 "  add_bias_linear: true\n"
                                                 "  position_embedding_type: yarn\n"
                                                 "  yarn_rotary_scaling_factor: 32.0\n"
                                                 "  apply_rope_fusion: true\n"
                                                 "  window_size: [128, 0]\n"
                                                 "  window_attn_skip_freq: [1, 0, 1, 0]\n"
                                                 "  num_moe_experts: 128\n"
                                                 "  moe_router_topk: 4\n"
                                                 "  moe_ffn_hidden_size: 2880\n"
                                                 "  expert_model_parallel_size: 8\n"
                                                 "  micro_batch_size: 1\n"
                                                 "  global_batch_size: 64\n"},
                                report);
    INFO(report.errors.formatAll());
    REQUIRE(run);
    CHECK((*run)["model"]["gated_mlp"] == true);
    CHECK((*run)["model"]["attention"]["every"] == 2); // a window on every other layer
    CHECK((*run)[kBiasLinearKey] == true);
    CHECK((*run)[kGluClampKey] == true);
    CHECK((*run)[kUnfusedRopeKey] == true);
    CHECK_FALSE(hasLine(report.notes, {"experts' linear layers carry biases"})); // it says so

    ImportReport off;
    const auto noBiases = importNemo(
        {"no-bias.yaml", "model:\n  num_layers: 4\n  hidden_size: 1024\n"
                         "  num_attention_heads: 16\n  seq_length: 2048\n  vocab_size: 32000\n"
                         "  micro_batch_size: 1\n  global_batch_size: 64\n"
                         "  num_moe_experts: 8\n  add_bias_linear: false\n"
                         "  position_embedding_type: rope\n  apply_rope_fusion: false\n"},
        off);
    REQUIRE(noBiases);
    CHECK_FALSE(noBiases->contains(kBiasLinearKey));
    CHECK((*noBiases)[kUnfusedRopeKey] == true);
}
