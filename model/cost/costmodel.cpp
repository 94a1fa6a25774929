#include "costmodel.h"

#include <algorithm>
#include <cmath>

#include "calibration.h"
#include "collectives.h"
#include "placement.h"
#include "schedule.h"

namespace cs {

double Breakdown::total() const
{
    double sum = 0;
    for (const auto& [name, seconds] : named())
        sum += seconds;
    return sum;
}

std::array<std::pair<const char*, double>, 9> Breakdown::named() const
{
    return {{{"compute", compute},
             {"recompute", recompute},
             {"tp_exposed", tpExposed},
             {"cp_exposed", cpExposed},
             {"pp_exposed", ppExposed},
             {"bubble", bubble},
             {"dp_exposed", dpExposed},
             {"optimizer", optimizer},
             {"overhead", overhead}}};
}

const char* toString(EventKind k)
{
    switch (k) {
    case EventKind::Forward:
        return "forward";
    case EventKind::Backward:
        return "backward";
    case EventKind::Recompute:
        return "recompute";
    case EventKind::TpComm:
        return "tp";
    case EventKind::CpComm:
        return "cp";
    case EventKind::PpSend:
        return "pp";
    case EventKind::DpComm:
        return "dp";
    case EventKind::Optimizer:
        return "optimizer";
    case EventKind::Bubble:
        return "bubble";
    }
    return "?";
}

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

// Time split of one op (a chunk of layers for one micro-batch) as the breakdown names it.
struct Parts {
    double compute = 0;
    double recompute = 0;
    double tp = 0; // exposed TP collectives
    double cp = 0; // exposed CP ring exchange
    double total() const { return compute + recompute + tp + cp; }
    Parts& operator+=(const Parts& o)
    {
        compute += o.compute;
        recompute += o.recompute;
        tp += o.tp;
        cp += o.cp;
        return *this;
    }
    Parts times(double k) const { return {compute * k, recompute * k, tp * k, cp * k}; }
};

// How a dimension's groups sit on NVLink domains, as a two-level group.
struct GroupShape {
    int perDomain = 1;
    int domains = 1;
    bool crossesDomains() const { return domains > 1; }
};

// Aligned layouts (every power-of-two case) are solved in closed form, so that the fast path
// never walks the ranks; anything else asks Placement, which does.
GroupShape shapeOf(Dim d, int size, int stride, int domainSize, const RunDesc& run,
                   const ClusterDesc& cluster)
{
    const int64_t span = int64_t(stride) * size;
    if (size <= 1)
        return {1, 1};
    if (span <= domainSize && domainSize % span == 0)
        return {size, 1};
    if (stride % domainSize == 0)
        return {1, size};
    if (domainSize % stride == 0 && span % domainSize == 0) {
        const int perDomain = domainSize / stride;
        return {perDomain, size / perDomain};
    }
    const Placement placement = placeRun(run, cluster);
    const DimensionPlacement& dp = placement.dimension(d);
    if (dp.insideDomain())
        return {size, 1};
    return {std::max(1, size / dp.maxDomainsPerGroup), dp.maxDomainsPerGroup};
}

struct Links {
    LinkSpeed nvlink;
    LinkSpeed fabric;
    LinkClass fabricClass = LinkClass::ScaleOut1; // neighbours: through the leaf
    LinkClass spanClass = LinkClass::ScaleOut1;   // groups spanning the cluster
};

struct DimComm {
    GroupShape shape;
    HierarchicalGroup group;
    bool scaleOut = false;
};

// Everything the two paths share: per-op costs of every stage and chunk, the transfers, the
// data-parallel costs, memory.
struct Workload {
    int p = 1, v = 1, m = 1, t = 1, c = 1, d = 1;
    std::vector<int> layers;              // per virtual stage, index chunk * p + stage
    std::vector<Parts> forward, backward; // per op, index stage * v + chunk
    std::vector<double> tpCommPerOp;      // all TP traffic of one op pair (fwd + bwd)
    std::vector<double> cpCommPerOp;
    std::vector<double> send;          // per hop s -> s+1
    std::vector<bool> sendScaleOut;    // per hop
    std::vector<double> paramsOfChunk; // per GPU, index stage * v + chunk
    std::vector<double> layerParamsOfChunk;
    DimComm tp, cp, dpGrad;
    Links links;
    bool distributedOptimizer = false;
    double gradBytesPerParam = 2;   // gradients are reduced in BF16
    double gatherBytesPerParam = 2; // parameters are gathered in the GEMM precision
    std::vector<double> optimizerS; // per stage
    std::vector<double> memoryGiB;  // per stage
    double modelFlopsPerStep = 0;
    double tokensPerStep = 0;
    double virtualization = 0;
    double dpContention = 0;
    double tpOverlap = 0;
    double peakFlopsPerGpu = 0;
    int64_t gpus = 1;

