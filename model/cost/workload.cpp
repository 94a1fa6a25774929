#include "workload.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <numeric>

#include "calibration.h"
#include "checkpoint.h"
#include "dataparallel.h"
#include "groupplacement.h"
#include "layers.h"
#include "loss.h"
#include "placement.h"
#include "schedule.h"
#include "stagesplit.h"

namespace cs {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// Weights and optimizer state as kept, per parameter: what a checkpoint holds.
constexpr double kParamBytes = kCheckpointWeightBytes; // BF16, or FP8 with its transpose
constexpr double kOptimizerBytes = kCheckpointOptimizerBytes;
// The optimizer step's HBM traffic per parameter it owns: the gradient norm reads the FP32
// gradient (4), clipping rewrites it (8), Adam reads weight, gradient and both moments and
// writes weight and moments (28), the BF16 copy of the weight (6), zeroing the gradient (4).
constexpr double kOptimizerTrafficBytes = 50;

void resolveSizes(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                  Workload& w)
{
    const Parallelism& par = run.parallelism;
    const int64_t healthy = allocatedGpuCount(cluster, run);
    w.p = std::max(1, par.pp);
    w.v = std::max(1, par.vp);
    w.t = std::max(1, par.tp);
    w.c = std::max(1, par.cp);
    w.ep = std::max(1, par.ep);
    w.etp = std::max(1, par.etp);
    w.d = std::max(1, run.dpFor(healthy));
    w.m = std::max(1, run.microBatchesFor(healthy));
    w.gpus = int64_t(w.t) * w.c * w.p * w.d;
    w.distributedOptimizer = par.distributedOptimizer;
    w.virtualization = cluster.virtualization;
    w.dpContention = cal.dpContention;
    // FP8 runs gather FP8 weights (Megatron's --fp8-param-gather); NVFP4 holds 4 bits a
    // weight plus one FP8 scale per 16.
    w.gatherBytesPerParam = weightBytesOf(run.precision);
    w.framework = frameworkOf(run, cluster.gpu);
    // Megatron-LM on its 2021 defaults reduces FP32 gradients once the backward pass is done.
    w.overlapGradReduce = overlapGradReduceOf(run, cluster.gpu, w.framework);
    w.gradBytesPerParam = w.framework == Framework::Megatron2021 ? 4 : 2;
    w.fsdp = par.fsdp;
}

// The fabric's oversubscription, routing and failures enter through the contention factors of
// the run's routed flows (placeDimensions, pipelineSends), not here.
void resolveLinks(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                  std::shared_ptr<const FabricFactors> fabric, Workload& w)
{
    const FabricTopology& topology = cluster.scaleOut.topology;
    w.links.nvlink = {cluster.nvlinkGBpsPerDirection() * cal.nvlinkEfficiency,
                      cluster.scaleUp.latencyUs};
    w.links.fabric = {cluster.nicGBpsPerDirection() * cal.scaleOutEfficiency,
                      cluster.scaleOut.latencyUs};
    w.links.nvls = nvlsOf(run, cluster.gpu, w.framework);
    w.links.spanClass = topology.tiers >= 3   ? LinkClass::ScaleOut3
                        : topology.tiers == 2 ? LinkClass::ScaleOut2
                                              : LinkClass::ScaleOut1;
    if (fabric)
        w.links.factors = std::move(fabric);
    else if (fabricCanContend(cluster))
        w.links.factors = cachedFabricFactors(cluster, run);
}

// Embedding (first virtual stage) and LM head with the loss (last): the head is a
// vocabulary-parallel GEMM, in BF16 unless the recipe runs it in MXFP8 (Rates::head), the loss a
// softmax over the vocabulary (loss.h).
struct Ends {
    Parts headForward, headBackward, embedForward, embedBackward;
    double headParams = 0; // the embedding's, and the LM head's on the last stage
    double headFlops = 0;  // the LM head's forward, per micro-batch, per GPU
    double headTp = 0;
    double lossKeptBytes = 0; // what the loss holds for backward, per micro-batch, per GPU
    LayerCosts mtp; // the multi-token prediction layers, with their heads, on the last stage
};

// What the LM head and loss cost over one micro-batch (once for the model, once per MTP layer).
void addHead(const RunDesc& run, const Workload& w, const Rates& r, double& forward,
             double& backward, double& tpS)
{
    const ModelShape& ms = run.model;
    const double tokens = double(run.batch.micro) * ms.seqLen / w.c;
    const double h = ms.hidden;
    const double logits = tokens * ms.vocab / w.t;
    const LossBytes loss = lossBytesPerLogit(w.teCrossEntropy);
    const double gemm = gemmSeconds({tokens, double(ms.vocab) / w.t, h}, r.head);
    // In MXFP8 the forward casts the head's input, the backward the logits' gradient (the whole
    // input, where with sequence parallelism Transformer Engine casts its shard before the
    // gather: the rows measured run TP 1).
    forward += gemm + (loss.pass.forward * logits + r.headCastBytes * tokens * h) / r.memory;
    backward += 2 * gemm + (loss.pass.backward + r.headCastBytes) * logits / r.memory;
    const HierarchicalGroup& g = w.dims[Dim::TP].group;
    if (w.t > 1) {
        const double bytes = kActivationBytes * tokens * h;
        tpS += run.parallelism.sequenceParallel ? allGather(bytes, g) : allReduce(bytes, g);
    }
}

Ends endsOf(const LayerContext& ctx)
{
    const RunDesc& run = ctx.run;
    const Workload& w = ctx.w;
    const ModelShape& ms = run.model;
    const double tokens = double(run.batch.micro) * ms.seqLen / w.c;
    const double h = ms.hidden;
    Ends e;
    e.headParams = double(ms.vocab) * h / w.t;
    e.lossKeptBytes = lossBytesPerLogit(w.teCrossEntropy).kept * tokens * ms.vocab / w.t;
    e.headFlops = 2 * tokens * double(ms.vocab) * h / w.t;
    addHead(run, w, ctx.rates, e.headForward.compute, e.headBackward.compute, e.headTp);
    e.headForward.comm[Dim::TP] = w.tpExposed * e.headTp;
    e.headForward.hidden[Dim::TP] = e.headTp - e.headForward.comm[Dim::TP];
    e.headBackward.comm[Dim::TP] = e.headForward.comm[Dim::TP];
    e.headBackward.hidden[Dim::TP] = e.headForward.hidden[Dim::TP];
    e.embedForward.compute = 2 * kActivationBytes * tokens * h / ctx.rates.memory;
    e.embedBackward.compute = 2 * e.embedForward.compute;
    if (ms.mtpLayers > 0) {
        // Each MTP module: the next token's embedding joined to the hidden state (a 2h x h
        // projection), one more transformer layer like the last, and its own LM head and loss.
        LayerCosts one = layerCosts(ctx, layerKindsOf(ms).kindAt(ms.layers - 1));
        const double projection = gemmSeconds({tokens, h / w.t, 2 * h}, ctx.rates.gemm);
        one.forward.compute += projection + e.embedForward.compute;
        one.backward.compute += 2 * projection + e.embedBackward.compute;
        double headTp = 0;
        addHead(run, w, ctx.rates, one.forward.compute, one.backward.compute, headTp);
        for (Parts* pass : {&one.forward, &one.backward}) {
            pass->comm[Dim::TP] += w.tpExposed * headTp;
            pass->hidden[Dim::TP] += (1 - w.tpExposed) * headTp;
        }
        one.comm[Dim::TP] += 2 * headTp;
        one.denseParams += 2 * h * h / w.t;
        one.modelFlops += 2 * tokens * (2 * h * h + double(ms.vocab) * h) / w.t;
        e.mtp.forward = one.forward.times(ms.mtpLayers);
        e.mtp.backward = one.backward.times(ms.mtpLayers);
        for (Dim d : kAllDims)
            e.mtp.comm[d] = one.comm[d] * ms.mtpLayers;
        e.mtp.denseParams = one.denseParams * ms.mtpLayers;
        e.mtp.expertParams = one.expertParams * ms.mtpLayers;
        e.mtp.activationBytes = one.activationBytes * ms.mtpLayers;
        e.mtp.modelFlops = one.modelFlops * ms.mtpLayers;
    }
    return e;
}

// The layers of the model by kind, each kind costed once.
struct LayerTable {
    LayerKinds pattern;
    std::vector<LayerKind> kinds;
    std::vector<LayerCosts> costs;
    int count(size_t kind, int first, int end) const
    {
        return pattern.count(kinds[kind], first, end);
    }
    double modelFlops(int first, int end) const
    {
        double flops = 0;
        for (size_t k = 0; k < kinds.size(); ++k)
            flops += count(k, first, end) * costs[k].modelFlops;
        return flops;
    }
};

LayerTable layerTable(const LayerContext& ctx)
{
    LayerTable t;
    t.pattern = layerKindsOf(ctx.run.model);
    t.kinds = t.pattern.present();
    for (LayerKind kind : t.kinds)
        t.costs.push_back(layerCosts(ctx, kind));
    return t;
}

// The last split asked for on this thread: a search asks for one model's split again and
// again, its FLOPs only scaled by the micro-batch and the parallel sizes. The layers' shares
// follow from the pattern and each kind's share.
struct SplitMemo {
    int chunks = 0;
    LayerKinds pattern;
    std::vector<double> kindShares; // each kind's layer, then the head and MTP layers
    std::vector<int> split;
};

// Layers per virtual stage as even in FLOPs as whole layers allow; kindShares: each layer
// kind's share of the model's FLOPs, then the head's (with the MTP layers).
std::vector<int> flopBalancedSplit(const ModelShape& model, const LayerTable& table,
                                   const std::vector<double>& kindShares, int chunks)
{
    std::vector<double> shares;
    for (int i = 0; i < model.layers; ++i) {
        const LayerKind kind = table.pattern.kindAt(i);
        const size_t k =
            size_t(std::find(table.kinds.begin(), table.kinds.end(), kind) - table.kinds.begin());
        shares.push_back(kindShares[k]);
    }
    shares.push_back(kindShares.back());
    std::vector<int> split = splitByShares(shares, chunks);
    // The chunks left a layer short go first, beside the embedding, where DeepSeek-V3's layouts
    // ("Et|(tt|)*30mL") put them.
    std::stable_sort(split.begin(), split.end() - 1);
    return split;
}

// Layers per virtual stage, in order. Where the counts allow, Megatron-Core's own split
// (megatronSplit): as many on each, the head and MTP layers on the last beside its share
// (recipes that give no layout, such as gpt-oss's, run so), or, where only the layers and two
// divide, the embedding and the loss counted as a layer each. Otherwise a recipe has to give a
// layout, and a split stands in for it, as even in FLOPs as whole layers allow: each virtual
// stage ends as close to its share of the model as it can without outweighing the lightest
// possible heaviest stage (the LM head and MTP layers count on the last virtual stage, which may
// then hold no other layer). By FLOPs, not time, so that the split does not move with the
// micro-batch or the recompute.
const std::vector<int>& pipelineSplit(const ModelShape& model, const LayerTable& table,
                                      const Ends& ends, int chunks)
{
    const double total = table.modelFlops(0, model.layers) + ends.headFlops + ends.mtp.modelFlops;
    std::vector<double> kindShares;
    for (const LayerCosts& lc : table.costs)
        kindShares.push_back(lc.modelFlops / total);
    kindShares.push_back((ends.headFlops + ends.mtp.modelFlops) / total);
    thread_local SplitMemo memo;
    const bool same = memo.chunks == chunks && memo.pattern == table.pattern &&
                      memo.kindShares.size() == kindShares.size() &&
                      std::equal(kindShares.begin(), kindShares.end(), memo.kindShares.begin(),
                                 [](double a, double b) { return std::abs(a - b) <= 1e-12; });
    if (!same) {
        std::vector<int> split = megatronSplit(model.layers, chunks);
        if (split.empty())
            split = flopBalancedSplit(model, table, kindShares, chunks);
        memo = {chunks, table.pattern, std::move(kindShares), std::move(split)};
    }
    return memo.split;
}

// Activation offloading as Transformer Engine schedules it (cpu_offload.py, its load-balanced
// windows): the first `n` layers of a chunk copy what they keep for backward to host memory one
// after another, each over a window of the `L / n` layers that follow (the remainder spread
// over the first windows, the first window short of the layer being copied), and the compute
// waits at each window's end for its copy; the copies back run the same windows in reverse
// ahead of their backward. Only the layer in transit stays on the GPU.
void offloadActivations(Workload& w, size_t i, int layers)
{
    const int offloaded = std::min(w.offloadLayers, layers - 1);
    if (offloaded <= 0)
        return;
    const double bytes = w.activationBytesOfChunk[i] / layers;
    const double forward = w.forward[i].compute / layers;
    const double backward = (w.backward[i].compute + w.backward[i].recompute) / layers;
    w.forward[i].compute += offloadWaitS(bytes / w.toHostRate, forward, layers, offloaded);
    w.backward[i].compute += offloadWaitS(bytes / w.fromHostRate, backward, layers, offloaded);
    w.activationBytesOfChunk[i] -= (offloaded - 1) * bytes;
}

void fillOps(const RunDesc& run, const LayerTable& table, const Ends& ends, Workload& w)
{
    w.layers = pipelineSplit(run.model, table, ends, w.p * w.v);
    const size_t ops = size_t(w.p) * w.v;
    w.forward.assign(ops, {});
    w.backward.assign(ops, {});
    w.commPerOp.assign(ops, {});
    w.paramsOfChunk.assign(ops, 0);
    w.layerParamsOfChunk.assign(ops, 0);
    w.expertParamsOfChunk.assign(ops, 0);
    w.activationBytesOfChunk.assign(ops, 0);
    const int lastVs = w.p * w.v - 1;
    // Virtual stage vs holds the layers after those of the virtual stages before it.
    std::vector<int> firstLayer(size_t(w.p) * w.v + 1, 0);
    for (size_t vs = 0; vs < size_t(w.p) * w.v; ++vs)
        firstLayer[vs + 1] = firstLayer[vs] + w.layers[vs];
    // Most chunks hold the same layers as another: their sums are copied, not added up again
    // (a search fills every layout's ops).
    constexpr size_t kMaxKinds = 4; // MoE or dense, sliding window or not
    assert(table.costs.size() <= kMaxKinds);
    std::array<int, kMaxKinds> counts{}, summed{};
    size_t summedOp = ops;
    for (int s = 0; s < w.p; ++s) {
        for (int k = 0; k < w.v; ++k) {
            const size_t i = w.op(s, k);
            const int vs = k * w.p + s;
            for (size_t kind = 0; kind < table.costs.size(); ++kind)
                counts[kind] =
                    table.count(kind, firstLayer[size_t(vs)], firstLayer[size_t(vs) + 1]);
            if (summedOp < ops && counts == summed) {
                w.forward[i] = w.forward[summedOp];
                w.backward[i] = w.backward[summedOp];
                w.commPerOp[i] = w.commPerOp[summedOp];
                w.layerParamsOfChunk[i] = w.layerParamsOfChunk[summedOp];
                w.expertParamsOfChunk[i] = w.expertParamsOfChunk[summedOp];
                w.activationBytesOfChunk[i] = w.activationBytesOfChunk[summedOp];
            } else {
                for (size_t kind = 0; kind < table.costs.size(); ++kind) {
                    const double n = counts[kind];
                    if (n == 0)
                        continue;
                    const LayerCosts& lc = table.costs[kind];
                    w.forward[i].addTimes(lc.forward, n);
                    w.backward[i].addTimes(lc.backward, n);
                    for (Dim d : kAllDims)
                        w.commPerOp[i][d] += n * lc.comm[d];
                    w.layerParamsOfChunk[i] += n * lc.denseParams;
                    w.expertParamsOfChunk[i] += n * lc.expertParams;
                    w.activationBytesOfChunk[i] += n * lc.activationBytes;
                }
                offloadActivations(w, i, w.layers[size_t(vs)]);
            }
            // The ends are added below: only a chunk without them can be copied.
            const bool plain = vs != 0 && vs != lastVs;
            if (plain) {
                summed = counts;
                summedOp = i;
            }
            w.paramsOfChunk[i] = w.layerParamsOfChunk[i];
            if (vs == 0) {
                w.forward[i] += ends.embedForward;
                w.backward[i] += ends.embedBackward;
                w.paramsOfChunk[i] += ends.headParams;
            }
            if (vs == lastVs) {
                w.forward[i] += ends.headForward;
                w.backward[i] += ends.headBackward;
                w.commPerOp[i][Dim::TP] += 2 * ends.headTp;
                w.paramsOfChunk[i] += ends.headParams;
                w.forward[i] += ends.mtp.forward;
                w.backward[i] += ends.mtp.backward;
                for (Dim d : kAllDims)
                    w.commPerOp[i][d] += ends.mtp.comm[d];
                w.paramsOfChunk[i] += ends.mtp.denseParams;
                w.layerParamsOfChunk[i] += ends.mtp.denseParams;
                w.expertParamsOfChunk[i] += ends.mtp.expertParams;
                w.activationBytesOfChunk[i] += ends.mtp.activationBytes;
            }
        }
    }
}

// PP: each hop carries one micro-batch's activations (sequence-sharded under SP), at the
// contention factor of that hop's sends with every hop sending.
void pipelineSends(const RunDesc& run, Workload& w)
{
    const double tokens = double(run.batch.micro) * run.model.seqLen / w.c;
    w.sendBytes =
        kActivationBytes * tokens * run.model.hidden / (run.parallelism.sequenceParallel ? w.t : 1);
    w.send.assign(size_t(w.p), 0);
    const FabricFactors* factors = w.links.factors.get();
    for (int s = 0; s < w.p && w.p > 1; ++s) {
        const bool out = w.sendScaleOut[size_t(s)];
        double factor = 1;
        if (factors)
            factor = (out ? factors->hopFabric : factors->hopNvlink)[size_t(s)];
        w.send[size_t(s)] =
            pointToPoint(w.sendBytes, slowedBy(out ? w.links.fabric : w.links.nvlink, factor));
    }
}

// Dense parameters are sharded over data x context parallel ranks (distributed optimizer or
// FSDP), expert parameters over the expert data-parallel ranks.
void optimizerAndMemory(const RunDesc& run, const LayerTable& table, const Ends& ends,
                        const Rates& r, const Calibration& cal, Workload& w)
{
    const Parallelism& par = run.parallelism;
    const bool sharded = par.distributedOptimizer || par.fsdp;
    const double denseShard = sharded ? w.d * w.c : 1;
    const double expertShard = sharded ? std::max(1, w.expertDataWidth) : 1;
    // FSDP keeps a shard of the weights and gradients too, and two layers gathered whole.
    const double weightShard = par.fsdp ? w.d * w.c : 1;
    double largestLayer = 0;
    for (const LayerCosts& lc : table.costs)
        largestLayer = std::max(largestLayer, lc.denseParams + lc.expertParams);
    w.optimizerS.assign(size_t(w.p), 0);
    w.memoryGiB.assign(size_t(w.p), 0);
    for (int s = 0; s < w.p; ++s) {
        double dense = 0, expert = 0, activation = 0;
        for (int k = 0; k < w.v; ++k) {
            dense += w.paramsOfChunk[w.op(s, k)];
            expert += w.expertParamsOfChunk[w.op(s, k)];
            activation += w.activationBytesOfChunk[w.op(s, k)];
        }
        const double owned = dense / denseShard + expert / expertShard;
        w.optimizerS[size_t(s)] = owned * kOptimizerTrafficBytes / r.memory;
        // Gradients accumulate in the type they are reduced in; the optimizer holds FP32
        // masters and moments.
        const double held = dense / weightShard + expert / (par.fsdp ? expertShard : 1);
        MemoryParts m;
        m.weights = (held + (par.fsdp ? 2 * largestLayer : 0)) * kParamBytes / kGiB;
        m.gradients = held * w.gradBytesPerParam / kGiB;
        m.optimizer = owned * kOptimizerBytes / kGiB;
        // Each chunk in flight keeps its layers' activations (on average per chunk).
        const double inFlightChunks = inFlightLimit(w.p, w.v, w.m, s);
        double activations = inFlightChunks * activation / w.v;
        if (par.recompute.mode == RecomputeMode::Full) { // one layer rebuilt whole in backward
            double rebuilt = 0;
            for (const LayerCosts& lc : table.costs)
                rebuilt = std::max(rebuilt, lc.fullLayerBytes);
            activations += rebuilt;
        }
        m.activations = activations / kGiB;
        if (s == w.p - 1)
            m.logits = ends.lossKeptBytes * (1 + run.model.mtpLayers) / kGiB;
        m.framework = cal.frameworkMemoryGiB;
        w.memoryGiB[size_t(s)] = m.total();
        if (s == 0 || w.memoryGiB[size_t(s)] > w.busiestMemory.total())
            w.busiestMemory = m;
    }
}

// Model FLOPs of the whole step on all GPUs: forward and backward (3x forward) of every layer
// (active parameters only: the experts a token is routed to) and the LM head, without
// recomputation.
void modelFlops(const RunDesc& run, const LayerTable& table, const Ends& ends, Workload& w)
{
    const ModelShape& ms = run.model;
    w.tokensPerStep = double(run.batch.global) * ms.seqLen;
    const double perGpu = ends.mtp.modelFlops + ends.headFlops + table.modelFlops(0, ms.layers);
    const double fwdPerSequence = perGpu * w.t * w.c / run.batch.micro;
    w.modelFlopsPerStep = 3 * fwdPerSequence * run.batch.global;
}

} // namespace

