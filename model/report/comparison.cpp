#include "comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include "extensions.h"
#include "loader.h"
#include "text.h"
#include "validation.h"
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

double tokensPerStep(const RunDesc& run)
{
    return double(run.batch.global) * double(run.model.seqLen);
}

double perGpu(double value, const Evaluation& e)
{
    return e.gpusUsed > 0 ? value / double(e.gpusUsed) : 0;
}

std::vector<Figure> figuresOf(const Comparison& c)
{
    const Evaluation& ea = c.evalA;
    const Evaluation& eb = c.evalB;
    const double ta = tokensPerStep(c.a.run), tb = tokensPerStep(c.b.run);
    const auto gpuSecondsPerToken = [](const Evaluation& e, double tokens) {
        return tokens > 0 ? e.stepTimeS * double(e.gpusUsed) / tokens : 0;
    };
    std::vector<Figure> f = {
        {"gpus_used", "GPUs", FigureUnit::Count, false, false, double(ea.gpusUsed),
         double(eb.gpusUsed)},
        {"step_time_s", "step time", FigureUnit::Seconds, false, false, ea.stepTimeS, eb.stepTimeS},
        {"tokens_per_step", "tokens per step", FigureUnit::Count, false, true, ta, tb},
        {"tokens_per_s", "tokens per second", FigureUnit::Rate, false, true, ea.tokensPerS,
         eb.tokensPerS},
        {"memory_gib_per_gpu", "memory per GPU", FigureUnit::GiB, false, false, ea.memoryGiBPerGpu,
         eb.memoryGiBPerGpu},
        {"tokens_per_s_per_gpu", "tokens per second per GPU", FigureUnit::Rate, true, true,
         perGpu(ea.tokensPerS, ea), perGpu(eb.tokensPerS, eb)},
        {"tokens_per_gpu_hour", "tokens per GPU-hour", FigureUnit::Count, true, true,
         perGpu(ea.tokensPerS, ea) * 3600, perGpu(eb.tokensPerS, eb) * 3600},
        {"gpu_s_per_token", "GPU time per token", FigureUnit::GpuSeconds, true, false,
         gpuSecondsPerToken(ea, ta), gpuSecondsPerToken(eb, tb)},
        {"mfu", "MFU", FigureUnit::Fraction, true, true, ea.mfu, eb.mfu},
        {"hbm_in_use", "HBM in use", FigureUnit::Fraction, true, false,
         ea.memoryGiBPerGpu / std::max(1e-9, c.a.cluster.gpu.hbmGiB),
         eb.memoryGiBPerGpu / std::max(1e-9, c.b.cluster.gpu.hbmGiB)},
    };
    if (ea.timeToTrainS && eb.timeToTrainS) {
        f.push_back({"time_to_train_s", "time to train", FigureUnit::TrainingTime, false, false,
                     *ea.timeToTrainS, *eb.timeToTrainS});
        f.push_back({"gpu_hours_to_train", "GPU-hours to train", FigureUnit::GpuHours, true, false,
                     *ea.timeToTrainS * double(ea.gpusUsed) / 3600,
                     *eb.timeToTrainS * double(eb.gpusUsed) / 3600});
    }
    return f;
}

std::vector<BreakdownRow> breakdownOf(const Comparison& c)
{
    const auto pa = c.evalA.breakdown.parts();
    const auto pb = c.evalB.breakdown.parts();
    const auto perToken = [](double s, const Evaluation& e, const RunDesc& run) {
        const double tokens = tokensPerStep(run);
        return tokens > 0 ? s * double(e.gpusUsed) / tokens : 0;
    };
    std::vector<BreakdownRow> rows;
    for (size_t i = 0; i < pa.size(); ++i) {
        if (pa[i].dim && !usesDim(c.a.run, *pa[i].dim) && !usesDim(c.b.run, *pa[i].dim))
            continue;
        rows.push_back({std::string(pa[i].key), pa[i].label, pa[i].dim, pa[i].seconds,
                        pb[i].seconds, perToken(pa[i].seconds, c.evalA, c.a.run),
                        perToken(pb[i].seconds, c.evalB, c.b.run)});
    }
    return rows;
}