    size_t op(int stage, int chunk) const { return size_t(stage) * v + chunk; }
    int layersOf(int stage, int chunk) const { return layers[size_t(chunk) * p + stage]; }

    double dpReduce(double bytes) const
    {
        return distributedOptimizer ? reduceScatter(bytes, dpGrad.group)
                                    : allReduce(bytes, dpGrad.group);
    }
    double dpGather(double bytes) const
    {
        return distributedOptimizer ? allGather(bytes, dpGrad.group) : 0.0;
    }
};

struct LayerCosts {
    Parts forward, backward;
    double tpComm = 0; // all of it, hidden or not, forward and backward
    double cpComm = 0;
    double params = 0;          // per GPU
    double activationBytes = 0; // saved for backward, per micro-batch
    double fullLayerBytes = 0;  // everything one layer saves without recompute
    double modelFlops = 0;      // forward, per micro-batch, per GPU
};

struct Rates {
    double gemm = 0;      // FLOP/s at the run's precision
    double gemmBf16 = 0;  // FLOP/s at BF16 (LM head)
    double attention = 0; // FLOP/s
    double memory = 0;    // bytes/s
};

double tpCollectives(double bytes, const Workload& w, bool sequenceParallel, int count)
{
    if (w.t <= 1)
        return 0;
    const double one =
        sequenceParallel ? allGather(bytes, w.tp.group) : allReduce(bytes, w.tp.group);
    return count * one;
}

LayerCosts layerCosts(const RunDesc& run, const Workload& w, const Rates& r)
{
    const ModelShape& ms = run.model;
    const Parallelism& par = run.parallelism;
    const double t = w.t, c = w.c;
    const double h = ms.hidden, f = ms.ffnHidden, s = ms.seqLen, b = run.batch.micro;
    const double kvDim = h * ms.kvHeads / ms.heads;
    const double mlpMatrices = ms.gatedMlp ? 3 : 2;
    const double tokens = b * s / c; // per GPU per micro-batch, sequence split by CP
    const double sp = par.sequenceParallel ? t : 1;
    const bool lowPrecision = run.precision != Precision::BF16;

    LayerCosts lc;
    lc.params = (h * (h + 2 * kvDim) + h * h + mlpMatrices * h * f) / t;
    const double gemmFlops = 2 * tokens * lc.params;
    // Causal: half of QK^T and of AV; each CP rank gets a balanced 1/c of the queries.
    const double attentionFlops = 2 * b * s * s * h / (c * t);
    lc.modelFlops = gemmFlops + attentionFlops;

    double elementwiseBytes = kActivationBytes * tokens *
                              (4 * h / sp              // two norms, read and write
                               + 6 * h / sp            // two residual adds
                               + (mlpMatrices * f) / t // activation function
                              );
    if (lowPrecision) // casting each GEMM input: read BF16, write the narrow type
        elementwiseBytes += 1.5 * kActivationBytes * tokens * (2 * h + h / t + f / t);

    const double gemmF = gemmFlops / r.gemm;
    const double attentionF = attentionFlops / r.attention;
    const double elementwiseF = elementwiseBytes / r.memory;
    lc.forward.compute = gemmF + attentionF + elementwiseF;
    lc.backward.compute = 2 * gemmF + kAttentionBackwardRatio * attentionF + 2 * elementwiseF;

    // TP: with sequence parallelism an all-gather before and a reduce-scatter after each of
    // attention and the MLP; without, an all-reduce after each. The same again in backward.
    const double actBytes = kActivationBytes * tokens * h;
    const int tpCount = par.sequenceParallel ? 4 : 2;
    const double tpF = tpCollectives(actBytes, w, par.sequenceParallel, tpCount);
    const double exposed = 1 - w.tpOverlap;
    lc.forward.tp = exposed * tpF;
    lc.backward.tp = exposed * tpF;
    lc.tpComm = 2 * tpF;

    // CP: a ring passes each rank's K and V round the group, overlapped with the attention
    // blocks computed meanwhile; backward passes K, V and their gradients.
    if (w.c > 1) {
        const double kvBytes = kActivationBytes * tokens * 2 * kvDim / t;
        const LinkSpeed link = w.cp.scaleOut ? w.links.fabric : w.links.nvlink;
        const double ringF = (c - 1) * pointToPoint(kvBytes, link);
        const double ringB = (c - 1) * pointToPoint(2 * kvBytes, link);
        const double hiddenUnder = (c - 1) / c;
        lc.forward.cp = std::max(0.0, ringF - attentionF * hiddenUnder);
        lc.backward.cp = std::max(0.0, ringB - kAttentionBackwardRatio * attentionF * hiddenUnder);
        lc.cpComm = ringF + ringB;
    }

    switch (par.recompute) {
    case Recompute::None:
        break;
    case Recompute::Selective:
        lc.backward.recompute = attentionF;
        break;
    case Recompute::Full:
        lc.backward.recompute = lc.forward.compute;
        lc.backward.tp += lc.forward.tp;
        lc.backward.cp += lc.forward.cp;
        lc.tpComm += tpF;
        break;
    }

    // Saved for backward (Korthikanti et al.): norm and GEMM inputs, Q K V, attention output
    // and its softmax statistics, the MLP's intermediate activations.
    const double saved =
        tokens * kActivationBytes *
        (4 * h / sp + 2 * h / sp + (h + 2 * kvDim) / t + h / t + (mlpMatrices + 1) * f / t);
    lc.fullLayerBytes = saved;
    switch (par.recompute) {
    case Recompute::None:
        lc.activationBytes = saved;
        break;
    case Recompute::Selective: // the attention output is rebuilt, not kept
        lc.activationBytes = saved - tokens * kActivationBytes * h / t;
        break;
    case Recompute::Full: // only each layer's input is kept
        lc.activationBytes = tokens * kActivationBytes * h / sp;
        break;
    }
    return lc;
}

Workload buildWorkload(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal)
{
    Workload w;
    const Parallelism& par = run.parallelism;
    const ModelShape& ms = run.model;
    w.gpus = cluster.gpuCount();
    w.p = std::max(1, par.pp);
    w.v = std::max(1, par.vp);
    w.t = std::max(1, par.tp);
    w.c = std::max(1, par.cp);
    w.d = std::max(1, run.dpFor(w.gpus));
    w.m = std::max(1, run.microBatchesFor(w.gpus));
    w.distributedOptimizer = par.distributedOptimizer;
    w.virtualization = cluster.virtualization;
    w.dpContention = cal.dpContention;
    // FP8 runs gather FP8 weights (Megatron's --fp8-param-gather); NVFP4 holds 4 bits a
    // weight plus one FP8 scale per 16.
    w.gatherBytesPerParam = run.precision == Precision::BF16  ? 2.0
                            : run.precision == Precision::FP8 ? 1.0
                                                              : 0.5 + 1.0 / 16;
    w.tpOverlap = cal.tpOverlap;

    // Links
    const double fabricGBps = cluster.nicGBpsPerDirection() * cal.scaleOutEfficiency /
                              std::max(1.0, cluster.scaleOut.topology.oversubscription);
    w.links.nvlink = {cluster.nvlinkGBpsPerDirection() * cal.nvlinkEfficiency,
                      cluster.scaleUp.latencyUs};
    w.links.fabric = {fabricGBps, cluster.scaleOut.latencyUs};
    w.links.spanClass = cluster.scaleOut.topology.tiers >= 3   ? LinkClass::ScaleOut3
                        : cluster.scaleOut.topology.tiers == 2 ? LinkClass::ScaleOut2
                                                               : LinkClass::ScaleOut1;

    // Dimensions: strides follow the placement, innermost first.
    std::array<int, 4> sizes{w.t, w.c, w.p, w.d};
    std::array<int, 4> strides{};
    int stride = 1;
    for (Dim dim : run.placement) {
        strides[size_t(dim)] = stride;
        stride *= sizes[size_t(dim)];
    }
    const int domain = cluster.domainSize();
    auto dimComm = [&](GroupShape shape) {
        DimComm dc;
        dc.shape = shape;
        dc.group = {shape.perDomain, shape.domains, w.links.nvlink, w.links.fabric};
        dc.scaleOut = shape.crossesDomains();
        return dc;
    };
    auto shape = [&](Dim dim) {
        return shapeOf(dim, sizes[size_t(dim)], strides[size_t(dim)], domain, run, cluster);
    };
    w.tp = dimComm(shape(Dim::TP));
    w.cp = dimComm(shape(Dim::CP));
    w.dpGrad = dimComm(shape(Dim::DP));
    // PP hops are placed one by one below.
    // Gradients are reduced over data and context parallel ranks together.
    GroupShape grad = w.dpGrad.shape;
    if (w.c > 1) {
        if (w.cp.scaleOut)
            grad.domains *= w.c;
        else
            grad.perDomain *= w.c;
    }
    w.dpGrad = dimComm(grad);

    // Rates
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

    const LayerCosts lc = layerCosts(run, w, r);

    // Embedding (first virtual stage) and LM head with the loss (last): the head is a
    // vocabulary-parallel GEMM kept in BF16, the loss a softmax over the vocabulary.
    const double h = ms.hidden, vocab = ms.vocab;
    const double headParams = vocab * h / w.t;
    const double headFlops = 2 * tokens * headParams;
    const double logitsBytes = tokens * vocab / w.t * 4;
    Parts headF, headB, embedF, embedB;
    headF.compute = headFlops / r.gemmBf16 + 3 * logitsBytes / r.memory;
    headB.compute = 2 * headFlops / r.gemmBf16 + 3 * logitsBytes / r.memory;
    const double headTp = tpCollectives(kActivationBytes * tokens * h, w, par.sequenceParallel, 1);
    headF.tp = (1 - w.tpOverlap) * headTp;
    headB.tp = headF.tp;
    embedF.compute = 2 * kActivationBytes * tokens * h / r.memory;
    embedB.compute = 2 * embedF.compute;

    w.layers = layersPerVirtualStage(ms.layers, w.p, w.v);
    const size_t ops = size_t(w.p) * w.v;
    w.forward.assign(ops, {});
    w.backward.assign(ops, {});
    w.tpCommPerOp.assign(ops, 0);
    w.cpCommPerOp.assign(ops, 0);
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
            w.tpCommPerOp[i] = lc.tpComm * n;
            w.cpCommPerOp[i] = lc.cpComm * n;
            w.layerParamsOfChunk[i] = lc.params * n;
            w.paramsOfChunk[i] = lc.params * n;
            if (vs == 0) {
                w.forward[i] += embedF;
                w.backward[i] += embedB;
                w.paramsOfChunk[i] += headParams;
            }
            if (vs == lastVs) {
                w.forward[i] += headF;
                w.backward[i] += headB;
                w.tpCommPerOp[i] += 2 * headTp;
                w.paramsOfChunk[i] += headParams;
            }
        }
    }

    // PP: each hop carries one micro-batch's activations (sequence-sharded under SP).
    const double ppBytes = kActivationBytes * tokens * h / (par.sequenceParallel ? w.t : 1);
    w.send.assign(size_t(w.p), 0);
    w.sendScaleOut.assign(size_t(w.p), false);
    const int ppStride = strides[size_t(Dim::PP)];
    for (int s = 0; s < w.p && w.p > 1; ++s) {
        const int next = (s + 1) % w.p;
        const bool crosses = (s * ppStride) / domain != (next * ppStride) / domain;
        w.sendScaleOut[size_t(s)] = crosses;
        w.send[size_t(s)] = pointToPoint(ppBytes, crosses ? w.links.fabric : w.links.nvlink);
    }

    // Optimizer and memory, per stage.
    const int gradGroup = w.d * w.c;
    const double shard = par.distributedOptimizer ? gradGroup : 1;
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
        if (par.recompute == Recompute::Full) // one layer rebuilt whole during its backward
            activations += lc.fullLayerBytes;
        if (s == w.p - 1)
            activations += 2 * logitsBytes;
        w.memoryGiB[size_t(s)] = (states + activations) / kGiB + cal.frameworkMemoryGiB;
    }

    w.tokensPerStep = double(run.batch.global) * ms.seqLen;
    // Model FLOPs of the whole step on all GPUs: forward and backward (3x forward) of every
    // layer and the LM head, without recomputation.
    const double fwdPerSequence =
        (lc.modelFlops * w.t * w.c * ms.layers + 2.0 * ms.seqLen * vocab * h) / run.batch.micro;
    w.modelFlopsPerStep = 3 * fwdPerSequence * run.batch.global;
    return w;
}

