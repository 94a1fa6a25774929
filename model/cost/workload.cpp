#include "workload.h"

#include <algorithm>

#include "calibration.h"
#include "placement.h"
#include "schedule.h"

namespace cs {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kActivationBytes = 2; // BF16 activations and their gradients
constexpr double kParamBytes = 2;      // BF16 weights, as kept
constexpr double kMainGradBytes = 4;   // FP32 gradient accumulation buffer
constexpr double kOptimizerBytes = 12; // FP32 master weights, Adam's two moments
// The optimizer step's HBM traffic per parameter it owns: the gradient norm reads the FP32
// gradient (4), clipping rewrites it (8), Adam reads weight, gradient and both moments and
// writes weight and moments (28), the BF16 copy of the weight (6), zeroing the gradient (4).
constexpr double kOptimizerTrafficBytes = 50;
constexpr double kAttentionBackwardRatio = 2.5; // flash attention's backward vs its forward

struct Rates {
    double gemm = 0;      // FLOP/s at the run's precision
    double gemmBf16 = 0;  // FLOP/s at BF16 (LM head)
    double attention = 0; // FLOP/s
    double memory = 0;    // bytes/s
};

struct LayerCosts {
    Parts forward, backward;
    PerDim<double> comm;        // all of it, hidden or not, forward and backward
    double params = 0;          // per GPU
    double activationBytes = 0; // saved for backward, per micro-batch
    double fullLayerBytes = 0;  // everything one layer saves without recompute
    double modelFlops = 0;      // forward, per micro-batch, per GPU
};

// The shapes of one layer on one GPU, shared by its cost terms.
struct LayerShape {
    double t = 1, c = 1;
    double h = 1, f = 1, s = 1, b = 1;
    double kvDim = 1;
    double mlpMatrices = 2;
    double tokens = 1; // per GPU per micro-batch, sequence split by CP
    double sp = 1;     // sequence-parallel split of the norms and residuals
    bool lowPrecision = false;
};

LayerShape layerShape(const RunDesc& run, const Workload& w)
{
    const ModelShape& ms = run.model;
    LayerShape l;
    l.t = w.t;
    l.c = w.c;
    l.h = ms.hidden;
    l.f = ms.ffnHidden;
    l.s = ms.seqLen;
    l.b = run.batch.micro;
    l.kvDim = l.h * ms.kvHeads / ms.heads;
    l.mlpMatrices = ms.gatedMlp ? 3 : 2;
    l.tokens = l.b * l.s / l.c;
    l.sp = run.parallelism.sequenceParallel ? l.t : 1;
    l.lowPrecision = run.precision != Precision::BF16;
    return l;
}

double tpCollectives(double bytes, const Workload& w, bool sequenceParallel, int count)
{
    if (w.t <= 1)
        return 0;
    const HierarchicalGroup& g = w.dims[Dim::TP].group;
    const double one = sequenceParallel ? allGather(bytes, g) : allReduce(bytes, g);
    return count * one;
}

// GEMMs, attention and elementwise kernels of one layer, forward and backward.
void layerCompute(const LayerShape& l, const Rates& r, LayerCosts& lc)
{
    lc.params = (l.h * (l.h + 2 * l.kvDim) + l.h * l.h + l.mlpMatrices * l.h * l.f) / l.t;
    const double gemmFlops = 2 * l.tokens * lc.params;
    // Causal: half of QK^T and of AV; each CP rank gets a balanced 1/c of the queries.
    const double attentionFlops = 2 * l.b * l.s * l.s * l.h / (l.c * l.t);
    lc.modelFlops = gemmFlops + attentionFlops;

    double elementwiseBytes = kActivationBytes * l.tokens *
                              (4 * l.h / l.sp                // two norms, read and write
                               + 6 * l.h / l.sp              // two residual adds
                               + (l.mlpMatrices * l.f) / l.t // activation function
                              );
    if (l.lowPrecision) // casting each GEMM input: read BF16, write the narrow type
        elementwiseBytes += 1.5 * kActivationBytes * l.tokens * (2 * l.h + l.h / l.t + l.f / l.t);

    const double gemmF = gemmFlops / r.gemm;
    const double attentionF = attentionFlops / r.attention;
    const double elementwiseF = elementwiseBytes / r.memory;
    lc.forward.compute = gemmF + attentionF + elementwiseF;
    lc.backward.compute = 2 * gemmF + kAttentionBackwardRatio * attentionF + 2 * elementwiseF;
}

double attentionForwardS(const LayerShape& l, const Rates& r)
{
    return 2 * l.b * l.s * l.s * l.h / (l.c * l.t) / r.attention;
}

// TP: with sequence parallelism an all-gather before and a reduce-scatter after each of
// attention and the MLP; without, an all-reduce after each. The same again in backward.
double layerTp(const RunDesc& run, const LayerShape& l, const Workload& w, const Calibration& cal,
               LayerCosts& lc)
{
    const bool sp = run.parallelism.sequenceParallel;
    const double actBytes = kActivationBytes * l.tokens * l.h;
    const double tpF = tpCollectives(actBytes, w, sp, sp ? 4 : 2);
    const double exposed = 1 - cal.tpOverlap;
    lc.forward.comm[Dim::TP] = exposed * tpF;
    lc.backward.comm[Dim::TP] = exposed * tpF;
    lc.comm[Dim::TP] = 2 * tpF;
    return tpF;
}

// CP: a ring passes each rank's K and V round the group, overlapped with the attention
// blocks computed meanwhile; backward passes K, V and their gradients.
void layerCp(const LayerShape& l, const Workload& w, const Rates& r, LayerCosts& lc)
{
    if (w.c <= 1)
        return;
    const double kvBytes = kActivationBytes * l.tokens * 2 * l.kvDim / l.t;
    const LinkSpeed link = w.dims[Dim::CP].scaleOut ? w.links.fabric : w.links.nvlink;
    const double ringF = (l.c - 1) * pointToPoint(kvBytes, link);
    const double ringB = (l.c - 1) * pointToPoint(2 * kvBytes, link);
    const double hiddenUnder = (l.c - 1) / l.c;
    const double attentionF = attentionForwardS(l, r);
    lc.forward.comm[Dim::CP] = std::max(0.0, ringF - attentionF * hiddenUnder);
    lc.backward.comm[Dim::CP] =
        std::max(0.0, ringB - kAttentionBackwardRatio * attentionF * hiddenUnder);
    lc.comm[Dim::CP] = ringF + ringB;
}

void layerRecompute(const RunDesc& run, const LayerShape& l, const Rates& r, double tpF,
                    LayerCosts& lc)
{
    const Recompute& recompute = run.parallelism.recompute;
    if (recompute.mode == RecomputeMode::Full) {
        lc.backward.recompute = lc.forward.compute;
        lc.backward.comm[Dim::TP] += lc.forward.comm[Dim::TP];
        lc.backward.comm[Dim::CP] += lc.forward.comm[Dim::CP];
        lc.comm[Dim::TP] += tpF;
    } else if (recompute.recomputes(RecomputeModule::CoreAttn)) {
        lc.backward.recompute = attentionForwardS(l, r);
    }
}

// Saved for backward (Korthikanti et al.): norm and GEMM inputs, Q K V, attention output
// and its softmax statistics, the MLP's intermediate activations.
void layerActivations(const RunDesc& run, const LayerShape& l, LayerCosts& lc)
{
    const double saved = l.tokens * kActivationBytes *
                         (4 * l.h / l.sp + 2 * l.h / l.sp + (l.h + 2 * l.kvDim) / l.t + l.h / l.t +
                          (l.mlpMatrices + 1) * l.f / l.t);
    lc.fullLayerBytes = saved;
    const Recompute& recompute = run.parallelism.recompute;
    if (recompute.mode == RecomputeMode::Full) // only each layer's input is kept
        lc.activationBytes = l.tokens * kActivationBytes * l.h / l.sp;
    else if (recompute.recomputes(RecomputeModule::CoreAttn)) // the attention output is rebuilt
        lc.activationBytes = saved - l.tokens * kActivationBytes * l.h / l.t;
    else
        lc.activationBytes = saved;
}

LayerCosts layerCosts(const RunDesc& run, const Workload& w, const Rates& r, const Calibration& cal)
{
    const LayerShape l = layerShape(run, w);
    LayerCosts lc;
    layerCompute(l, r, lc);
    const double tpF = layerTp(run, l, w, cal, lc);
    layerCp(l, w, r, lc);
    layerRecompute(run, l, r, tpF, lc);
    layerActivations(run, l, lc);
    return lc;
}

void resolveSizes(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                  Workload& w)
{
    const Parallelism& par = run.parallelism;
    const int64_t healthy = cluster.healthyGpuCount();
    w.p = std::max(1, par.pp);
    w.v = std::max(1, par.vp);
    w.t = std::max(1, par.tp);
    w.c = std::max(1, par.cp);
    w.d = std::max(1, run.dpFor(healthy));
    w.m = std::max(1, run.microBatchesFor(healthy));
    w.gpus = int64_t(w.t) * w.c * w.p * w.d;
    w.distributedOptimizer = par.distributedOptimizer;
    w.virtualization = cluster.virtualization;
    w.dpContention = cal.dpContention;
    // FP8 runs gather FP8 weights (Megatron's --fp8-param-gather); NVFP4 holds 4 bits a
    // weight plus one FP8 scale per 16.
    w.gatherBytesPerParam = run.precision == Precision::BF16  ? 2.0
                            : run.precision == Precision::FP8 ? 1.0
                                                              : 0.5 + 1.0 / 16;
}

// The fabric's oversubscription, routing and failures enter through the contention factors of
// the run's routed flows (placeDimensions, pipelineSends), not here.
void resolveLinks(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                  Workload& w)
{
    const FabricTopology& topology = cluster.scaleOut.topology;
    w.links.nvlink = {cluster.nvlinkGBpsPerDirection() * cal.nvlinkEfficiency,
                      cluster.scaleUp.latencyUs};
    w.links.fabric = {cluster.nicGBpsPerDirection() * cal.scaleOutEfficiency,
                      cluster.scaleOut.latencyUs};
    w.links.spanClass = topology.tiers >= 3   ? LinkClass::ScaleOut3
                        : topology.tiers == 2 ? LinkClass::ScaleOut2
                                              : LinkClass::ScaleOut1;
    if (fabricCanContend(cluster))
        w.links.factors = cachedFabricFactors(cluster, run);
}

LinkSpeed slowedBy(LinkSpeed link, double factor)
{
    return {link.GBps * factor, link.latencyUs};
}

// Aligned layouts (every power-of-two case without failures) are solved in closed form, so
// that the search never walks the ranks; anything else asks Placement, which does.
GroupShape shapeOf(Dim d, int size, int stride, int domainSize, const Placement* placement)
{
    const int64_t span = int64_t(stride) * size;
    if (size <= 1)
        return {1, 1};
    if (!placement) {
        if (span <= domainSize && domainSize % span == 0)
            return {size, 1};
        if (stride % domainSize == 0)
            return {1, size};
        if (domainSize % stride == 0 && span % domainSize == 0) {
            const int perDomain = domainSize / stride;
            return {perDomain, size / perDomain};
        }
    }
    const DimensionPlacement& dp = placement->dimension(d);
    if (dp.insideDomain())
        return {size, 1};
    return {std::max(1, size / dp.maxDomainsPerGroup), dp.maxDomainsPerGroup};
}

bool alignedOnDomains(const PerDim<int>& sizes, const PerDim<int>& strides, int domain)
{
    for (Dim d : {Dim::TP, Dim::CP, Dim::DP}) {
        const int64_t span = int64_t(strides[d]) * sizes[d];
        const bool aligned = sizes[d] <= 1 || (span <= domain && domain % span == 0) ||
                             strides[d] % domain == 0 ||
                             (domain % strides[d] == 0 && span % domain == 0);
        if (!aligned)
            return false;
    }
    return true;
}

// Strides follow the placement, innermost first; gradients are reduced over the data and
// context parallel ranks together.
void placeDimensions(const ClusterDesc& cluster, const RunDesc& run, Workload& w)
{
    PerDim<int> sizes;
    sizes[Dim::TP] = w.t;
    sizes[Dim::CP] = w.c;
    sizes[Dim::PP] = w.p;
    sizes[Dim::DP] = w.d;
    PerDim<int> strides;
    int stride = 1;
    for (Dim dim : run.placement) {
        strides[dim] = stride;
        stride *= sizes[dim];
    }
    const int domain = cluster.domainSize();
    std::optional<Placement> placement;
    if (w.gpus != cluster.gpuCount() || !alignedOnDomains(sizes, strides, domain))
        placement = placeRun(run, cluster);
    if (run.parallelism.ep > 1 && !placement)
        placement = placeRun(run, cluster); // expert groups fold over a stage's ranks
    const FabricFactors* factors = w.links.factors.get();
    auto dimComm = [&](Dim dim, GroupShape shape) {
        DimComm dc;
        dc.shape = shape;
        dc.group = {shape.perDomain, shape.domains,
                    slowedBy(w.links.nvlink, factors ? factors->nvlink[dim] : 1.0),
                    slowedBy(w.links.fabric, factors ? factors->fabric[dim] : 1.0)};
        dc.scaleOut = shape.crossesDomains();
        return dc;
    };
    const Placement* p = placement ? &*placement : nullptr;
    for (Dim dim : {Dim::TP, Dim::CP, Dim::DP})
        w.dims[dim] = dimComm(dim, shapeOf(dim, sizes[dim], strides[dim], domain, p));
    if (p && p->size(Dim::EP) > 1)
        w.dims[Dim::EP] =
            dimComm(Dim::EP, shapeOf(Dim::EP, p->size(Dim::EP), p->stride(Dim::EP), domain, p));
    GroupShape grad = w.dims[Dim::DP].shape;
    if (w.c > 1) {
        if (w.dims[Dim::CP].scaleOut)
            grad.domains *= w.c;
        else
            grad.perDomain *= w.c;
    }
    w.dims[Dim::DP] = dimComm(Dim::DP, grad);
    // PP hops are placed one by one (pipelineSends).
    const int ppStride = strides[Dim::PP];
    w.sendScaleOut.assign(size_t(w.p), false);
    for (int s = 0; s < w.p && w.p > 1; ++s) {
        const int next = (s + 1) % w.p;
        const int from = p ? p->gpuOfRank(s * ppStride) : s * ppStride;
        const int to = p ? p->gpuOfRank(next * ppStride) : next * ppStride;
        w.sendScaleOut[size_t(s)] = from / domain != to / domain;
    }
}

Rates resolveRates(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                   Workload& w)
{
    const ModelShape& ms = run.model;
    const double tokens = double(run.batch.micro) * ms.seqLen / w.c;
    double peak = cluster.gpu.peakTflops(run.precision);
    if (peak <= 0)
        peak = cluster.gpu.peakTflopsBf16;
    w.peakFlopsPerGpu = peak * 1e12;
    Rates r;
    const double width = double(ms.hidden) / w.t;
    const double gemmEff = cal.gemmEfficiency(cluster.gpu.name, run.precision, tokens, width);
    r.gemm = w.peakFlopsPerGpu * gemmEff;
    r.gemmBf16 = cluster.gpu.peakTflopsBf16 * 1e12 * gemmEff;
    r.attention = cluster.gpu.peakTflopsBf16 * 1e12 * cal.attentionEfficiency;
    r.memory = cluster.gpu.hbmTBps * 1e12 * cal.memoryEfficiency;
    return r;
}

// Embedding (first virtual stage) and LM head with the loss (last): the head is a
// vocabulary-parallel GEMM kept in BF16, the loss a softmax over the vocabulary.
struct Ends {
    Parts headForward, headBackward, embedForward, embedBackward;
    double headParams = 0;
    double headTp = 0;
    double logitsBytes = 0;
};

Ends endsOf(const RunDesc& run, const Workload& w, const Rates& r, const Calibration& cal)
{
    const ModelShape& ms = run.model;
    const double tokens = double(run.batch.micro) * ms.seqLen / w.c;
    const double h = ms.hidden;
    Ends e;
    e.headParams = double(ms.vocab) * h / w.t;
    const double headFlops = 2 * tokens * e.headParams;
    e.logitsBytes = tokens * ms.vocab / w.t * 4;
    e.headForward.compute = headFlops / r.gemmBf16 + 3 * e.logitsBytes / r.memory;
    e.headBackward.compute = 2 * headFlops / r.gemmBf16 + 3 * e.logitsBytes / r.memory;
    e.headTp = tpCollectives(kActivationBytes * tokens * h, w, run.parallelism.sequenceParallel, 1);
    e.headForward.comm[Dim::TP] = (1 - cal.tpOverlap) * e.headTp;
    e.headBackward.comm[Dim::TP] = e.headForward.comm[Dim::TP];
    e.embedForward.compute = 2 * kActivationBytes * tokens * h / r.memory;
    e.embedBackward.compute = 2 * e.embedForward.compute;
    return e;
}

void fillOps(const RunDesc& run, const LayerCosts& lc, const Ends& ends, Workload& w)
{
    w.layers = layersPerVirtualStage(run.model.layers, w.p, w.v);
    const size_t ops = size_t(w.p) * w.v;
    w.forward.assign(ops, {});
    w.backward.assign(ops, {});
    w.commPerOp.assign(ops, {});
    w.paramsOfChunk.assign(ops, 0);
    w.layerParamsOfChunk.assign(ops, 0);
    const int lastVs = w.p * w.v - 1;
    for (int s = 0; s < w.p; ++s) {
        for (int k = 0; k < w.v; ++k) {
            const size_t i = w.op(s, k);
            const int vs = k * w.p + s;
            const double n = w.layersOf(s, k);
            w.forward[i] = lc.forward.times(n);
            w.backward[i] = lc.backward.times(n);
            for (Dim d : kAllDims)
                w.commPerOp[i][d] = lc.comm[d] * n;
            w.layerParamsOfChunk[i] = lc.params * n;
            w.paramsOfChunk[i] = lc.params * n;
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

void optimizerAndMemory(const RunDesc& run, const LayerCosts& lc, const Ends& ends, const Rates& r,
                        const Calibration& cal, Workload& w)
{
    const Parallelism& par = run.parallelism;
    const double shard = par.distributedOptimizer ? w.d * w.c : 1;
    w.optimizerS.assign(size_t(w.p), 0);
    w.memoryGiB.assign(size_t(w.p), 0);
    for (int s = 0; s < w.p; ++s) {
        double params = 0;
        double layersOnStage = 0;
        for (int k = 0; k < w.v; ++k) {
            params += w.paramsOfChunk[w.op(s, k)];
            layersOnStage += w.layersOf(s, k);
        }
        w.optimizerS[size_t(s)] = params / shard * kOptimizerTrafficBytes / r.memory;
        const double states =
            params * (kParamBytes + kMainGradBytes) + params * kOptimizerBytes / shard;
        const double inFlightChunks = inFlightLimit(w.p, w.v, w.m, s);
        double activations = inFlightChunks * (layersOnStage / w.v) * lc.activationBytes;
        if (par.recompute.mode == RecomputeMode::Full) // one layer rebuilt whole in backward
            activations += lc.fullLayerBytes;
        if (s == w.p - 1)
            activations += 2 * ends.logitsBytes;
        w.memoryGiB[size_t(s)] = (states + activations) / kGiB + cal.frameworkMemoryGiB;
    }
}

// Model FLOPs of the whole step on all GPUs: forward and backward (3x forward) of every layer
// and the LM head, without recomputation.
void modelFlops(const RunDesc& run, const LayerCosts& lc, Workload& w)
{
    const ModelShape& ms = run.model;
    w.tokensPerStep = double(run.batch.global) * ms.seqLen;
    const double fwdPerSequence =
        (lc.modelFlops * w.t * w.c * ms.layers + 2.0 * ms.seqLen * double(ms.vocab) * ms.hidden) /
        run.batch.micro;
    w.modelFlopsPerStep = 3 * fwdPerSequence * run.batch.global;
}

} // namespace

double Parts::total() const
{
    double sum = compute + recompute;
    for (double c : comm.values)
        sum += c;
    return sum;
}

Parts& Parts::operator+=(const Parts& o)
{
    compute += o.compute;
    recompute += o.recompute;
    for (Dim d : kAllDims)
        comm[d] += o.comm[d];
    return *this;
}

Parts Parts::times(double k) const
{
    Parts out;
    out.compute = compute * k;
    out.recompute = recompute * k;
    for (Dim d : kAllDims)
        out.comm[d] = comm[d] * k;
    return out;
}

double Workload::dpReduce(double bytes) const
{
    return distributedOptimizer ? reduceScatter(bytes, dp().group) : allReduce(bytes, dp().group);
}

double Workload::dpGather(double bytes) const
{
    return distributedOptimizer ? allGather(bytes, dp().group) : 0.0;
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

Workload buildWorkload(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal)
{
    Workload w;
    resolveSizes(cluster, run, cal, w);
    resolveLinks(cluster, run, cal, w);
    placeDimensions(cluster, run, w);
    const Rates r = resolveRates(cluster, run, cal, w);
    const LayerCosts lc = layerCosts(run, w, r, cal);
    const Ends ends = endsOf(run, w, r, cal);
    fillOps(run, lc, ends, w);
    pipelineSends(run, w);
    optimizerAndMemory(run, lc, ends, r, cal, w);
    modelFlops(run, lc, w);
    return w;
}

} // namespace cs