WhatIf evaluateWhatIf(WhatIf w, const ClusterDesc& cluster, const RunDesc& run)
{
    w.hbmGiB = cluster.gpu.hbmGiB;
    Diagnostics diags;
    checkRunShape(run, "", "", diags);
    checkRunOnCluster(run, cluster, "", "", diags);
    if (!diags.empty()) {
        w.why = diags.items().front().message;
        return w;
    }
    const Evaluation e = evaluate(cluster, run);
    w.valid = true;
    w.tokensPerSPerGpu = perGpu(e.tokensPerS, e);
    w.memoryGiBPerGpu = e.memoryGiBPerGpu;
    w.fitsMemory = e.fitsMemory;
    return w;
}

WhatIf gpuSwapped(const std::string& label, ClusterDesc cluster, const ClusterDesc& gpuFrom,
                  const RunDesc& run)
{
    cluster.gpu = gpuFrom.gpu;
    cluster.gpuByName = gpuFrom.gpuByName;
    WhatIf w;
    w.label = label;
    return evaluateWhatIf(std::move(w), cluster, run);
}

// Inputs that do not stand alone: counts change dp, dp follows the counts, and the GPU's
// fields go together (gpuSwapped). Names and records are not inputs of the step.
bool changesAlone(const std::string& path)
{
    for (std::string_view fixedPath :
         {"/cluster/gpu/", "/cluster/racks", "/cluster/nodes_per_rack", "/cluster/gpus_per_node",
          "/cluster/layout/", "/cluster/failures", "/run/parallelism/dp", "/run/model/name",
          "/run/measured/", "/run/training/"})
        if (path.rfind(fixedPath, 0) == 0)
            return false;
    return true;
}

// B with one input at A's value, on B's cluster. Where B has none of the section the input
// belongs to (no `storage`), it takes A's whole section: its fields do not stand alone.
WhatIf withInputOfA(const ClusterRun& a, const ClusterRun& b, const InputDifference& d)
{
    WhatIf w;
    w.label = "B with " + d.label + " " + inputText(d.a) + " (A's)";
    w.path = d.path;
    json j = {{"cluster", toJson(b.cluster)}, {"run", toJson(b.run)}};
    const json::json_pointer pointer(d.path);
    const json::json_pointer section = pointer.parent_pointer();
    if (d.a.is_null()) {
        j[section].erase(pointer.back());
    } else if (!j.contains(section) && !section.empty()) {
        const json jA = {{"cluster", toJson(a.cluster)}, {"run", toJson(a.run)}};
        j[section] = jA.at(section);
    } else {
        j[pointer] = d.a;
    }
    Diagnostics diags;
    const std::optional<ClusterDesc> cluster = clusterFromJson(j["cluster"], "", "/cluster", diags);
    const std::optional<RunDesc> run = runFromJson(j["run"], "", "/run", diags);
    if (!cluster || !run) {
        w.why = diags.items().front().message;
        return w;
    }
    return evaluateWhatIf(w, *cluster, *run);
}

std::string signedPercent(double ratio)
{
    return signedPercentText(ratio - 1);
}

std::string gpuCountText(const ClusterRun& side, const Evaluation& e)
{
    return withThousands(e.gpusUsed) + " " + side.cluster.gpu.name;
}

// "micro-batch 1 -> 2, VP 12 -> 6": the run's layout fields that differ.
std::string layoutChanges(const std::vector<InputDifference>& differences)
{
    std::vector<std::string> parts;
    for (const InputDifference& d : differences) {
        if (d.path.rfind("/run/parallelism/", 0) != 0 && d.path != "/run/batch/micro" &&
            d.path != "/run/placement")
            continue;
        parts.push_back(d.label + " " + inputText(d.a) + " -> " + inputText(d.b));
    }
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? ", " : "") + parts[i];
    return out;
}