// The data-parallel traffic of one stage on its NICs: parameter all-gathers at the start of
// the step (distributed optimizer), then the gradient buckets as the backward releases them.
struct Bucket {
    double release = 0;
    double bytes = 0;
    int chunk = 0;
};

struct DpStage {
    double gatherEnd = 0;
    double reduceEnd = 0;
};

double gatherChunks(const Workload& w, int s, std::vector<double>& readyOut)
{
    double t = 0;
    for (int k = 0; k < w.v; ++k) {
        t += w.dpGather(w.paramsOfChunk[w.op(s, k)] * w.gatherBytesPerParam);
        readyOut[w.op(s, k)] = t;
    }
    return t;
}

// One bucket per layer, released as the chunk's last backward passes the layer; parameters
// outside layers (embedding, LM head) go with the chunk's last bucket.
void addBuckets(const Workload& w, int s, int k, double start, double end, std::vector<Bucket>& out)
{
    const size_t i = w.op(s, k);
    const int n = w.layersOf(s, k);
    const double extra = (w.paramsOfChunk[i] - w.layerParamsOfChunk[i]) * w.gradBytesPerParam;
    if (n == 0) {
        out.push_back({end, extra, k});
        return;
    }
    const double perLayer = w.layerParamsOfChunk[i] / n * w.gradBytesPerParam;
    for (int l = 0; l < n; ++l) {
        const double release = start + (end - start) * (l + 1) / n;
        out.push_back({release, perLayer + (l == n - 1 ? extra : 0.0), k});
    }
}

