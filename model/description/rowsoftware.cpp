#include "rowsoftware.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "description.h"
#include "extensions.h"
#include "text.h"

namespace cs {

using nlohmann::json;

std::string rowString(const json& object, const char* key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string rowString(const json& object, const char* member, const char* key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(member);
    return it != object.end() ? rowString(*it, key) : "";
}

namespace {

std::string sourceOf(const json& row)
{
    return rowString(row, "source");
}

// A NeMo container release: "26.04", or "26.04.01" for its patch release.
struct Container {
    int year = 0, month = 0, patch = 0;
    auto operator<=>(const Container&) const = default;
};

// "## 26.06 NeMo Container" in Megatron-Bridge tables, "ngc26.04" in MLPerf results.
std::optional<Container> containerOf(const std::string& text)
{
    for (size_t at = text.find_first_of("0123456789"); at != std::string::npos;
         at = text.find_first_of("0123456789", at + 1)) {
        Container c;
        if (std::sscanf(text.c_str() + at, "%2d.%2d", &c.year, &c.month) != 2 ||
            at + 5 > text.size())
            continue;
        size_t end = at + 5;
        if (end + 3 <= text.size() && text[end] == '.' &&
            std::isdigit(static_cast<unsigned char>(text[end + 1]))) {
            std::sscanf(text.c_str() + end + 1, "%2d", &c.patch);
            end += 3;
        }
        const std::string after = text.substr(end, 15);
        const bool container = after.rfind(" NeMo Container", 0) == 0 ||
                               (at >= 3 && text.compare(at - 3, 3, "ngc") == 0);
        if (container && c.year >= 20 && c.year < 100 && c.month >= 1 && c.month <= 12)
            return c;
    }
    return std::nullopt;
}

// Megatron-Bridge performance recipes by container, model family and GPU, from the recipes of
// each release (docs/cost-model.md, "Mixture of experts").
struct Recipes {
    Container first, last;
    const char* family;
    const char* gpu;
};
constexpr Container kLatest{99, 12, 99};

// Those that overlap the expert all-to-all with another micro-batch's compute
// (overlap_moe_expert_parallel_comm), besides the 2026 full-iteration MXFP8 ones the cost
// model knows (calibration.h).
const Recipes kAllToAllOverlapRecipes[] = {
    {{25, 9}, {25, 11, 99}, "DeepSeek-V3", "H100"},
    {{25, 11}, {25, 11, 99}, "Qwen3-30B-A3B", "H100"},
    {{25, 11}, {25, 11, 99}, "Qwen3-235B-A22B", "B200"},
    {{26, 2}, {26, 2}, "Qwen3-30B-A3B", "H100"},
    {{25, 11}, kLatest, "Qwen3-235B-A22B", "H100"},
    {{26, 4}, kLatest, "gpt-oss-120b", "GB200"},
    {{26, 4, 1}, {26, 4, 1}, "DeepSeek-V3", "B200"},
    // v0.3.0 (26.02); 26.02.01's B300 row keeps its layout (VP 4, which v0.3.1 drops) and speed.
    {{26, 2}, {26, 2, 1}, "Qwen3-235B-A22B", "B300"},
};

// Those that dispatch tokens with Megatron-Core's flex dispatcher (HybridEP, or DeepEP), one
// copy a GPU, where the others run the alltoall dispatcher, one copy an expert (the
// moe_token_dispatcher_type and moe_flex_dispatcher_backend each release's recipes set; 25.09's
// token-dropping recipes all run alltoall but DeepSeek-V3's on H100). The full-iteration MXFP8
// recipes run HybridEP, which the cost model assumes for them (calibration.h).
const Recipes kFlexDispatcherRecipes[] = {
    {{25, 9}, kLatest, "DeepSeek-V3", "H100"},
    {{25, 11}, kLatest, "DeepSeek-V3", "GB200"},
    {{25, 11}, kLatest, "DeepSeek-V3", "GB300"},
    {{26, 2}, kLatest, "DeepSeek-V3", "B200"},
    {{26, 2}, kLatest, "DeepSeek-V3", "B300"},
    {{25, 11}, kLatest, "Qwen3-235B-A22B", "GB200"},
    {{25, 11}, kLatest, "Qwen3-235B-A22B", "GB300"},
    {{26, 4, 1}, kLatest, "Qwen3-235B-A22B", "B300"},
    {{25, 11}, kLatest, "Qwen3-30B-A3B", "GB200"},
    {{25, 11}, kLatest, "Qwen3-30B-A3B", "GB300"},
    {{26, 2}, kLatest, "Qwen3-30B-A3B", "B300"},
    {{26, 2, 1}, kLatest, "Qwen3-30B-A3B", "B200"},
    {{26, 2}, kLatest, "Qwen3-30B-A3B", "H100"},
    {{26, 4}, {26, 4}, "gpt-oss-120b", "GB200"},
    {{26, 4}, {26, 4}, "gpt-oss-120b", "B200"},
    {{26, 4}, kLatest, "gpt-oss-120b", "B300"},
};

// Rows from elsewhere name their dispatcher in their source: DeepEP or HybridEP.
bool flexDispatcherInSource(const json& row)
{
    const std::string text = lowerCase(sourceOf(row));
    return text.find("deepep") != std::string::npos || text.find("hybridep") != std::string::npos;
}

// The 2026 full-iteration MXFP8 recipes that keep attention in BF16 (no
// fp8_dot_product_attention), which the cost model otherwise runs in FP8.
const Recipes kBf16AttentionRecipes[] = {
    {{26, 6}, kLatest, "DeepSeek-V3", "GB200"},
};

// What a recipe is matched on: the row's container, model family and GPU, read once.
struct RecipeKey {
    std::optional<Container> container;
    std::string family, gpu;
};

RecipeKey recipeKeyOf(const json& row)
{
    return {containerOf(sourceOf(row)), rowString(row, "family"), rowString(row, "cluster", "gpu")};
}

// Whether the recipe is the row's: its container in the recipe's releases, its model family
// and GPU the recipe's.
bool isRowsRecipe(const Recipes& r, const RecipeKey& k)
{
    return k.container && r.first <= *k.container && *k.container <= r.last &&
           k.family == r.family && k.gpu == r.gpu;
}

template <size_t N> bool inRecipes(const json& row, const Recipes (&recipes)[N])
{
    const RecipeKey key = recipeKeyOf(row);
    return std::any_of(std::begin(recipes), std::end(recipes),
                       [&](const Recipes& r) { return isRowsRecipe(r, key); });
}

// Megatron-Bridge's recipes that capture the whole step in one CUDA graph (cuda_graph_impl
// full_iteration, with HybridEP, the fused grouped MLP and FP8 attention): MXFP8 ones on
// Blackwell, from each release's workload configs (v0.5.0 for the 26.06 container, v0.5.1 for
// 26.06.01, v0.6.0 for 26.08). Their other FP8 recipes on Blackwell from 26.06 on launch layer
// by layer as before: every current-scaling and Llama one, B200's of DeepSeek-V3 and gpt-oss,
// B300's of gpt-oss, and in 26.06 B300's of DeepSeek-V3 (its MXFP8 config is its BF16 one) and
// B200's of both Qwen3 models.
const Recipes kFullIterationRecipes[] = {
    {{26, 6}, kLatest, "DeepSeek-V3", "GB200"},
    {{26, 6}, kLatest, "DeepSeek-V3", "GB300"},
    {{26, 6, 1}, kLatest, "DeepSeek-V3", "B300"},
    {{26, 6}, kLatest, "gpt-oss-120b", "GB200"},
    {{26, 6}, kLatest, "gpt-oss-120b", "GB300"},
    {{26, 6}, kLatest, "Qwen3-235B-A22B", "GB200"},
    {{26, 6}, kLatest, "Qwen3-235B-A22B", "GB300"},
    {{26, 6, 1}, kLatest, "Qwen3-235B-A22B", "B200"},
    {{26, 6, 1}, kLatest, "Qwen3-235B-A22B", "B300"},
    {{26, 6}, kLatest, "Qwen3-30B-A3B", "GB200"},
    {{26, 6}, kLatest, "Qwen3-30B-A3B", "GB300"},
    {{26, 6}, kLatest, "Qwen3-30B-A3B", "B300"},
    {{26, 6, 1}, kLatest, "Qwen3-30B-A3B", "B200"},
};

// A row of Megatron-Bridge's performance tables, which name their NeMo container.
bool megatronBridgeRow(const json& row)
{
    const std::string text = sourceOf(row);
    return text.find("Megatron-Bridge") != std::string::npos &&
           text.find(" NeMo Container") != std::string::npos;
}

// Whether an FP8 row's recipe scales in blocks (MXFP8): its `precision_recipe` when it has one,
// else its source ("FP8-MX", "MXFP8" against "FP8-CS" in Megatron-Bridge's tables).
bool mxfp8Recipe(const json& row)
{
    std::string text = lowerCase(rowString(row, "precision_recipe"));
    if (text.empty())
        text = lowerCase(sourceOf(row));
    return text.find("mxfp8") != std::string::npos || text.find("fp8-mx") != std::string::npos;
}

// An FP8 row on a GPU with FP4 (Blackwell), where the 2026 recipes may capture the whole step.
bool fp8OnBlackwellRow(const json& row)
{
    const GpuSpec* gpu = findCatalogGpu(rowString(row, "cluster", "gpu"));
    return rowString(row, "precision") == "fp8" && gpu && gpu->peakTflopsNvfp4 > 0;
}

// An MLPerf Training result of a model with experts (DeepSeek-V3, v6.0).
bool mlperfMoeRow(const json& row)
{
    return rowString(row, "id").rfind("mlperf_", 0) == 0 && row.contains("model") &&
           row["model"].is_object() && row["model"].contains("moe");
}

// Whether an MXFP8 row's LM head (and its MTP layer's) runs in MXFP8, Megatron-Core's
// fp8_output_proj: Megatron-Bridge's full-iteration MXFP8 recipes set it for DeepSeek-V3 and
// gpt-oss (v0.5.0 on, the 26.06 container; v0.5.1's B300 DeepSeek-V3 too; v0.6.0's perf_recipes
// keep them), never for Qwen3; MLPerf v6.0's DeepSeek-V3 configurations set FP8_OUTPUT_PROJ on
// GB300 (NVIDIA's and CoreWeave's), not on GB200.
bool fp8OutputProjRow(const json& row)
{
    if (rowString(row, "precision") != "fp8" || !mxfp8Recipe(row))
        return false;
    const std::string family = rowString(row, "family");
    if (mlperfMoeRow(row))
        return rowString(row, "id").rfind("mlperf_v60_", 0) == 0 && family == "DeepSeek-V3" &&
               rowString(row, "cluster", "gpu") == "GB300";
    return megatronBridgeRow(row) && inRecipes(row, kFullIterationRecipes) &&
           (family == "DeepSeek-V3" || family == "gpt-oss-120b");
}

// A Megatron-Bridge FP8 row on Blackwell whose recipe launches layer by layer: the cost model
// costs the CPU's launches as before the 26.06 recipes, as an import does for a launch without a
// full-iteration CUDA graph (recipesettings.cpp).
bool layerByLayerFp8Recipe(const json& row)
{
    return megatronBridgeRow(row) && fp8OnBlackwellRow(row) &&
           !(mxfp8Recipe(row) && inRecipes(row, kFullIterationRecipes));
}

// The software a row was measured with, as the cost model tells frameworks apart
// (calibration.h): runs from NeMo containers 26.06 and later, but the FP8 ones on Blackwell whose
// recipe launches layer by layer, and MLPerf results with experts (whose recipes capture the
// whole iteration in CUDA graphs), on the newest. MegaScale's Megatron-LM baselines on
// Megatron-LM's defaults (FP32 gradients reduced after the backward pass, no TP overlap): the
// overlaps are what MegaScale adds to it (its section 3.2). Every other run on the 2025 one, the
// SC21 and recompute papers' rows too: on the defaults they fit worse (docs/cost-model.md,
// "Measured runs"), their hand-tuned runs hid more than that.
std::string frameworkOfSource(const json& row)
{
    const std::string text = sourceOf(row);
    if (text.find("MegaScale") != std::string::npos &&
        text.find(", Megatron-LM,") != std::string::npos)
        return "megatron-2021";
    if (mlperfMoeRow(row))
        return "megatron-core-2026";
    const std::optional<Container> container = containerOf(text);
    return container && *container >= Container{26, 6} && !layerByLayerFp8Recipe(row)
               ? "megatron-core-2026"
               : "megatron-core-2025";
}

// Those that offload activations to host memory (cpu_offloading_num_layers), all with FSDP:
// a row that runs its recipe's mapping (FSDP) offloads as many layers.
struct OffloadRecipe {
    Container first, last;
    const char* model;
    const char* gpu;
    const char* precision;
    int layers;
};
const OffloadRecipe kActivationOffloadRecipes[] = {
    {{25, 11}, kLatest, "Llama 3 70B", "GB300", "bf16", 30},
    {{25, 11}, kLatest, "Llama 3 70B", "GB300", "fp8", 20},
    {{25, 11}, kLatest, "Llama 3 70B", "GB200", "bf16", 20},
    {{25, 11}, kLatest, "Llama 3 70B", "GB200", "fp8", 40},
    {{25, 11}, kLatest, "Llama 3 70B", "B200", "fp8", 5},
    {{25, 11}, kLatest, "Llama 3.1 405B", "GB300", "bf16", 40},
    {{25, 11}, kLatest, "Llama 3.1 405B", "GB300", "fp8", 10},
    {{25, 11}, kLatest, "Llama 3.1 405B", "GB200", "fp8", 92},
};

int offloadedLayersOf(const json& row)
{
    const std::optional<Container> container = containerOf(sourceOf(row));
    if (!container)
        return 0;
    const std::string name = rowString(row, "model", "name");
    const std::string gpu = rowString(row, "cluster", "gpu");
    const std::string precision = rowString(row, "precision");
    for (const OffloadRecipe& r : kActivationOffloadRecipes)
        if (r.first <= *container && *container <= r.last && name == r.model && gpu == r.gpu &&
            precision == r.precision)
            return r.layers;
    return 0;
}

// Where each token's experts may lie (Megatron-Core's moe_router_num_groups and
// moe_router_group_topk, as [groups, groups per token]): DeepSeek-V3's node-limited routing
// takes its 8 experts from 4 of 8 groups, in Megatron-Core's forced balancing too (random
// logits, routed as any). AutoModel's fake balanced gate gives token i experts i k to i k + k - 1
// (mod the experts): one of experts / k groups of k consecutive experts, whole, so that a token
// crosses to at most one other NVLink domain (docs/cost-model.md, "Mixture of experts").
std::optional<std::pair<int, int>> routerGroupsOfRow(const json& row)
{
    const auto model = row.find("model");
    if (model == row.end() || !model->is_object() || !model->contains("moe"))
        return std::nullopt;
    if (rowString(*model, "moe", "routing").rfind("fake balanced gate", 0) == 0) {
        const json& moe = (*model)["moe"];
        const int experts = moe.value("experts", 0), topK = moe.value("top_k", 0);
        if (topK > 0 && experts > topK && experts % topK == 0)
            return std::pair{experts / topK, 1};
        return std::nullopt;
    }
    if (rowString(row, "family") == "DeepSeek-V3")
        return std::pair{8, 4};
    return std::nullopt;
}

// A row of Megatron-MoE-ModelZoo's Qwen3 tables, run by its scripts and benchmarking configs.
bool modelZooQwen3Row(const json& row)
{
    return sourceOf(row).find("Megatron-MoE-ModelZoo") != std::string::npos &&
           rowString(row, "family").rfind("Qwen3", 0) == 0;
}

// Megatron-Bridge's performance scripts run the loss in Transformer Engine's cross-entropy
// (cross_entropy_fusion_impl "te", set for every recipe from v0.2.0, the 25.11 container: the
// scripts' common overrides); the 25.09 rows ran Megatron-Core's own. The Model Zoo's Qwen3
// configs set it too (model_configs/benchmarking/Qwen3-*.yaml since 274316a, 2025-08-20, read by
// every script through runtime_configs/benchmarking/common.conf).
bool teCrossEntropyRow(const json& row)
{
    const std::optional<Container> container = containerOf(sourceOf(row));
    return (megatronBridgeRow(row) && container && *container >= Container{25, 11}) ||
           modelZooQwen3Row(row);
}

// gpt-oss, whose software runs work the other models' does not: its linear layers carry biases
// (the Hugging Face model's `gate_up_proj_bias` and `down_proj_bias` for its experts;
// Megatron-Bridge's GPTOSSProvider sets add_bias_linear), its experts' GLU clamps its input at
// 7 (`swiglu_limit`) outside the fused activation, and its YaRN rotary embeddings scale the
// attention by 1.35, which Megatron-Core's fused RoPE does not support (rope_utils.py). AutoModel's
// gpt-oss clamps and rotates in eager PyTorch as well.
bool gptOssRow(const json& row)
{
    return lowerCase(rowString(row, "model", "name")).rfind("gpt-oss", 0) == 0;
}

// Which modules a recipe replays as Transformer Engine CUDA graphs layer by layer
// (cuda_graph_impl transformer_engine): the router with the MoE preprocessing (moe_router,
// moe_preprocess in cuda_graph_scope), and attention (attn) as well.
enum class GraphedModules { None, Router, RouterAndAttention };

// Megatron-Bridge's recipes that graph the router, from each release's workload configs
// (v0.2.0 to v0.5.1); precision "" is every recipe of the model and GPU, else "bf16", "fp8"
// (current scaling) or "mxfp8". The full-iteration recipes (26.06 on, MXFP8 on Blackwell)
// capture the whole step instead, so their rows take neither key.
struct GraphRecipe {
    Recipes recipe;
    const char* precision;
    GraphedModules modules;
};
constexpr GraphedModules kRouter = GraphedModules::Router;
constexpr GraphedModules kRouterAttention = GraphedModules::RouterAndAttention;
const GraphRecipe kRouterGraphRecipes[] = {
    {{{25, 11}, {25, 11, 99}, "DeepSeek-V3", "GB200"}, "", kRouter},
    {{{26, 2}, kLatest, "DeepSeek-V3", "GB200"}, "", kRouterAttention},
    {{{25, 11}, {25, 11, 99}, "DeepSeek-V3", "GB300"}, "", kRouterAttention},
    {{{26, 2}, kLatest, "DeepSeek-V3", "GB300"}, "bf16", kRouterAttention},
    // v0.5.0's B300 config (26.06) for every precision; its MXFP8 one is full-iteration later.
    {{{26, 6}, kLatest, "DeepSeek-V3", "B300"}, "bf16", kRouterAttention},
    {{{26, 6}, kLatest, "DeepSeek-V3", "B300"}, "fp8", kRouterAttention},
    {{{26, 6}, {26, 6}, "DeepSeek-V3", "B300"}, "mxfp8", kRouterAttention},
    {{{25, 11}, kLatest, "gpt-oss-120b", "GB300"}, "", kRouterAttention},
    {{{26, 2}, kLatest, "gpt-oss-120b", "B300"}, "", kRouterAttention},
    {{{25, 11}, kLatest, "Qwen3-235B-A22B", "GB200"}, "", kRouterAttention},
    // v0.3.0 on, the 256-GPU recipes (the _V2 ones) graph attention too; 25.11's 64-GPU ones not.
    {{{25, 11}, {25, 11, 99}, "Qwen3-235B-A22B", "GB300"}, "", kRouter},
    {{{26, 2}, kLatest, "Qwen3-235B-A22B", "GB300"}, "", kRouterAttention},
    {{{25, 11}, kLatest, "Qwen3-30B-A3B", "GB200"}, "bf16", kRouterAttention},
    {{{25, 11}, kLatest, "Qwen3-30B-A3B", "GB200"}, "fp8", kRouterAttention},
    {{{25, 11}, kLatest, "Qwen3-30B-A3B", "GB200"}, "mxfp8", kRouter},
    {{{25, 11}, kLatest, "Qwen3-30B-A3B", "GB300"}, "", kRouter},
    {{{25, 11}, {26, 2}, "Qwen3-30B-A3B", "B200"}, "", kRouter},
    {{{26, 2, 1}, kLatest, "Qwen3-30B-A3B", "B200"}, "", kRouterAttention},
    {{{26, 2}, kLatest, "Qwen3-30B-A3B", "B300"}, "", kRouter},
    {{{25, 11}, kLatest, "Qwen3-30B-A3B", "H100"}, "bf16", kRouter},
};

std::string recipePrecisionOf(const json& row)
{
    const std::string precision = rowString(row, "precision");
    return precision == "fp8" && mxfp8Recipe(row) ? "mxfp8" : precision;
}

// The 2026 full-iteration recipes: FP8 on a GPU with FP4 (Blackwell) under the 2026 software,
// which capture the whole step in one CUDA graph (the cost model's fullIterationRecipe).
bool fullIterationRow(const json& row)
{
    return fp8OnBlackwellRow(row) && frameworkOfSource(row) == "megatron-core-2026";
}

// Megatron-MoE-ModelZoo's Qwen3 scripts (e8650517d60d) run its GB200 and GB300 rows with
// --cuda-graph-scope attn moe_router moe_preprocess, and its H100 mapping of TP 2, PP 8 and
// EP 32 (run_h100_235b.sh) with moe_router moe_preprocess; its other H100 rows name no script.
GraphedModules modelZooGraphs(const json& row, const std::string& gpu)
{
    if (gpu == "GB200" || gpu == "GB300")
        return kRouterAttention;
    const json par = row.value("parallelism", json::object());
    const bool scripted = gpu == "H100" && par.value("tp", 0) == 2 && par.value("pp", 0) == 8 &&
                          par.value("ep", 0) == 32;
    return scripted ? kRouter : GraphedModules::None;
}

GraphedModules graphedModulesOfRow(const json& row)
{
    if (fullIterationRow(row))
        return GraphedModules::None;
    if (modelZooQwen3Row(row))
        return modelZooGraphs(row, rowString(row, "cluster", "gpu"));
    if (!megatronBridgeRow(row))
        return GraphedModules::None;
    const RecipeKey key = recipeKeyOf(row);
    const std::string precision = recipePrecisionOf(row);
    for (const GraphRecipe& r : kRouterGraphRecipes)
        if (isRowsRecipe(r.recipe, key) && (!*r.precision || precision == r.precision))
            return r.modules;
    return GraphedModules::None;
}

bool runsFsdp(const json& run)
{
    const auto par = run.find("parallelism");
    if (par == run.end() || !par->is_object())
        return false;
    const auto fsdp = par->find("fsdp");
    return fsdp != par->end() && fsdp->is_boolean() && fsdp->get<bool>();
}

} // namespace

void addRowSoftware(const json& row, json& run)
{
    if (runsFsdp(run))
        if (const int layers = offloadedLayersOf(row); layers > 0)
            run[kActivationOffloadKey] = layers;
    run[kFrameworkKey] = frameworkOfSource(row);
    if (rowString(row, "precision") == "fp8")
        run[kFp8BlockScalingKey] = mxfp8Recipe(row);
    if (inRecipes(row, kAllToAllOverlapRecipes))
        run[kAllToAllOverlapKey] = true;
    if (inRecipes(row, kBf16AttentionRecipes))
        run[kFp8AttentionKey] = false;
    if (fp8OutputProjRow(row))
        run[kFp8OutputProjKey] = true;
    if (inRecipes(row, kFlexDispatcherRecipes) || flexDispatcherInSource(row))
        run[kFlexDispatcherKey] = true;
    if (const GraphedModules graphed = graphedModulesOfRow(row); graphed != GraphedModules::None) {
        run[kRouterGraphKey] = true;
        if (graphed == GraphedModules::RouterAndAttention)
            run[kAttentionGraphKey] = true;
    }
    if (teCrossEntropyRow(row))
        run[kTeCrossEntropyKey] = true;
    if (gptOssRow(row)) {
        run[kBiasLinearKey] = true;
        run[kGluClampKey] = true;
        run[kUnfusedRopeKey] = true;
    }
    if (const auto groups = routerGroupsOfRow(row)) {
        run[kRouterGroupsKey] = groups->first;
        run[kRouterGroupTopKKey] = groups->second;
    }
}

} // namespace cs