std::vector<std::string> findingsOf(const Comparison& c)
{
    std::vector<std::string> out;
    const Figure* rate = c.figure("tokens_per_s_per_gpu");
    const Figure* perToken = c.figure("gpu_s_per_token");
    const std::optional<double> ratio = rate->ratio();
    if (ratio) {
        const bool more = *ratio >= 1;
        out.push_back("B (" + gpuCountText(c.b, c.evalB) + ") runs " +
                      fixed(std::abs(*ratio - 1) * 100, 1) + " % " + (more ? "more" : "fewer") +
                      " tokens per second per GPU than A (" + gpuCountText(c.a, c.evalA) +
                      "): " + figureText(FigureUnit::Rate, rate->b) + " against " +
                      figureText(FigureUnit::Rate, rate->a) + ".");
    }
    if (c.evalA.gpusUsed != c.evalB.gpusUsed)
        out.push_back("The steps (" + figureText(FigureUnit::Seconds, c.evalB.stepTimeS) +
                      " against " + figureText(FigureUnit::Seconds, c.evalA.stepTimeS) +
                      ") run on different GPU counts: per GPU is the fair comparison.");

    // Where the GPU time per token went, largest changes first.
    const double total = perToken->difference();
    std::vector<const BreakdownRow*> rows;
    double magnitude = 0;
    for (const BreakdownRow& r : c.breakdown) {
        magnitude += std::abs(r.deltaPerToken());
        if (r.deltaPerToken() != 0)
            rows.push_back(&r);
    }
    std::sort(rows.begin(), rows.end(), [](const BreakdownRow* x, const BreakdownRow* y) {
        return std::abs(x->deltaPerToken()) > std::abs(y->deltaPerToken());
    });
    if (!rows.empty() && magnitude > 0) {
        std::string parts;
        for (const BreakdownRow* r : rows) {
            if (std::abs(r->deltaPerToken()) < 0.05 * magnitude)
                break;
            const double d = r->deltaPerToken() * 1e3;
            parts += std::string(parts.empty() ? "" : ", ") + r->label + " " + (d >= 0 ? "+" : "") +
                     fixed(d, 3);
        }
        out.push_back("Per token: " + figureText(FigureUnit::GpuSeconds, perToken->b) +
                      " against " + figureText(FigureUnit::GpuSeconds, perToken->a) + " (" +
                      (total <= 0 ? "-" : "+") + fixed(std::abs(total) * 1e3, 3) + "), from " +
                      parts + ".");
    }

    if (c.whatIfs.size() == 2 && rate->a > 0) {
        const WhatIf& gpuOnly = c.whatIfs[0];
        const WhatIf& layoutOnOld = c.whatIfs[1];
        if (gpuOnly.valid)
            out.push_back("The GPU alone (A's layout on the " + c.b.cluster.gpu.name +
                          "): " + signedPercent(gpuOnly.tokensPerSPerGpu / rate->a) + " (" +
                          figureText(FigureUnit::Rate, gpuOnly.tokensPerSPerGpu) +
                          " tokens per second per GPU).");
        const std::string changes = layoutChanges(c.differences);
        if (gpuOnly.valid && gpuOnly.tokensPerSPerGpu > 0 && !changes.empty())
            out.push_back("The layout (" + changes +
                          "): " + signedPercent(rate->b / gpuOnly.tokensPerSPerGpu) + " on top.");
        if (layoutOnOld.valid && !layoutOnOld.fitsMemory)
            out.push_back("B's layout needs " + fixed(layoutOnOld.memoryGiBPerGpu, 1) +
                          " GiB per GPU: it does not fit the " + fixed(layoutOnOld.hbmGiB, 0) +
                          " GiB of the " + c.a.cluster.gpu.name + "; the " + c.b.cluster.gpu.name +
                          "'s " + fixed(c.b.cluster.gpu.hbmGiB, 0) + " GiB allow it.");
        else if (layoutOnOld.valid)
            out.push_back("B's layout on A's " + c.a.cluster.gpu.name + " would run " +
                          figureText(FigureUnit::Rate, layoutOnOld.tokensPerSPerGpu) +
                          " tokens per second per GPU (" +
                          signedPercent(layoutOnOld.tokensPerSPerGpu / rate->a) + " over A).");
    }
    // What each of B's own choices is worth: B over B with that input at A's value.
    std::vector<std::pair<double, std::string>> worth;
    for (const WhatIf& w : c.oneAtATime) {
        if (!w.valid || w.tokensPerSPerGpu <= 0 || rate->b <= 0)
            continue;
        const InputDifference* d = nullptr;
        for (const InputDifference& x : c.differences)
            if (x.path == w.path)
                d = &x;
        const double gain = rate->b / w.tokensPerSPerGpu;
        worth.push_back({gain, d->label + " " + inputText(d->b) + " (A: " + inputText(d->a) + ") " +
                                   signedPercent(gain) +
                                   (w.fitsMemory ? "" : ", A's value does not fit in memory")});
    }
    std::sort(worth.begin(), worth.end(), [](const auto& x, const auto& y) {
        return std::abs(x.first - 1) > std::abs(y.first - 1);
    });
    if (!worth.empty()) {
        std::string list;
        for (size_t i = 0; i < std::min<size_t>(worth.size(), 5); ++i)
            list += (i ? "; " : "") + worth[i].second;
        out.push_back("One input at a time, on B: " + list + ".");
    }
    return out;
}

} // namespace