// Drains buckets in release order on one stage's NICs; returns when the last one ends.
double drainBuckets(const Workload& w, std::vector<Bucket>& buckets, double fabricFree, int s,
                    std::vector<Event>* events)
{
    std::sort(buckets.begin(), buckets.end(),
              [](const Bucket& a, const Bucket& b) { return a.release < b.release; });
    for (const Bucket& b : buckets) {
        const double start = std::max(fabricFree, b.release);
        fabricFree = start + w.dpReduce(b.bytes);
        if (events) {
            Event e;
            e.start = start;
            e.end = fabricFree;
            e.stage = s;
            e.chunk = b.chunk;
            e.kind = EventKind::DpComm;
            e.link = w.dpGrad.scaleOut ? w.links.spanClass : LinkClass::NVLink;
            events->push_back(e);
        }
    }
    return fabricFree;
}

LinkClass linkOf(const Workload& w, const DimComm& dc)
{
    return dc.scaleOut ? w.links.fabricClass : LinkClass::NVLink;
}

void pushSegment(std::vector<Event>& events, double& t, double seconds, EventKind kind,
                 const PipelineOp& op, LinkClass link)
{
    if (seconds <= 0)
        return;
    Event e;
    e.start = t;
    e.end = t + seconds;
    e.stage = op.stage;
    e.microBatch = op.microBatch;
    e.chunk = op.chunk;
    e.kind = kind;
    e.link = link;
    events.push_back(e);
    t = e.end;
}