double offloadWaitS(double copyS, double layerS, int layers, int offloaded)
{
    double wait = 0;
    for (int k = 0; k < offloaded; ++k) {
        const int window = layers / offloaded + (k < layers % offloaded ? 1 : 0) - (k == 0);
        wait += std::max(0.0, copyS - window * layerS);
    }
    return wait;
}

double Parts::total() const
{
    double sum = compute + recompute;
    for (double c : comm.values)
        sum += c;
    return sum;
}

double Workload::gradientReduceS(double denseBytes, double expertBytes) const
{
    const bool sharded = distributedOptimizer || fsdp;
    auto reduce = [&](double bytes, const HierarchicalGroup& g) {
        if (bytes <= 0)
            return 0.0;
        return sharded ? reduceScatter(bytes, g) : allReduce(bytes, g);
    };
    return reduce(denseBytes, dp().group) + reduce(expertBytes, expertData.group);
}

double Workload::dpContentionS(int stage, double total, double exposed) const
{
    const double hidden = std::max(0.0, total - exposed);
    const double hbm = total > 0 ? dpHbmS[size_t(stage)] * hidden / total : 0.0;
    return dpContention * hidden + hbm;
}

double Workload::parameterGatherS(double denseBytes, double expertBytes) const
{
    if (!distributedOptimizer || fsdp)
        return 0.0;
    return allGather(denseBytes, dp().group) +
           (expertBytes > 0 ? allGather(expertBytes, expertData.group) : 0.0);
}