std::optional<double> Figure::ratio() const
{
    if (a == 0)
        return std::nullopt;
    return b / a;
}

const Figure* Comparison::figure(std::string_view key) const
{
    for (const Figure& f : figures)
        if (f.key == key)
            return &f;
    return nullptr;
}

Comparison compareRuns(const ClusterRun& a, const ClusterRun& b)
{
    return compareRuns(a, evaluate(a.cluster, a.run), b, evaluate(b.cluster, b.run));
}

Comparison compareRuns(const ClusterRun& a, const Evaluation& evalA, const ClusterRun& b,
                       const Evaluation& evalB)
{
    Comparison c;
    c.a = a;
    c.b = b;
    c.evalA = evalA;
    c.evalB = evalB;
    // The comparison reads figures, not the step's events.
    c.evalA.events.clear();
    c.evalB.events.clear();
    c.figures = figuresOf(c);
    c.differences = inputDifferences(a, b);
    c.breakdown = breakdownOf(c);
    if (!(a.cluster.gpu == b.cluster.gpu)) {
        c.whatIfs.push_back(gpuSwapped("A's layout on B's GPU (" + b.cluster.gpu.name + ")",
                                       a.cluster, b.cluster, a.run));
        c.whatIfs.push_back(gpuSwapped("B's layout on A's GPU (" + a.cluster.gpu.name + ")",
                                       b.cluster, a.cluster, b.run));
    }
    for (const InputDifference& d : c.differences)
        if (changesAlone(d.path))
            c.oneAtATime.push_back(withInputOfA(a, b, d));
    const std::vector<ReferenceRun>& references = shippedReferenceRuns(defaultCalibration());
    c.rangeA = uncertaintyOf(evalA.stepTimeS, likenessOf(a.cluster, a.run), references);
    c.rangeB = uncertaintyOf(evalB.stepTimeS, likenessOf(b.cluster, b.run), references);
    c.findings = findingsOf(c);
    if (tied(c.rangeA, c.rangeB))
        c.findings.push_back("The measured steps may come in either order: A's range (" +
                             rangeText(c.rangeA) + ") and B's (" + rangeText(c.rangeB) +
                             ") overlap.");
    return c;
}

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

std::string figureText(FigureUnit unit, double value)
{
    switch (unit) {
    case FigureUnit::Count:
    case FigureUnit::Rate:
        return withThousands(int64_t(std::llround(value)));
    case FigureUnit::Seconds:
        return stepTimeText(value);
    case FigureUnit::Fraction:
        return fixed(value * 100, 1) + " %";
    case FigureUnit::GiB:
        return fixed(value, 1) + " GiB";
    case FigureUnit::GpuSeconds:
        return fixed(value * 1e3, 3) + " GPU-ms";
    case FigureUnit::TrainingTime:
        return trainingTimeText(value);
    case FigureUnit::GpuHours:
        return withThousands(int64_t(std::llround(value))) + " GPU-h";
    }
    return numberText(value);
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

namespace {
std::string notesIn(const Extensions& e)
{
    if (!e.contains("notes") || !e.value()["notes"].is_string())
        return {};
    return e.value()["notes"].get<std::string>();
}

} // namespace

std::string notesOf(const ClusterDesc& cluster)
{
    return notesIn(cluster.extensions);
}

std::string notesOf(const RunDesc& run)
{
    return notesIn(run.extensions);
}

} // namespace cs
