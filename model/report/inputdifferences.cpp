// Which inputs of two cluster-and-run pairs differ, and how they are named and printed: what
// the cost model reads, as JSON leaves (dp resolved per allocation), the known fields first.

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "comparison.h"
#include "extensions.h"
#include "text.h"
#include "writer.h"

namespace cs {

using nlohmann::json;

namespace {

struct KnownInput {
    std::string_view path;
    std::string_view label;
};

// The fields people compare first, in the order the table lists them; others follow in the
// order of the descriptions.
constexpr KnownInput kKnownInputs[] = {
    {"/cluster/gpu/name", "GPU"},
    {"/cluster/gpu/hbm_gib", "HBM per GPU (GiB)"},
    {"/cluster/gpu/hbm_TBps", "HBM bandwidth (TB/s)"},
    {"/cluster/gpu/peak_tflops/bf16", "BF16 peak (TFLOP/s)"},
    {"/cluster/gpu/peak_tflops/fp8", "FP8 peak (TFLOP/s)"},
    {"/cluster/gpu/peak_tflops/nvfp4", "NVFP4 peak (TFLOP/s)"},
    {"/cluster/gpu/nvlink_GBps", "GPU NVLink (GB/s)"},
    {"/cluster/racks", "racks"},
    {"/cluster/nodes_per_rack", "nodes per rack"},
    {"/cluster/gpus_per_node", "GPUs per node"},
    {"/cluster/layout/rows", "rows of racks"},
    {"/cluster/scale_up/name", "scale-up"},
    {"/cluster/scale_up/domain", "NVLink domain"},
    {"/cluster/scale_up/GBps_per_gpu", "NVLink (GB/s per GPU)"},
    {"/cluster/scale_up/latency_us", "NVLink latency (us)"},
    {"/cluster/scale_out/name", "scale-out"},
    {"/cluster/scale_out/Gbps_per_gpu", "NIC (Gb/s per GPU)"},
    {"/cluster/scale_out/latency_us", "fabric latency (us)"},
    {"/cluster/scale_out/topology/kind", "fabric"},
    {"/cluster/scale_out/topology/tiers", "fabric tiers"},
    {"/cluster/scale_out/topology/oversubscription", "oversubscription"},
    {"/cluster/overheads/virtualization", "virtualization overhead"},
    {"/cluster/scale_out/topology/switch_radix", "switch radix (ports)"},
    {"/cluster/scale_out/topology/nodes_per_leaf", "nodes per leaf switch"},
    {"/cluster/scale_out/topology/rails", "rails"},
    {"/cluster/scale_out/topology/routing", "routing"},
    {"/cluster/failures/racks", "racks out of service"},
    {"/cluster/failures/nodes", "nodes out of service"},
    {"/cluster/failures/gpus", "GPUs out of service"},
    {"/cluster/failures/switches", "switches out of service"},
    {"/cluster/failures/links", "links out of service"},
    {"/cluster/storage/write_GBps", "storage write (GB/s)"},
    {"/cluster/storage/read_GBps", "storage read (GB/s)"},
    {"/cluster/reliability/gpu_mtbf_h", "GPU MTBF (hours)"},
    {"/cluster/reliability/node_mtbf_h", "node MTBF (hours)"},
    {"/cluster/reliability/switch_mtbf_h", "switch MTBF (hours)"},
    {"/cluster/reliability/restart_s", "restart after a failure (s)"},
    {"/cluster/reliability/step_jitter", "step-time jitter per GPU"},
    {"/run/model/name", "model"},
    {"/run/model/layers", "layers"},
    {"/run/model/hidden", "hidden size"},
    {"/run/model/ffn_hidden", "FFN hidden size"},
    {"/run/model/heads", "attention heads"},
    {"/run/model/kv_heads", "KV heads"},
    {"/run/model/vocab", "vocabulary"},
    {"/run/model/seq_len", "sequence length"},
    {"/run/model/gated_mlp", "gated MLP"},
    {"/run/precision", "precision"},
    {"/run/batch/global", "global batch"},
    {"/run/batch/micro", "micro-batch"},
    {"/run/parallelism/tp", "TP"},
    {"/run/parallelism/cp", "CP"},
    {"/run/parallelism/pp", "PP"},
    {"/run/parallelism/vp", "VP (virtual stages)"},
    {"/run/parallelism/dp", "DP"},
    {"/run/parallelism/ep", "EP"},
    {"/run/parallelism/etp", "expert TP"},
    {"/run/parallelism/sequence_parallel", "sequence parallel"},
    {"/run/parallelism/distributed_optimizer", "distributed optimizer"},
    {"/run/parallelism/fsdp", "FSDP"},
    {"/run/parallelism/recompute", "recompute"},
    {"/run/placement", "placement"},
    {"/run/training/steps", "training steps"},
    {"/run/measured/step_time_s", "measured step time (s)"},
    {"/run/model/head_dim", "head dimension"},
    {"/run/model/mtp_layers", "multi-token prediction layers"},
    {"/run/model/moe/experts", "experts"},
    {"/run/model/moe/top_k", "experts per token (top-k)"},
    {"/run/model/moe/ffn_hidden", "expert FFN hidden size"},
    {"/run/model/moe/shared_experts", "shared experts"},
    {"/run/model/moe/shared_ffn_hidden", "shared expert FFN hidden size"},
    {"/run/model/moe/dense_layers", "leading dense layers"},
    {"/run/model/moe/dense_ffn_hidden", "dense layers' FFN hidden size"},
    {"/run/model/moe/capacity_factor", "expert capacity factor"},
    {"/run/model/moe/imbalance", "expert load imbalance"},
    {"/run/checkpoint/interval_steps", "checkpoint interval (steps)"},
    {"/run/checkpoint/async", "asynchronous checkpoints"},
    {"/run/allocation/racks", "allocated racks"},
    {"/run/allocation/nodes", "allocated nodes"},
};

// The extensions the cost model reads follow the known inputs, as their path names them.
std::optional<size_t> modelExtensionAt(const std::string& path)
{
    constexpr std::string_view kRun = "/run/";
    if (path.rfind(kRun, 0) != 0)
        return std::nullopt;
    for (size_t i = 0; i < std::size(kModelExtensions); ++i)
        if (path.compare(kRun.size(), std::string::npos, kModelExtensions[i].key) == 0)
            return i;
    return std::nullopt;
}

// The cluster's fields before the run's; in each, the known ones first.
std::pair<bool, size_t> listingRank(const std::string& path)
{
    const bool run = path.rfind("/run/", 0) == 0;
    for (size_t i = 0; i < std::size(kKnownInputs); ++i)
        if (kKnownInputs[i].path == path)
            return {run, i};
    if (const std::optional<size_t> at = modelExtensionAt(path))
        return {run, std::size(kKnownInputs) + *at};
    return {run, std::size(kKnownInputs) + std::size(kModelExtensions)};
}

std::string escapePointerToken(const std::string& key)
{
    std::string out;
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

// Objects are walked; arrays and scalars are leaves (a placement is one input).
void flatten(const json& value, const std::string& pointer, std::map<std::string, json>& leaves)
{
    if (!value.is_object()) {
        leaves[pointer] = value;
        return;
    }
    for (const auto& [key, member] : value.items())
        flatten(member, pointer + "/" + escapePointerToken(key), leaves);
}

// What the cost model reads, as JSON: the GPU's figures rather than its catalog name, dp and
// the row count as resolved; no names, notes, paths or x-* keys but those the model reads.
json inputsJson(const ClusterRun& cr)
{
    ClusterDesc cluster = cr.cluster;
    cluster.gpuByName = false;
    RunDesc run = cr.run;
    run.parallelism.dp = run.dpFor(allocatedGpuCount(cluster, run));
    json j = {{"cluster", toJson(cluster)}, {"run", toJson(run)}};
    for (json* part : {&j["cluster"], &j["run"]}) {
        for (auto it = part->begin(); it != part->end();) {
            const std::string& key = it.key();
            const bool dropped = key == "format" || key == "name" || key == "notes" ||
                                 key == "cluster" ||
                                 (key.rfind("x-", 0) == 0 && !readByCostModel(key));
            it = dropped ? part->erase(it) : std::next(it);
        }
    }
    if (j["run"].contains("measured"))
        j["run"]["measured"].erase("source");
    return j;
}

} // namespace

std::vector<InputDifference> inputDifferences(const ClusterRun& a, const ClusterRun& b)
{
    std::map<std::string, json> la, lb;
    flatten(inputsJson(a), "", la);
    flatten(inputsJson(b), "", lb);
    std::vector<std::string> paths;
    for (const auto& [path, value] : la)
        paths.push_back(path);
    for (const auto& [path, value] : lb)
        if (!la.count(path))
            paths.push_back(path);
    std::stable_sort(paths.begin(), paths.end(), [](const std::string& x, const std::string& y) {
        return listingRank(x) < listingRank(y);
    });
    std::vector<InputDifference> out;
    for (const std::string& path : paths) {
        const auto ia = la.find(path), ib = lb.find(path);
        const json va = ia == la.end() ? json() : ia->second;
        const json vb = ib == lb.end() ? json() : ib->second;
        if (va != vb)
            out.push_back({path, inputLabel(path), va, vb});
    }
    return out;
}

std::string inputLabel(const std::string& pointer)
{
    for (const KnownInput& k : kKnownInputs)
        if (k.path == pointer)
            return std::string(k.label);
    if (const std::optional<size_t> at = modelExtensionAt(pointer))
        return kModelExtensions[*at].label;
    // "/cluster/reliability/gpu_mtbf_h" -> "reliability: gpu mtbf h"
    std::vector<std::string> tokens;
    size_t start = 1;
    while (start <= pointer.size()) {
        const size_t end = std::min(pointer.find('/', start), pointer.size());
        tokens.push_back(pointer.substr(start, end - start));
        start = end + 1;
    }
    std::string label;
    for (size_t i = 1; i < tokens.size(); ++i) {
        std::string word = tokens[i];
        std::replace(word.begin(), word.end(), '_', ' ');
        label += (i == 1 ? "" : i + 1 == tokens.size() ? ": " : " ") + word;
    }
    return label.empty() ? pointer : label;
}

std::string inputText(const json& value)
{
    if (value.is_null())
        return "(not set)";
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_boolean())
        return value.get<bool>() ? "yes" : "no";
    if (value.is_number())
        return numberText(value.get<double>());
    if (value.is_array()) {
        // An allocation's ranges [[first, last], ...] read "first-last, ...".
        auto item = [](const json& v) {
            const bool range =
                v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number();
            return range ? inputText(v[0]) + "-" + inputText(v[1]) : inputText(v);
        };
        std::string out;
        for (size_t i = 0; i < value.size(); ++i)
            out += (i ? ", " : "") + item(value[i]);
        return out;
    }
    return value.dump();
}

} // namespace cs
