#include "measuredruns.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "extensions.h"
#include "fileio.h"
#include "jsonfields.h"
#include "loader.h"
#include "text.h"
#include "validation.h"

namespace cs {
namespace {

using nlohmann::json;

int largestDivisorAtMost(int n, int limit)
{
    for (int k = std::min(n, limit); k > 1; --k) {
        if (n % k == 0)
            return k;
    }
    return 1;
}

// The row's `cluster`: what the run used, not a whole machine.
struct RowCluster {
    std::string gpu;
    int gpus = 1;
    int gpusPerNode = 1;
    int domainGpus = 1;
    int usedPerDomain = 1;
    double nvlinkGBps = 1;
    double nicGbps = 1;
};

std::optional<RowCluster> readRowCluster(const json& row, const std::string& where,
                                         Diagnostics& diags)
{
    FieldReader top(row, where, "", diags);
    const json* object = top.readObject("cluster", Need::Required);
    if (!object)
        return std::nullopt;
    const size_t before = diags.size();
    RowCluster c;
    FieldReader f(*object, where, "/cluster", diags);
    constexpr int kMaxRowGpus = 131072;
    f.readString("gpu", c.gpu, Need::Required);
    f.readInt("gpus", c.gpus, 1, kMaxRowGpus, Need::Required);
    f.readInt("gpus_per_node", c.gpusPerNode, 1, 72, Need::Required);
    f.readInt("nvlink_domain_gpus", c.domainGpus, 1, 1024, Need::Required);
    f.readInt("gpus_used_per_nvlink_domain", c.usedPerDomain, 1, 1024, Need::Required);
    f.readNumber("nvlink_GBps_bidir", c.nvlinkGBps, 1, 100000, Need::Required);
    f.readNumber("scale_out_Gbps_per_gpu", c.nicGbps, 1, 100000, Need::Required);
    // The GPUs, an NVLink domain and the part of it the run used are each whole nodes.
    if (diags.size() == before && c.gpus % c.gpusPerNode != 0)
        f.error("gpus", "must be a multiple of gpus_per_node");
    if (diags.size() == before && c.domainGpus % c.gpusPerNode != 0)
        f.error("nvlink_domain_gpus", "must be a multiple of gpus_per_node (" +
                                          std::to_string(c.gpusPerNode) +
                                          "): a domain is whole nodes");
    if (diags.size() == before && c.usedPerDomain > c.domainGpus)
        f.error("gpus_used_per_nvlink_domain",
                "must be at most nvlink_domain_gpus (" + std::to_string(c.domainGpus) + ")");
    if (diags.size() == before && c.usedPerDomain % c.gpusPerNode != 0)
        f.error("gpus_used_per_nvlink_domain",
                "must be a multiple of gpus_per_node (" + std::to_string(c.gpusPerNode) + ")");
    if (diags.size() != before)
        return std::nullopt;
    return c;
}

// The cluster file a row describes: an NVL72 row is rack domains of the GPUs the run used per
// rack (fewer when the run is smaller than a rack, or when the racks do not divide the nodes
// evenly: then the largest whole number of nodes per rack that does); an HGX row is node
// domains, four nodes to a rack (racks do not change the model's answer for node domains).
json clusterJsonOf(const RowCluster& c, const std::string& id)
{
    const int nodes = c.gpus / c.gpusPerNode;
    const bool rackDomain = c.domainGpus > c.gpusPerNode;
    const int nodesPerRack =
        rackDomain ? largestDivisorAtMost(nodes, std::max(1, c.usedPerDomain / c.gpusPerNode))
                   : largestDivisorAtMost(nodes, 4);
    return {{"format", kClusterFormat},
            {"name", id},
            {"gpu", c.gpu},
            {"racks", nodes / nodesPerRack},
            {"nodes_per_rack", nodesPerRack},
            {"gpus_per_node", c.gpusPerNode},
            {"scale_up",
             {{"name", "NVLink"},
              {"domain", rackDomain ? "rack" : "node"},
              {"GBps_per_gpu", c.nvlinkGBps}}},
            {"scale_out", {{"name", "scale-out"}, {"Gbps_per_gpu", c.nicGbps}}}};
}

} // namespace

std::optional<double> capacityFactorOfRouting(std::string_view routing)
{
    std::string text(routing);
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return c == '_' || c == '-' ? ' ' : std::tolower(c); });
    if (text.find("dropless") != std::string::npos)
        return std::nullopt;
    constexpr std::string_view kName = "capacity factor";
    const size_t at = text.find(kName);
    if (at == std::string::npos)
        return std::nullopt;
    const size_t number = text.find_first_not_of(" :=", at + kName.size());
    if (number == std::string::npos)
        return std::nullopt;
    const char* begin = text.c_str() + number;
    char* end = nullptr;
    const double factor = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(factor) || factor <= 0)
        return std::nullopt;
    return factor;
}