void opEvents(const Workload& w, const PipelineOp& op, const Parts& parts,
              std::vector<Event>& events)
{
    double t = op.start;
    pushSegment(events, t, parts.recompute, EventKind::Recompute, op, LinkClass::NVLink);
    pushSegment(events, t, parts.compute, op.backward ? EventKind::Backward : EventKind::Forward,
                op, LinkClass::NVLink);
    pushSegment(events, t, parts.tp, EventKind::TpComm, op, linkOf(w, w.tp));
    pushSegment(events, t, parts.cp, EventKind::CpComm, op, linkOf(w, w.cp));
}

bool hopScaleOut(const Workload& w, int from, int to)
{
    if (from == to)
        return false;
    // Hops are numbered by the lower stage of the pair, the wrap-around by the last stage.
    const int hop = (to == (from + 1) % w.p) ? from : to;
    return w.sendScaleOut[size_t(hop)];
}

// Communication per dimension along the critical stage, hidden and exposed together, and
// what of the exposed time is on the scale-out fabric. Needs e.breakdown filled.
void setCommTotals(const Workload& w, int critical, double ppTotal, double dpTotal,
                   double ppScaleOut, Evaluation& e)
{
    double tpTotal = 0, cpTotal = 0;
    for (int k = 0; k < w.v; ++k) {
        tpTotal += w.m * w.tpCommPerOp[w.op(critical, k)];
        cpTotal += w.m * w.cpCommPerOp[w.op(critical, k)];
    }
    e.commTotalS[Dim::TP] = tpTotal;
    e.commTotalS[Dim::CP] = cpTotal;
    e.commTotalS[Dim::PP] = ppTotal;
    e.commTotalS[Dim::DP] = dpTotal;
    const Breakdown& bd = e.breakdown;
    e.exposedScaleOutS = (w.dpGrad.scaleOut ? bd.dpExposed : 0) + ppScaleOut +
                         (w.tp.scaleOut ? bd.tpExposed : 0) + (w.cp.scaleOut ? bd.cpExposed : 0);
}

