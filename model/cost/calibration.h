#pragma once
// The cost model's efficiency constants: the fraction of a datasheet peak that real kernels
// and collectives reach, and the few fixed costs. One GEMM efficiency per GPU architecture and
// precision, which dense and grouped GEMMs share (their shapes make them differ), the rest
// shared; fitted on the public measured runs by
// `clusterscope-cli calibrate` (calibrate.h), never one per run. Saved and read as JSON so that
// `--calibration FILE` replaces the built-in set.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "description.h"
#include "diagnostics.h"

namespace cs {

struct GemmEfficiency {
    // A GPU architecture ("Hopper"), which every GPU of it shares, or one GPU's name, which
    // takes precedence for that GPU.
    std::string gpu;
    Precision precision = Precision::BF16;
    // Fraction of the dense tensor-core peak at that precision reached by a full wave of large
    // tiles at the reference inner dimension (gemm.h, kReferenceK).
    double efficiency = 0;
    bool operator==(const GemmEfficiency&) const = default;
};

// How a training framework runs a step, where frameworks differ in ways the step time shows.
// Megatron-LM on its defaults (2021-23: the SC21 paper's software, MegaScale's baseline)
// reduces gradients in FP32 after the backward pass and overlaps no collective with compute.
// Megatron-Core and NeMo reduce bucketed BF16 gradients under the backward, gather parameters
// bucket by bucket, and overlap tensor-parallel collectives with their GEMMs. From the NeMo 26.06
// containers on (and in MLPerf's recipes), a step is captured in CUDA graphs, so the CPU no longer
// holds layers back, and MXFP8 expert GEMMs run markedly faster on Blackwell: the same
// configurations are 20-36 % faster than in 26.04 there, unchanged on H100 (docs/cost-model.md).
enum class Framework : uint8_t { Megatron2021, MegatronCore2025, MegatronCore2026 };
constexpr auto enumTexts(Framework)
{
    return std::array<EnumText<Framework>, 3>{
        {{Framework::Megatron2021, "megatron-2021", "Megatron-LM on its defaults, 2021-23"},
         {Framework::MegatronCore2025, "megatron-core-2025",
          "Megatron-Core / NeMo to the 26.04 containers"},
         {Framework::MegatronCore2026, "megatron-core-2026",
          "Megatron-Core / NeMo from the 26.06 containers"}}};
}
// The run's framework: `x-framework` in the run when given; else Megatron-LM on its defaults for an
// A100 run without a distributed optimizer (which that software did not have), the newest
// for any other.
Framework frameworkOf(const RunDesc& run, const GpuSpec& gpu);
// The 2026 full-iteration recipes: MXFP8 (FP8 on the GPUs with FP4, Blackwell) on the 2026
// framework (`framework`: the run's, frameworkOf), the whole step one CUDA graph.
bool fullIterationRecipe(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether the expert all-to-all runs under another micro-batch's compute (Megatron-Core's
// overlap_moe_expert_parallel_comm, off by default, turned on per recipe): `x-moe_a2a_overlap`
// in the run when given; else on for the full-iteration recipes. Never on Megatron-LM's
// defaults.
bool allToAllOverlapOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether attention runs in FP8 at the GPU's FP8 rate (Transformer Engine's
// fp8_dot_product_attention): `x-fp8_attention` in the run when given (on only where the run
// is FP8 or NVFP4 and the GPU has an FP8 rate); else on for the full-iteration recipes.
bool fp8AttentionOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether an FP8 run scales its GEMM inputs in blocks of 32 (MXFP8, Transformer Engine's
// MXFP8BlockScaling) rather than one scale a tensor: `x-fp8_block_scaling` in the run when
// given (only for FP8 on the GPUs with FP4, Blackwell, which have MX tensor cores); else on for
// the full-iteration recipes.
bool fp8BlockScalingOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether the LM head (and each MTP layer's) runs in MXFP8 rather than BF16 (Megatron-Core's
// fp8_output_proj, off by default, which only an MXFP8 run may set): `x-fp8_output_proj` in the
// run; never where the run does not scale in blocks (fp8BlockScalingOf).
bool fp8OutputProjOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether NCCL may all-reduce inside an NVLink domain with NVLink SHARP (NVLS): `x-nvls` in the
// run, off by default as Megatron-Bridge's launchers set NCCL_NVLS_ENABLE=0 (it costs memory).
// Only where the NVSwitches can reduce: third-generation NVSwitch, with NVLink 4 (900 GB/s a GPU)
// and later; the framework does not matter, the GPUs' NCCL does.
bool nvlsOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether the tensor-parallel collectives run under the GEMMs they feed (Transformer Engine's
// userbuffers, Megatron-Core's tp_comm_overlap), which hides `tp_overlap` of them:
// `x-tp_comm_overlap` in the run when given; else on, but for NVFP4, whose GEMMs the userbuffers
// do not overlap (MLPerf's NVFP4 configs: "TP overlap not supported yet"; Megatron-Bridge's
// NVFP4 recipes turn it off). Never on Megatron-LM's defaults.
bool tpCommOverlapOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// How many layers of each model chunk offload the activations they keep for backward to host
// memory (Transformer Engine's CPU offloading, Megatron-Core's cpu_offloading_num_layers):
// `x-activation_offload_layers` in the run, a whole number from 0; none by default.
int activationOffloadLayersOf(const RunDesc& run);
// Whether the model's linear layers carry biases (Megatron-Core's add_bias_linear; gpt-oss):
// `x-add_bias_linear` in the run, off by default. What it costs: each expert's second GEMM
// leaves its bias out, and Megatron-Core adds it afterwards scaled by the routing probability,
// expert by expert in FP32 (TEGroupedMLP._apply_bias), unless the recipe fuses the expert MLP
// (the full-iteration recipes' Transformer Engine op fuser). The other biases ride in their
// GEMMs' epilogues.
bool biasedLinearsOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether the experts' GLU clamps its input apart from the fused activation kernel
// (Megatron-Core's activation_func_clamp_value, gpt-oss; AutoModel's gpt-oss too):
// `x-activation_clamp` in the run, off by default. The recipes that fuse the expert MLP (the
// full-iteration ones) clamp inside it.
bool gluClampOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether the rotary embeddings run without Transformer Engine's fused kernel (Megatron-Core
// falls back where YaRN scales the attention by other than 1, as gpt-oss's does):
// `x-rope_unfused` in the run, off by default.
bool unfusedRopeOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether the loss runs Transformer Engine's fused cross-entropy on the BF16 logits
// (Megatron-Core's cross_entropy_loss_fusion with cross_entropy_fusion_impl "te", as
// Megatron-Bridge's performance recipes set from 25.11) rather than Megatron-Core's own, which
// copies them to FP32: `x-cross_entropy_te` in the run, off by default (Megatron-LM's).
bool teCrossEntropyOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether the data-parallel gradient reduction runs bucket by bucket as the backward pass
// releases them (Megatron's --overlap-grad-reduce) rather than once the backward pass is done:
// `x-overlap_grad_reduce` in the run when given; else on but on Megatron-LM's 2021 defaults.
bool overlapGradReduceOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether the expert all-to-all sends a token once to each GPU that holds one of its experts
// and once to each other NVLink domain, forwarded there over NVLink (Megatron-Core's flex
// dispatcher, DeepEP or HybridEP), rather than once per expert straight to the expert's GPU
// (the alltoall dispatcher): `x-moe_flex_dispatcher` in the run when given; else on for the
// full-iteration recipes, whose recipes run HybridEP. Never on Megatron-LM's defaults.
bool flexDispatcherOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether each MoE layer's router and token-count preprocessing replay as CUDA graphs
// (Megatron-Core's cuda_graph_scope moe_router and moe_preprocess), so that the CPU skips
// their launches: `x-cuda_graph_moe_router` in the run, off by default. The full-iteration
// recipes need no such switch: their CPU launches nothing a layer. (The GPU and framework are
// taken as every recipe switch's reader takes them, for the properties panel; neither matters.)
bool routerGraphOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Whether attention replays as CUDA graphs too (cuda_graph_scope attn): `x-cuda_graph_attn` in
// the run, off by default.
bool attentionGraphOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);
// Group-limited routing (DeepSeek-V3's node-limited routing; Megatron-Core's
// moe_router_num_groups and moe_router_group_topk): the experts, in `groups` equal runs of
// consecutive ones, and each token's top-k taken from `topK` of those groups only.
struct RouterGroups {
    int groups = 1;
    int topK = 1;
};
// `x-moe_router_num_groups` and `x-moe_router_group_topk` in the run, whole numbers with
// 1 <= group top-k < groups and groups dividing the experts; nothing otherwise (every token
// may reach any expert).
std::optional<RouterGroups> routerGroupsOf(const RunDesc& run);

struct Calibration {
    std::vector<GemmEfficiency> gemm; // by architecture and precision, fitted on every run
    // Expert GEMMs of one GPU or architecture measured apart (a calibration file may give
    // them); otherwise the GEMM efficiency times groupedEfficiency.
    std::vector<GemmEfficiency> grouped;
    // An architecture that no two model families measure, and no FP8 efficiency stands in for
    // (a fitted constant that one family informs explains that family, not the hardware): the
    // median of the fitted ones.
    double defaultGemmEfficiency = 0.5;
    // A BF16 GEMM's fraction of the BF16 peak over an FP8 GEMM's of the FP8 peak, for a GPU
    // whose BF16 GEMMs no run measures (the router and, unless in MXFP8, the LM head of its FP8
    // runs) or too few model families do. Not fitted (one family at most measures it): what
    // Transformer Engine's GEMM profiling measures on B300, MXFP8 1.42 times as fast as BF16
    // with its quantization, BF16 at 2 / 1.42 = 1.41 times FP8's fraction (calibrate.h,
    // kBf16OverFp8Max), as the fits of Hopper and Blackwell, which several families inform,
    // find (1.45 and 1.445).
    double bf16OverFp8 = 1.41;
    // The grouped kernels that run a GPU's experts reach this fraction of the efficiency of a
    // dense GEMM of the same shapes (one launch, per-expert offsets and scales, no tuning per
    // shape).
    double groupedEfficiency = 1;
    // MXFP8 expert GEMMs on Blackwell from the NeMo 26.06 containers on, over those before.
    double grouped2026Factor = 1;
    // The inner dimension at which a GEMM tile's fixed cost (filling the pipeline, writing the
    // tile) equals its FLOPs: k = gemmHalfWidth runs at half the speed of an endless k (gemm.h).
    double gemmHalfWidth = 800;
    double attentionEfficiency = 0.4; // flash attention, as a fraction of the BF16 peak
    double memoryEfficiency = 0.7;    // elementwise kernels, of the HBM bandwidth
    double nvlinkEfficiency = 0.8;    // bus bandwidth reached by NCCL on NVLink
    double scaleOutEfficiency = 0.8;  // bus bandwidth reached on the NIC
    double allToAllEfficiency = 0.6;  // of the link rates, by the expert-parallel all-to-all
    // Fraction of the TP collectives hidden under the GEMMs they feed (current frameworks).
    double tpOverlap = 0;
    // Fraction of the expert all-to-all hidden under other micro-batches' compute.
    double epOverlap = 0;
    // NCCL kernels under compute take SMs and HBM bandwidth: each second of data-parallel
    // collective hidden under compute slows that compute by this many seconds.
    double dpContention = 0;
    // The CPU's time to launch one layer for one micro-batch, forward and backward together,
    // and the extra of a mixture-of-experts layer (its attention's launches, routing, permutes,
    // the wait for token counts); a layer takes the longer of this and its GPU time. The
    // physical defaults of the MoE ones, which a fit keeps where fewer than two model families
    // inform them, are the launches, hooks and host syncs counted in Megatron-Core 0.14-0.15 and
    // Transformer Engine 2.8-2.9 on an x86 host (Megatron's default flags, MXFP8 experts, nothing
    // graphed; +-40 %): attention's about 560 us and the MoE's about 1,540; 2.6 times as much on
    // Grace. The fits find about twice the count (docs/cost-model.md, "Calibration").
    double layerHostUs = 0;
    double moeLayerHostUs = 2100;
    double expertHostUs = 220; // per expert a GPU holds, per MoE layer
    // The GPU's fixed time for each local expert's GEMM kernel, forward (the backward's two
    // per forward GEMM cost twice): a kernel's launch and its ramp and tail, which an expert's
    // small GEMMs cannot hide. None where one fused kernel runs every expert.
    double expertKernelUs = 0;
    // The extra of the overlapped all-to-all's schedule (combined 1F1B), launched sub-module by
    // sub-module with event waits between the two micro-batches' streams, per layer: counted,
    // about 470 us on x86 (schedule nodes, five autograd entries, stream switches, events).
    double a2aOverlapHostUs = 470;
    double frameworkMemoryGiB = 4; // CUDA context, NCCL buffers, allocator fragmentation

    // At the reference inner dimension. The GPU's own or its architecture's, else derived from
    // its FP8 one (NVFP4 the same fraction of the part of its peak Blackwell's FP4 MMA reaches,
    // BF16 times bf16OverFp8), else the default. An expert GEMM's: measured apart, else the
    // dense one times groupedEfficiency.
    double gemmEfficiency(const GpuSpec& gpu, Precision p) const;
    double groupedGemmEfficiency(const GpuSpec& gpu, Precision p) const;
    bool operator==(const Calibration&) const = default;
};

const Calibration& defaultCalibration();

nlohmann::json toJson(const Calibration& c);
// Reads a calibration written by toJson (or `calibrate -o`); problems located by pointer.
std::optional<Calibration> calibrationFromJson(const nlohmann::json& j, const std::string& file,
                                               Diagnostics& diags);
std::optional<Calibration> readCalibration(const std::string& path, Diagnostics& diags);

} // namespace cs