namespace {

// The row's model in the run format: the prose a row keeps for people (how tokens were
// routed, which layers slide) is left out or read for what the format says with a number.
json modelJsonOf(json model)
{
    if (!model.is_object())
        return model;
    if (auto moe = model.find("moe"); moe != model.end() && moe->is_object()) {
        if (const auto routing = moe->find("routing");
            routing != moe->end() && routing->is_string() && !moe->contains("capacity_factor"))
            if (const auto factor = capacityFactorOfRouting(routing->get<std::string>()))
                (*moe)["capacity_factor"] = *factor;
        moe->erase("routing");
    }
    if (auto attention = model.find("attention");
        attention != model.end() && attention->is_object()) {
        attention->erase("attention_sinks");
        attention->erase("qk_layernorm");
        if (auto layers = attention->find("layers"); layers != attention->end()) {
            const bool alternating =
                layers->is_string() && layers->get<std::string>().find("every other") == 0;
            if (alternating)
                (*attention)["every"] = 2;
            attention->erase("layers");
        }
    }
    return model;
}

// A string member of an object, or "" when it is missing or not a string.
std::string stringAt(const json& object, const char* key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The same of a member object: object[member][key].
std::string stringAt(const json& object, const char* member, const char* key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(member);
    return it != object.end() ? stringAt(*it, key) : "";
}

std::string sourceOf(const json& row)
{
    return stringAt(row, "source");
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

// The software a row was measured with, as the cost model tells frameworks apart
// (calibration.h): runs from NeMo containers 26.06 and later, and MLPerf results with experts
// (whose recipes capture the whole iteration in CUDA graphs), on the newest. MegaScale's
// Megatron-LM baselines on Megatron-LM's defaults (FP32 gradients reduced after the backward
// pass, no TP overlap): the overlaps are what MegaScale adds to it (its section 3.2). Every
// other run on the 2025 one, the SC21 and recompute papers' rows too: on the defaults they fit
// worse (docs/cost-model.md, "Measured runs"), their hand-tuned runs hid more than that.
std::string frameworkOfSource(const json& row)
{
    const std::string text = sourceOf(row);
    if (text.find("MegaScale") != std::string::npos &&
        text.find(", Megatron-LM,") != std::string::npos)
        return "megatron-2021";
    const auto id = row.find("id");
    if (id != row.end() && id->is_string() && id->get<std::string>().rfind("mlperf_", 0) == 0 &&
        row.contains("model") && row["model"].is_object() && row["model"].contains("moe"))
        return "megatron-core-2026";
    const std::optional<Container> container = containerOf(text);
    return container && *container >= Container{26, 6} ? "megatron-core-2026"
                                                       : "megatron-core-2025";
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

template <size_t N> bool inRecipes(const json& row, const Recipes (&recipes)[N])
{
    const std::optional<Container> container = containerOf(sourceOf(row));
    const std::string family = stringAt(row, "family");
    const std::string gpu = stringAt(row, "cluster", "gpu");
    return container && std::any_of(std::begin(recipes), std::end(recipes), [&](const auto& r) {
               return r.first <= *container && *container <= r.last && family == r.family &&
                      gpu == r.gpu;
           });
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
    const std::string name = stringAt(row, "model", "name");
    const std::string gpu = stringAt(row, "cluster", "gpu");
    const std::string precision = stringAt(row, "precision");
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
    if (stringAt(*model, "moe", "routing").rfind("fake balanced gate", 0) == 0) {
        const json& moe = (*model)["moe"];
        const int experts = moe.value("experts", 0), topK = moe.value("top_k", 0);
        if (topK > 0 && experts > topK && experts % topK == 0)
            return std::pair{experts / topK, 1};
        return std::nullopt;
    }
    if (stringAt(row, "family") == "DeepSeek-V3")
        return std::pair{8, 4};
    return std::nullopt;
}

// gpt-oss's linear layers carry biases (the Hugging Face model's `gate_up_proj_bias` and
// `down_proj_bias` for its experts; Megatron-Bridge's GPTOSSProvider sets add_bias_linear).
bool biasedLinearsOfRow(const json& row)
{
    return lowerCase(stringAt(row, "model", "name")).rfind("gpt-oss", 0) == 0;
}

// Whether an FP8 row's recipe scales in blocks (MXFP8): its `precision_recipe` when it has one,
// else its source ("FP8-MX", "MXFP8" against "FP8-CS" in Megatron-Bridge's tables).
bool mxfp8Recipe(const json& row)
{
    std::string text = lowerCase(stringAt(row, "precision_recipe"));
    if (text.empty())
        text = lowerCase(sourceOf(row));
    return text.find("mxfp8") != std::string::npos || text.find("fp8-mx") != std::string::npos;
}

bool fsdpInSource(const json& row)
{
    const auto source = row.find("source");
    if (source == row.end() || !source->is_string())
        return false;
    const std::string& text = source->get_ref<const std::string&>();
    const size_t at = text.find("FSDP ");
    return at != std::string::npos && at + 5 < text.size() && text[at + 5] >= '1' &&
           text[at + 5] <= '9';
}

bool runsFsdp(const json& run)
{
    const auto par = run.find("parallelism");
    if (par == run.end() || !par->is_object())
        return false;
    const auto fsdp = par->find("fsdp");
    return fsdp != par->end() && fsdp->is_boolean() && fsdp->get<bool>();
}

json runJsonOf(const json& row, const std::string& id)
{
    json run = {{"format", kRunFormat}, {"name", id}};
    for (const char* key : {"model", "parallelism", "batch", "precision"}) {
        if (const auto it = row.find(key); it != row.end())
            run[key] = *it;
    }
    if (run.contains("model"))
        run["model"] = modelJsonOf(run["model"]);
    // Older rows give FSDP only in the table row their `source` quotes ("FSDP 64").
    if (run.contains("parallelism") && run["parallelism"].is_object() &&
        !run["parallelism"].contains("fsdp") && fsdpInSource(row))
        run["parallelism"]["fsdp"] = true;
    if (const auto recipe = row.find("precision_recipe"); recipe != row.end())
        run[kPrecisionRecipeKey] = *recipe;
    if (runsFsdp(run))
        if (const int layers = offloadedLayersOf(row); layers > 0)
            run[kActivationOffloadKey] = layers;
    run[kFrameworkKey] = frameworkOfSource(row);
    if (stringAt(row, "precision") == "fp8")
        run[kFp8BlockScalingKey] = mxfp8Recipe(row);
    if (inRecipes(row, kAllToAllOverlapRecipes))
        run[kAllToAllOverlapKey] = true;
    if (inRecipes(row, kBf16AttentionRecipes))
        run[kFp8AttentionKey] = false;
    if (inRecipes(row, kFlexDispatcherRecipes) || flexDispatcherInSource(row))
        run[kFlexDispatcherKey] = true;
    if (biasedLinearsOfRow(row))
        run[kBiasLinearKey] = true;
    if (const auto groups = routerGroupsOfRow(row)) {
        run[kRouterGroupsKey] = groups->first;
        run[kRouterGroupTopKKey] = groups->second;
    }
    // Runs with experts keep Megatron-Core's default rank order (tp-cp-ep-dp-pp): pipeline
    // stages outermost, so that each expert-parallel group is the data-parallel neighbours of
    // one stage, as the MoE recipes rely on. Dense rows keep the layout of formats.md.
    if (const auto model = row.find("model");
        model != row.end() && model->is_object() && model->contains("moe"))
        run["placement"] = {"tp", "cp", "dp", "pp"};
    return run;
}

// tp x cp x pp x dp as the row gives them; 0 when any is missing or not a whole number (the
// run's reader reports that).
int64_t worldSizeOf(const json& row)
{
    const auto par = row.find("parallelism");
    if (par == row.end() || !par->is_object())
        return 0;
    int64_t world = 1;
    for (const char* key : {"tp", "cp", "pp", "dp"}) {
        const auto v = par->find(key);
        if (v == par->end() || !v->is_number_integer() || v->get<int64_t>() < 1 ||
            v->get<int64_t>() > (int64_t(1) << 20))
            return 0;
        world *= v->get<int64_t>();
    }
    return world;
}

std::optional<Measured> readRowMeasured(const json& row, const std::string& where,
                                        Diagnostics& diags)
{
    FieldReader top(row, where, "", diags);
    const json* object = top.readObject("measured", Need::Required);
    if (!object)
        return std::nullopt;
    Measured m;
    FieldReader f(*object, where, "/measured", diags);
    constexpr double kMaxStepTimeS = 1e6;
    if (!f.readNumber("step_time_s", m.stepTimeS, 1e-6, kMaxStepTimeS, Need::Required))
        return std::nullopt;
    if (const auto source = row.find("source"); source != row.end() && source->is_string())
        m.source = source->get<std::string>();
    return m;
}

} // namespace

std::string precisionRecipeOf(const RunDesc& run)
{
    return stringAt(run.extensions.value(), kPrecisionRecipeKey);
}

std::optional<MeasuredRun> measuredRunFromJson(const json& row, const std::string& where,
                                               Diagnostics& diags)
{
    if (!row.is_object()) {
        diags.atPointer(where, "", "a measured run must be a JSON object");
        return std::nullopt;
    }
    MeasuredRun mr;
    FieldReader top(row, where, "", diags);
    top.readString("id", mr.id, Need::Required);
    top.readString("family", mr.family, Need::Optional);
    const std::optional<RowCluster> rowCluster = readRowCluster(row, where, diags);
    const std::optional<Measured> measured = readRowMeasured(row, where, diags);
    // A row is a run on all of its GPUs: said first, as the other rules follow from it.
    if (const int64_t world = worldSizeOf(row);
        rowCluster && world > 0 && world != rowCluster->gpus)
        diags.atPointer(where, "/parallelism/dp",
                        "tp x cp x pp x dp = " + withThousands(world) +
                            " must equal the GPU count (" + withThousands(rowCluster->gpus) + ")");
    std::optional<RunDesc> run = runFromJson(runJsonOf(row, mr.id), where, "", diags);
    if (!rowCluster || !measured || !run)
        return std::nullopt;
    // The cluster's own problems (an unknown GPU) are the row's /cluster problems.
    Diagnostics clusterDiags;
    std::optional<ClusterDesc> cluster =
        clusterFromJson(clusterJsonOf(*rowCluster, mr.id), where, "/cluster", clusterDiags);
    diags.append(clusterDiags);
    if (!cluster)
        return std::nullopt;
    const size_t before = diags.size();
    checkRunOnCluster(*run, *cluster, where, "", diags);
    if (diags.size() != before)
        return std::nullopt;
    run->measured = *measured;
    mr.cluster = std::move(*cluster);
    mr.run = std::move(*run);
    return mr;
}

std::vector<MeasuredRun> parseMeasuredRuns(std::string_view text, const std::string& file,
                                           Diagnostics& diags)
{
    std::vector<MeasuredRun> runs;
    int lineNo = 0;
    int rows = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
            if (end == text.size())
                break;
            continue;
        }
        if (++rows > kMaxMeasuredRuns) {
            diags.atPosition(file, lineNo, 1,
                             "more than " + withThousands(kMaxMeasuredRuns) +
                                 " measured runs in one file; ClusterScope reads at most that "
                                 "many (the rows from here on are left out)");
            break;
        }
        Diagnostics lineDiags;
        const std::optional<json> row = parseJson(line, file, lineDiags);
        if (!row) {
            // parseJson sees one line; put its problems on this line of the file.
            for (const Diagnostic& d : lineDiags.items())
                diags.atPosition(file, lineNo, std::max(1, d.column), d.message);
            continue;
        }
        const std::string where = file + ":" + std::to_string(lineNo);
        Diagnostics rowDiags;
        if (auto mr = measuredRunFromJson(*row, where, rowDiags)) {
            mr->line = lineNo;
            runs.push_back(std::move(*mr));
        }
        // A refused row is named by its id too, which is how reports and people know it.
        const auto id = row->is_object() ? row->find("id") : row->end();
        const std::string named = id != row->end() && id->is_string()
                                      ? " (row " + inQuotes(id->get<std::string>()) + ")"
                                      : "";
        for (Diagnostic d : rowDiags.items()) {
            d.message += named;
            diags.atPointer(d.file, d.pointer, d.message);
        }
    }
    return runs;
}

std::vector<MeasuredRun> readMeasuredRuns(const std::string& path, Diagnostics& diags)
{
    const std::optional<std::string> text = readFileText(path, diags);
    if (!text)
        return {};
    return parseMeasuredRuns(*text, path, diags);
}

} // namespace cs