Evaluation simulated(const Workload& w, bool withEvents)
{
    Evaluation e;
    PipelineSpec spec;
    spec.stages = w.p;
    spec.chunks = w.v;
    spec.microBatches = w.m;
    spec.send = w.send;
    const size_t ops = size_t(w.p) * w.v;
    spec.forward.resize(ops);
    spec.backward.resize(ops);
    for (size_t i = 0; i < ops; ++i) {
        spec.forward[i] = w.forward[i].total();
        spec.backward[i] = w.backward[i].total();
    }
    spec.chunkReady.assign(ops, 0);
    std::vector<DpStage> dp(size_t(w.p));
    for (int s = 0; s < w.p; ++s)
        dp[size_t(s)].gatherEnd = gatherChunks(w, s, spec.chunkReady);

    const PipelineSchedule sched = simulatePipeline(spec);

    // The last backward of each chunk releases its gradients.
    std::vector<int> lastBackward(ops, -1);
    std::vector<double> lastEnd(size_t(w.p), 0);
    for (size_t i = 0; i < sched.ops.size(); ++i) {
        const PipelineOp& op = sched.ops[i];
        if (op.backward)
            lastBackward[w.op(op.stage, op.chunk)] = int(i);
        lastEnd[size_t(op.stage)] = std::max(lastEnd[size_t(op.stage)], op.end);
    }
    std::vector<Event>* events = withEvents ? &e.events : nullptr;
    if (withEvents)
        e.events.reserve(sched.ops.size() * 4 + size_t(w.p) * (w.v + 64));
    double stepComputeEnd = 0;
    int critical = 0;
    std::vector<double> dpTotal(size_t(w.p), 0);
    for (int s = 0; s < w.p; ++s) {
        DpStage& st = dp[size_t(s)];
        std::vector<Bucket> buckets;
        for (int k = 0; k < w.v; ++k) {
            const PipelineOp& op = sched.ops[size_t(lastBackward[w.op(s, k)])];
            addBuckets(w, s, k, op.start, op.end, buckets);
        }
        if (events) {
            double t = 0;
            for (int k = 0; k < w.v; ++k) {
                Event g;
                g.start = t;
                g.end = spec.chunkReady[w.op(s, k)];
                g.stage = s;
                g.chunk = k;
                g.kind = EventKind::DpComm;
                g.link = w.dpGrad.scaleOut ? w.links.spanClass : LinkClass::NVLink;
                t = g.end;
                if (g.end > g.start)
                    e.events.push_back(g);
            }
        }
        for (const Bucket& b : buckets)
            dpTotal[size_t(s)] += w.dpReduce(b.bytes);
        dpTotal[size_t(s)] += st.gatherEnd;
        st.reduceEnd = drainBuckets(w, buckets, st.gatherEnd, s, events);
        const double end = std::max(lastEnd[size_t(s)], st.reduceEnd);
        if (end > stepComputeEnd) {
            stepComputeEnd = end;
            critical = s;
        }
    }

    // The breakdown, read along the critical stage: its ops, and what each gap waited for.
    Breakdown& bd = e.breakdown;
    double cursor = 0;
    double ppScaleOut = 0;
    double ppTotal = 0;
    for (const PipelineOp& op : sched.ops) {
        if (op.stage != critical)
            continue;
        const double gap = op.start - cursor;
        if (op.bound == OpBound::Dependency) {
            const double pp = std::min(gap, op.transferS);
            bd.ppExposed += pp;
            bd.bubble += gap - pp;
            const PipelineOp& from = sched.ops[size_t(op.dependency)];
            if (hopScaleOut(w, from.stage, op.stage))
                ppScaleOut += pp;
        } else if (op.bound == OpBound::ChunkReady) {
            bd.dpExposed += gap;
        } else {
            bd.bubble += gap;
        }
        ppTotal += op.transferS;
        const Parts& parts = op.backward ? w.backward[w.op(op.stage, op.chunk)]
                                         : w.forward[w.op(op.stage, op.chunk)];
        bd.compute += parts.compute;
        bd.recompute += parts.recompute;
        bd.tpExposed += parts.tp;
        bd.cpExposed += parts.cp;
        cursor = op.end;
    }
    bd.dpExposed += stepComputeEnd - cursor;
    // Compute slowed by the collectives running under it counts as compute.
    const double contention =
        w.dpContention * std::max(0.0, dpTotal[size_t(critical)] - bd.dpExposed);
    bd.compute += contention;
    stepComputeEnd += contention;
    bd.optimizer = *std::max_element(w.optimizerS.begin(), w.optimizerS.end());
    const double beforeOverhead = stepComputeEnd + bd.optimizer;
    bd.overhead = w.virtualization * beforeOverhead;
    e.stepTimeS = beforeOverhead + bd.overhead;

    setCommTotals(w, critical, ppTotal, dpTotal[size_t(critical)], ppScaleOut, e);

    if (!withEvents)
        return e;
    std::vector<double> stageCursor(size_t(w.p), 0);
    for (const PipelineOp& op : sched.ops) {
        const size_t i = w.op(op.stage, op.chunk);
        double& free = stageCursor[size_t(op.stage)];
        if (op.start > free) {
            Event gap;
            gap.start = free;
            gap.end = op.start;
            gap.stage = op.stage;
            gap.kind = EventKind::Bubble;
            gap.critical = op.stage == critical;
            e.events.push_back(gap);
        }
        free = op.end;
        const size_t first = e.events.size();
        opEvents(w, op, op.backward ? w.backward[i] : w.forward[i], e.events);
        if (op.transferS > 0) {
            const PipelineOp& from = sched.ops[size_t(op.dependency)];
            Event send;
            send.start = from.end;
            send.end = from.end + op.transferS;
            send.stage = from.stage;
            send.microBatch = op.microBatch;
            send.chunk = from.chunk;
            send.kind = EventKind::PpSend;
            send.link =
                hopScaleOut(w, from.stage, op.stage) ? w.links.fabricClass : LinkClass::NVLink;
            send.exposed = op.bound == OpBound::Dependency;
            e.events.push_back(send);
        }
        for (size_t j = first; j < e.events.size(); ++j)
            e.events[j].critical = op.stage == critical && e.events[j].kind != EventKind::PpSend;
    }
    for (Event& ev : e.events) {
        if (ev.kind == EventKind::DpComm)
            ev.exposed = ev.end > lastEnd[size_t(ev.stage)] || ev.start < 1e-15;
    }
    Event opt;
    opt.start = stepComputeEnd;
    opt.end = stepComputeEnd + bd.optimizer;
    opt.stage = -1;
    opt.kind = EventKind::Optimizer;
    opt.critical = true;
    e.events.push_back(opt);
    return e;
}

