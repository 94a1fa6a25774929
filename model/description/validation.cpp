#include "validation.h"

#include <nlohmann/json.hpp>

#include "loader.h"
#include "text.h"
#include "writer.h"

namespace cs {

namespace {

std::string str(int64_t n)
{
    return std::to_string(n);
}

void checkExperts(const RunDesc& r, const std::string& file, const std::string& base,
                  Diagnostics& diags)
{
    const Parallelism& p = r.parallelism;
    if (!r.model.moe) {
        if (p.ep > 1 || p.etp > 1)
            diags.atPointer(file, base + "/parallelism/" + (p.ep > 1 ? "ep" : "etp"),
                            "ep = " + str(p.ep) + " and etp = " + str(p.etp) +
                                " need a mixture-of-experts model (model/moe)");
        return;
    }
    const Moe& moe = *r.model.moe;
    if (moe.experts % p.ep != 0)
        diags.atPointer(file, base + "/parallelism/ep",
                        "ep = " + str(p.ep) + " must divide the model's " + str(moe.experts) +
                            " experts");
    if (moe.topK > moe.experts)
        diags.atPointer(file, base + "/model/moe/top_k",
                        "top_k = " + str(moe.topK) + " is more than the " + str(moe.experts) +
                            " experts");
    if (moe.sharedExperts > 0 && moe.sharedFfnHidden < 1)
        diags.atPointer(file, base + "/model/moe/shared_ffn_hidden",
                        "the " + str(moe.sharedExperts) + " shared experts need a width");
    if (moe.denseLayers > 0 && moe.denseFfnHidden < 1)
        diags.atPointer(file, base + "/model/moe/dense_ffn_hidden",
                        "the " + str(moe.denseLayers) + " dense layers need a width");
    if (moe.denseLayers >= r.model.layers)
        diags.atPointer(file, base + "/model/moe/dense_layers",
                        "dense_layers = " + str(moe.denseLayers) + " leaves none of the " +
                            str(r.model.layers) + " layers to the experts");
}

void checkAttention(const RunDesc& r, const std::string& file, const std::string& base,
                    Diagnostics& diags)
{
    const Attention& a = r.model.attention;
    if (a.kind == AttentionKind::Mla &&
        (a.kvLoraRank < 1 || a.qkNopeHeadDim + a.qkRopeHeadDim < 1 || a.vHeadDim < 1))
        diags.atPointer(file, base + "/model/attention",
                        "multi-head latent attention needs kv_lora_rank, qk_nope_head_dim or "
                        "qk_rope_head_dim, and v_head_dim");
    if (a.kind == AttentionKind::SlidingWindow && (a.window < 1 || a.every < 1))
        diags.atPointer(file, base + "/model/attention",
                        "sliding-window attention needs a window and an `every` of at least 1");
}

// Expert layers fold etp x ep x expert-dp over the tp x cp x dp ranks of a stage.
void checkExpertFolding(const RunDesc& r, int dp, const std::string& file, const std::string& base,
                        Diagnostics& diags)
{
    const Parallelism& p = r.parallelism;
    const int64_t ranks = int64_t(p.tp) * p.cp * dp;
    const int64_t expert = int64_t(p.etp) * p.ep;
    if (dp > 0 && expert > 1 && ranks % expert != 0)
        diags.atPointer(file, base + "/parallelism/ep",
                        "etp x ep = " + str(p.etp) + " x " + str(p.ep) + " = " + str(expert) +
                            " must divide the tp x cp x dp = " + str(ranks) +
                            " ranks of a pipeline stage, over which expert layers fold");
}

// Micro-batches per pipeline x pp x vp within kMaxChunkPasses.
void checkPipelineSize(const RunDesc& r, int dp, const std::string& file, const std::string& base,
                       Diagnostics& diags)
{
    const Parallelism& p = r.parallelism;
    if (dp <= 0 || r.batch.global % (int64_t(dp) * r.batch.micro) != 0)
        return; // said already
    const int64_t microBatches = r.batch.global / (int64_t(dp) * r.batch.micro);
    const int64_t passes = microBatches * p.pp * p.vp;
    if (passes <= kMaxChunkPasses)
        return;
    // pp x vp is at most the layers (4,096), so the micro-batches are always what to change.
    diags.atPointer(file, base + "/batch/global",
                    "global / (dp x micro) = " + withThousands(microBatches) +
                        " micro-batches per pipeline x pp " + str(p.pp) + " x vp " + str(p.vp) +
                        " = " + withThousands(passes) +
                        " passes through a pipeline chunk per step; ClusterScope simulates at "
                        "most " +
                        withThousands(kMaxChunkPasses));
}

// Every range of the allocation inside the cluster; false (said) when one is past it.
bool checkAllocationFits(const Allocation& a, const ClusterDesc& cluster, const std::string& file,
                         const std::string& base, Diagnostics& diags)
{
    const bool racks = a.unit == Allocation::Unit::Racks;
    const std::string unit = racks ? "rack" : "node";
    const int64_t count = racks ? cluster.racks : cluster.nodeCount();
    const size_t before = diags.size();
    for (size_t i = 0; i < a.ranges.size(); ++i) {
        if (a.ranges[i].second >= count)
            diags.atPointer(file, base + "/allocation/" + unit + "s/" + std::to_string(i) + "/1",
                            "allocation " + unit + " " + str(a.ranges[i].second) +
                                " is past the cluster's last " + unit + " " + str(count - 1));
    }
    return diags.size() == before;
}

} // namespace

void checkRunShape(const RunDesc& r, const std::string& file, const std::string& base,
                   Diagnostics& diags)
{
    const ModelShape& m = r.model;
    const Parallelism& p = r.parallelism;
    // A struct built in code may hold anything; the rules below divide by these.
    if (p.tp < 1 || p.cp < 1 || p.pp < 1 || p.vp < 1 || p.ep < 1 || p.etp < 1 || p.dp < 0 ||
        m.kvHeads < 1 || m.heads < 1 || r.batch.micro < 1) {
        diags.atPointer(file, base + "/parallelism",
                        "tp, cp, pp, vp, ep, etp, heads, kv_heads and micro must be at least 1, "
                        "dp at least 0");
        return;
    }
    if (m.heads % p.tp != 0)
        diags.atPointer(file, base + "/parallelism/tp",
                        "tp = " + str(p.tp) + " must divide the model's " + str(m.heads) +
                            " attention heads");
    if (m.kvHeads % p.tp != 0 && p.tp % m.kvHeads != 0)
        diags.atPointer(file, base + "/model/kv_heads",
                        "kv_heads = " + str(m.kvHeads) + " and tp = " + str(p.tp) +
                            ": one must divide the other so that KV heads split or replicate "
                            "evenly over tensor-parallel ranks");
    if (m.heads % m.kvHeads != 0)
        diags.atPointer(file, base + "/model/kv_heads",
                        "kv_heads = " + str(m.kvHeads) + " must divide heads = " + str(m.heads) +
                            " (each KV head serves an equal group of query heads)");
    // Context parallelism cuts each sequence into 2 x cp chunks to balance causal attention;
    // with cp = 1 the sequence is not cut at all.
    if (p.cp > 1 && m.seqLen % (2 * p.cp) != 0)
        diags.atPointer(file, base + "/model/seq_len",
                        "seq_len = " + str(m.seqLen) +
                            " must be divisible by 2 x cp = " + str(2 * int64_t(p.cp)));
    // Megatron-Core's pipeline split can count the embedding and the loss as a layer each
    // (account_for_embedding_in_pipeline_split, account_for_loss_in_pipeline_split): Llama 3.1
    // 405B runs its 126 layers on 16 x 8 virtual stages.
    const int64_t stages = int64_t(p.pp) * p.vp;
    if (int64_t(m.layers) + 2 < stages)
        diags.atPointer(file, base + "/model/layers",
                        "layers = " + str(m.layers) + " and the embedding and the loss, a stage " +
                            "each at most, are fewer than pp x vp = " + str(p.pp) + " x " +
                            str(p.vp) + " = " + str(stages) +
                            " pipeline stages; each stage needs a layer");
    if (p.vp > 1 && p.pp == 1)
        diags.atPointer(file, base + "/parallelism/vp",
                        "vp = " + str(p.vp) +
                            " needs pp > 1: virtual stages interleave a pipeline");
    const int64_t perStep = int64_t(p.dp) * r.batch.micro;
    if (p.dp > 0 && r.batch.global % perStep != 0)
        diags.atPointer(file, base + "/batch/global",
                        "global batch " + str(r.batch.global) +
                            " must be divisible by dp x micro = " + str(p.dp) + " x " +
                            str(r.batch.micro) + " = " + str(perStep));
    checkExperts(r, file, base, diags);
    checkAttention(r, file, base, diags);
}

void checkRunOnCluster(const RunDesc& run, const ClusterDesc& cluster, const std::string& file,
                       const std::string& runBase, Diagnostics& diags)
{
    const Parallelism& p = run.parallelism;
    if (run.allocation && !checkAllocationFits(*run.allocation, cluster, file, runBase, diags))
        return; // its GPUs are not known
    const int64_t gpus = allocatedGpuCount(cluster, run);
    const int64_t held = heldGpuCount(cluster, run);
    const std::string healthy =
        gpus == held ? std::string() : " healthy"; // said only when some are out
    const std::string owner = run.allocation ? "the allocation" : "the cluster";
    if (run.allocation && gpus == 0) {
        diags.atPointer(file, runBase + "/allocation",
                        "the allocation's " + withThousands(held) +
                            " GPUs are all out of service (cluster failures)");
        return;
    }
    const int64_t modelParallel = int64_t(p.tp) * p.cp * p.pp;
    const std::string factors = str(p.tp) + " x " + str(p.cp) + " x " + str(p.pp);
    if (p.dp > 0) {
        if (modelParallel * p.dp > gpus)
            diags.atPointer(file, runBase + "/parallelism/dp",
                            "tp x cp x pp x dp = " + factors + " x " + str(p.dp) + " = " +
                                withThousands(modelParallel * p.dp) + ", but " + owner + " has " +
                                withThousands(gpus) + healthy + " GPUs");
    } else if (gpus % modelParallel != 0) {
        diags.atPointer(file, runBase + "/parallelism",
                        owner + "'s " + withThousands(gpus) + healthy +
                            " GPUs do not divide by tp x cp x pp = " + factors + " = " +
                            str(modelParallel) + ", so dp cannot be derived");
    } else {
        const int64_t perStep = gpus / modelParallel * run.batch.micro;
        if (run.batch.global % perStep != 0)
            diags.atPointer(file, runBase + "/batch/global",
                            "global batch " + str(run.batch.global) +
                                " must be divisible by dp x micro = " + str(gpus / modelParallel) +
                                " x " + str(run.batch.micro) + " = " + str(perStep) +
                                " (dp derived from " + owner + "'s " + withThousands(gpus) +
                                healthy + " GPUs)");
    }
    checkExpertFolding(run, run.dpFor(gpus), file, runBase, diags);
    checkPipelineSize(run, run.dpFor(gpus), file, runBase, diags);
    if (cluster.gpu.peakTflops(run.precision) <= 0) {
        std::vector<std::string> supported;
        for (Precision p : enumValues<Precision>()) {
            if (cluster.gpu.peakTflops(p) > 0)
                supported.push_back(toString(p));
        }
        diags.atPointer(file, runBase + "/precision",
                        "the " + printable(cluster.gpu.name) + " has no " +
                            toString(run.precision) + " peak; it supports " +
                            wordList(supported, ", "));
    }
}

void validateClusterRun(const ClusterDesc& cluster, const RunDesc& run, Diagnostics& diags)
{
    const std::string where = "edit";
    ClusterDesc checked = cluster;
    // A GPU named from the catalog is written by name only: when its figures were edited away
    // from the catalog's, the figures are what gets evaluated, so they are what gets checked.
    if (checked.gpuByName) {
        const GpuSpec* catalog = findCatalogGpu(checked.gpu.name);
        checked.gpuByName = catalog && *catalog == checked.gpu;
    }
    nlohmann::json clusterJson = toJson(checked);
    // toJson leaves out 0, "automatic"; any other value out of range is the file's error.
    if (cluster.layoutRows < 0)
        clusterJson["layout"]["rows"] = cluster.layoutRows;
    const bool clusterOk = clusterFromJson(clusterJson, where, "/cluster", diags).has_value();
    nlohmann::json runJson = toJson(run);
    runJson.erase("cluster"); // a path on disk is not part of what an edit changes
    if (run.parallelism.dp < 0)
        runJson["parallelism"]["dp"] = run.parallelism.dp;
    const bool runOk = runFromJson(runJson, where, "/run", diags).has_value();
    if (clusterOk && runOk)
        checkRunOnCluster(run, cluster, where, "/run", diags);
}

} // namespace cs