LinkClass Workload::linkOf(Dim d) const
{
    if (d == Dim::DP)
        return dp().scaleOut ? links.spanClass : LinkClass::NVLink;
    return dims[d].scaleOut ? links.fabricClass : LinkClass::NVLink;
}

bool Workload::hopScaleOut(int from, int to) const
{
    if (from == to)
        return false;
    // Hops are numbered by the lower stage of the pair, the wrap-around by the last stage.
    const int hop = (to == (from + 1) % p) ? from : to;
    return sendScaleOut[size_t(hop)];
}

// Moves `from`'s buffers, emptied, into `to`.
template <typename... Buffers>
void reuseBuffers(Workload& from, Workload& to, Buffers Workload::*... buffers)
{
    ((from.*buffers).clear(), ...);
    ((to.*buffers).swap(from.*buffers), ...);
}

Workload buildWorkload(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                       std::shared_ptr<const FabricFactors> fabric)
{
    Workload w;
    rebuildWorkload(cluster, run, cal, w, std::move(fabric));
    return w;
}

void rebuildWorkload(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                     Workload& w, std::shared_ptr<const FabricFactors> fabric)
{
    Workload fresh;
    reuseBuffers(w, fresh, &Workload::layers, &Workload::forward, &Workload::backward,
                 &Workload::commPerOp, &Workload::send, &Workload::sendScaleOut,
                 &Workload::paramsOfChunk, &Workload::layerParamsOfChunk,
                 &Workload::expertParamsOfChunk, &Workload::activationBytesOfChunk,
                 &Workload::optimizerS, &Workload::dpHbmS, &Workload::memoryGiB);
    w = std::move(fresh);
    resolveSizes(cluster, run, cal, w);
    resolveLinks(cluster, run, cal, std::move(fabric), w);
    placeDimensions(cluster, run, w);
    placeExperts(cluster, run, w);
    const Rates r = resolveRates(cluster, run, cal, w);
    const LayerContext ctx{run, w, r, cal};
    const LayerTable table = layerTable(ctx);
    const Ends ends = endsOf(ctx);
    fillOps(run, table, ends, w);
    fullyShardedData(run, r, w);
    dataParallelHbm(r, w);
    pipelineSends(run, w);
    optimizerAndMemory(run, table, ends, r, cal, w);
    modelFlops(run, table, ends, w);
}

} // namespace cs