// The closed form of the same schedule, for searches that evaluate many configurations.
Evaluation analytic(const Workload& w)
{
    Evaluation e;
    Breakdown& bd = e.breakdown;
    const size_t ops = size_t(w.p) * w.v;
    // The heaviest stage sets the pace.
    int critical = 0;
    double heaviest = -1;
    for (int s = 0; s < w.p; ++s) {
        double work = 0;
        for (int k = 0; k < w.v; ++k)
            work += w.forward[w.op(s, k)].total() + w.backward[w.op(s, k)].total();
        if (work > heaviest) {
            heaviest = work;
            critical = s;
        }
    }
    Parts stageParts;
    for (int k = 0; k < w.v; ++k) {
        stageParts += w.forward[w.op(critical, k)];
        stageParts += w.backward[w.op(critical, k)];
    }
    stageParts = stageParts.times(w.m);
    bd.compute = stageParts.compute;
    bd.recompute = stageParts.recompute;
    bd.tpExposed = stageParts.tp;
    bd.cpExposed = stageParts.cp;

    // Fill and drain: p - 1 chunk slots of the average op, and the hops of one pass down and
    // one back. With chunks, each micro-batch group goes round the ring once per chunk: a
    // group of g micro-batches keeps a stage busy for g ops while its first one goes round
    // the p stages and their hops; what g does not cover is idle (schedule.h).
    const double n = double(ops);
    double meanForward = 0, meanBackward = 0;
    for (size_t i = 0; i < ops; ++i) {
        meanForward += w.forward[i].total() / n;
        meanBackward += w.backward[i].total() / n;
    }
    double hops = 0, hopsScaleOut = 0, ring = 0, ringScaleOut = 0;
    for (int s = 0; s < w.p; ++s) {
        const double t = w.p > 1 ? w.send[size_t(s)] : 0.0;
        const bool out = w.sendScaleOut[size_t(s)];
        ring += t;
        ringScaleOut += out ? t : 0.0;
        if (s + 1 < w.p) {
            hops += t;
            hopsScaleOut += out ? t : 0.0;
        }
    }
    // Fill and drain pass the last chunk of the other stages at the turnaround, forward then
    // backward: a light op there (fewer layers, as when the layers do not divide) shortens
    // both passes. Factor 2 and the cap at one slot match the simulation.
    const double slot = meanForward + meanBackward;
    bd.bubble = (w.p - 1) * slot;
    for (int s = 0; s < w.p; ++s) {
        if (s == critical)
            continue;
        const size_t i = w.op(s, w.v - 1);
        const double light = slot - (w.forward[i].total() + w.backward[i].total());
        bd.bubble -= std::min(slot, 2 * std::max(0.0, light));
    }
    bd.ppExposed = 2 * hops;
    double ppScaleOut = 2 * hopsScaleOut;
    if (w.v > 1 && w.p > 1) {
        const int groups = groupCount(w.p, w.m);
        const double g = double(w.m) / groups;
        // Between the first group's forwards and the last group's backwards, 1F1B puts a
        // backward between two forwards, which covers the trip round the ring.
        const double loops = double(w.v - 1);
        for (double op : {meanForward, meanBackward}) {
            const double wait = std::max(0.0, (w.p - g) * op + ring);
            const double onSends = std::min(wait, ring);
            bd.ppExposed += loops * onSends;
            bd.bubble += loops * (wait - onSends);
            ppScaleOut += ring > 0 ? loops * onSends * ringScaleOut / ring : 0.0;
        }
    }

    // DP: before the first forward of each chunk, its parameters; the gathers run one after
    // the other while the first group of micro-batches goes round the ring once per chunk,
    // so they hold the warm-up back when they take longer than a trip. After the last backward,
    // what the gradient buckets have not drained. Chunk k's gradients are released k groups of
    // backwards before the end (the cool-down runs the chunks in reverse), chunk 0's over its
    // own last backward, bucket by bucket.
    std::vector<double> ready(ops, 0);
    gatherChunks(w, critical, ready);
    const double firstGather = ready[w.op(critical, 0)];
    const double trip = groupSize(w.p, w.m, 0) * meanForward;
    double gatherWait = 0;
    for (int k = 0; k < w.v; ++k)
        gatherWait = std::max(gatherWait, ready[w.op(critical, k)] - k * trip);
    std::vector<Bucket> buckets;
    const double lastBackward = w.backward[w.op(critical, 0)].total();
    addBuckets(w, critical, 0, 0, lastBackward, buckets);
    double tail = drainBuckets(w, buckets, 0, critical, nullptr) - lastBackward;
    const double spacing = groupSize(w.p, w.m, groupCount(w.p, w.m) - 1) * meanBackward;
    double queued = 0;
    for (int k = 0; k < w.v; ++k) {
        queued += w.dpReduce(w.paramsOfChunk[w.op(critical, k)] * w.gradBytesPerParam);
        if (k > 0)
            tail = std::max(tail, queued - k * spacing);
    }
    bd.dpExposed = gatherWait + std::max(0.0, tail);
    double dpTotal = firstGather;
    for (int k = 0; k < w.v; ++k) {
        dpTotal += w.dpReduce(w.paramsOfChunk[w.op(critical, k)] * w.gradBytesPerParam);
        if (k > 0)
            dpTotal += w.dpGather(w.paramsOfChunk[w.op(critical, k)] * w.gatherBytesPerParam);
    }
    bd.compute += w.dpContention * std::max(0.0, dpTotal - bd.dpExposed);
    bd.optimizer = *std::max_element(w.optimizerS.begin(), w.optimizerS.end());
    const double beforeOverhead = bd.compute + bd.recompute + bd.tpExposed + bd.cpExposed +
                                  bd.ppExposed + bd.bubble + bd.dpExposed + bd.optimizer;
    bd.overhead = w.virtualization * beforeOverhead;
    e.stepTimeS = beforeOverhead + bd.overhead;

    setCommTotals(w, critical, w.p > 1 ? 2.0 * w.m * w.v * w.send[size_t(critical)] : 0.0, dpTotal,
                  ppScaleOut, e);
    return e;
}

} // namespace

Evaluation evaluate(const ClusterDesc& cluster, const RunDesc& run, const EvalOptions& opts)
{
    const Calibration& cal = opts.calibration ? *opts.calibration : defaultCalibration();
    const Workload w = buildWorkload(cluster, run, cal);
    Evaluation e = opts.withEvents ? simulated(w, true) : analytic(w);
    e.commExposedS[Dim::TP] = e.breakdown.tpExposed;
    e.commExposedS[Dim::CP] = e.breakdown.cpExposed;
    e.commExposedS[Dim::PP] = e.breakdown.ppExposed;
    e.commExposedS[Dim::DP] = e.breakdown.dpExposed;
    e.tokensPerS = w.tokensPerStep / e.stepTimeS;
    e.mfu = w.modelFlopsPerStep / (e.stepTimeS * double(w.gpus) * w.peakFlopsPerGpu);
    e.memoryGiBPerStage = w.memoryGiB;
    e.memoryGiBPerGpu = *std::max_element(w.memoryGiB.begin(), w.memoryGiB.end());
    e.fitsMemory = e.memoryGiBPerGpu <= cluster.gpu.hbmGiB;
    if (run.trainingSteps)
        e.timeToTrainS = e.stepTimeS * *run.trainingSteps;
    return e;
}

} // namespace cs
