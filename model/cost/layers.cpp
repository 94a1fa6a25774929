#include "layers.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>

#include "attention.h"
#include "calibration.h"
#include "expertdispatch.h"
#include "schedule.h"
#include "unfused.h"

namespace cs {

namespace {

constexpr double kRouterBytes = 4; // router logits and probabilities in FP32
// Elementwise work runs at the memory rate: forward once, backward twice (gradients of inputs
// and of the parameters of norms).
constexpr double kBackwardElementwise = 2;
// Megatron-Core adds an expert's second bias after its GEMM, scaled by the routing probability
// (TEGroupedMLP._apply_bias): per element of the output, forward b * p in FP32 (4 bytes written),
// the sum with the BF16 output (2 + 4 read, 4 written), the concatenation of the experts (4 + 4)
// and the cast back to BF16 (4 + 2); backward, the cast of the gradient to FP32 (2 + 4), its
// cast back for the GEMM's output (4 + 2), and the bias's and the probability's gradients, each
// a product and a sum (4 + 4 + 4).
constexpr double kExpertBiasForwardBytes = 28;
constexpr double kExpertBiasBackwardBytes = 36;

// A layer's shapes on one GPU for one micro-batch.
struct Shape {
    double t = 1, c = 1, sp = 1, b = 1, s = 1, h = 1;
    double tokens = 1; // T: the micro-batch's tokens on this GPU's context-parallel shard
    double heads = 1;
    double qkDim = 1;   // per head, queries and keys
    double vDim = 1;    // per head, values
    double kvWidth = 1; // K and V projections' width together, before the TP split
    double keys = 1;    // keys each query attends to on average (causal, window)
    double mats = 2;    // MLP matrices: 3 with a gated MLP
    double dense = 1;   // the dense MLP's width
    bool lowPrecision = false;
    double gemmInputBytes = 2; // a GEMM input kept for the weight gradient, per element
};

Shape shapeOf(const LayerContext& ctx, LayerKind kind)
{
    const ModelShape& m = ctx.run.model;
    const Workload& w = ctx.w;
    Shape l;
    l.t = w.t;
    l.c = w.c;
    l.sp = ctx.run.parallelism.sequenceParallel ? l.t : 1;
    l.b = ctx.run.batch.micro;
    l.s = m.seqLen;
    l.h = m.hidden;
    l.tokens = l.b * l.s / l.c;
    l.heads = m.heads;
    const Attention& a = m.attention;
    if (a.kind == AttentionKind::Mla) {
        l.qkDim = a.qkNopeHeadDim + a.qkRopeHeadDim;
        l.vDim = a.vHeadDim;
        l.kvWidth = l.heads * (l.qkDim + l.vDim);
    } else {
        l.qkDim = l.vDim = m.resolvedHeadDim();
        l.kvWidth = 2.0 * m.kvHeads * l.qkDim;
    }
    // Causal: a query sees the keys before it, on average half the sequence; a window of w
    // keys bounds that (each context-parallel rank gets a balanced share of the queries).
    const double window = kind.sliding ? std::min<double>(a.window, l.s) : l.s;
    l.keys =
        window >= l.s ? (l.s + 1) / 2 : (window * (window + 1) / 2 + (l.s - window) * window) / l.s;
    l.mats = m.gatedMlp ? 3 : 2;
    l.dense = m.moe && m.moe->denseLayers > 0 ? m.moe->denseFfnHidden : m.ffnHidden;
    l.lowPrecision = ctx.run.precision != Precision::BF16;
    // FP8 and NVFP4 recipes keep the cast copy (Transformer Engine's saved GEMM inputs).
    l.gemmInputBytes = ctx.rates.weightBytes;
    return l;
}

// What an MLP `f` wide on this GPU keeps for its backward pass, per row: the first GEMM's
// input (`in` wide), its output (the activation function's input, BF16) and the second GEMM's
// input.
double mlpSavedBytes(const Shape& l, double in, double f)
{
    return l.gemmInputBytes * in + (kActivationBytes * (l.mats - 1) + l.gemmInputBytes) * f;
}

// The same for the shared experts, per token: their input is the router's (BF16, counted
// once) unless the GEMMs take a cast copy.
double sharedSavedBytes(const Shape& l, const Moe& moe)
{
    if (moe.sharedExperts == 0)
        return 0;
    return mlpSavedBytes(l, l.lowPrecision ? l.h / l.sp : 0,
                         double(moe.sharedFfnHidden) * moe.sharedExperts / l.t);
}

// One GEMM of a layer: y[rows x n] = x[rows x k] W[k x n] on one GPU.
struct Gemm {
    double k = 1, n = 1;
    double params() const { return k * n; }
};

// A layer's few GEMMs, held in place: a search costs layers for every layout it tries.
class Gemms {
public:
    Gemms() = default;
    Gemms(std::initializer_list<Gemm> gemms)
    {
        for (const Gemm& g : gemms)
            push_back(g);
    }
    void push_back(const Gemm& g)
    {
        assert(m_count < m_items.size());
        m_items[m_count++] = g;
    }
    const Gemm* begin() const { return m_items.data(); }
    const Gemm* end() const { return m_items.data() + m_count; }
    bool empty() const { return m_count == 0; }

private:
    std::array<Gemm, 6> m_items{};
    size_t m_count = 0;
};

// Seconds of a set of GEMMs over `rows` rows, forward; backward is twice the FLOPs.
double gemmsForward(const Gemms& gemms, double rows, const GemmDevice& d)
{
    double seconds = 0;
    for (const Gemm& g : gemms)
        seconds += gemmSeconds({rows, g.n, g.k}, d);
    return seconds;
}

// The grouped GEMMs of a GPU's `experts` experts, `rows` token copies each: every expert's
// tiles in the waves of a GEMM of the expert MLP, plus `kernelS` for each expert's own kernel
// of it (0 where one fused kernel runs every expert).
double expertGemmsForward(const Gemms& gemms, double experts, double rows, const GemmDevice& d,
                          double kernelS)
{
    double seconds = 0;
    for (const Gemm& g : gemms)
        seconds += groupedGemmSeconds(experts, {rows, g.n, g.k}, d) + experts * kernelS;
    return seconds;
}

double paramsOf(const Gemms& gemms)
{
    double p = 0;
    for (const Gemm& g : gemms)
        p += g.params();
    return p;
}

// The projections of attention on one GPU; MLA's down-projections are not split by TP.
struct AttentionGemms {
    Gemms all;
    Gemms upProjections; // MLA's, which `mla_up_proj` recomputes
};

AttentionGemms attentionGemms(const ModelShape& m, const Shape& l)
{
    AttentionGemms g;
    const Attention& a = m.attention;
    if (a.kind == AttentionKind::Mla) {
        const double queries = l.heads * l.qkDim / l.t;
        if (a.qLoraRank > 0) {
            g.all.push_back({l.h, double(a.qLoraRank)});
            g.upProjections.push_back({double(a.qLoraRank), queries});
        } else {
            g.all.push_back({l.h, queries});
        }
        g.all.push_back({l.h, double(a.kvLoraRank + a.qkRopeHeadDim)});
        g.upProjections.push_back(
            {double(a.kvLoraRank), l.heads * (a.qkNopeHeadDim + l.vDim) / l.t});
        for (const Gemm& up : g.upProjections)
            g.all.push_back(up);
        g.all.push_back({l.heads * l.vDim / l.t, l.h});
    } else {
        g.all.push_back({l.h, (l.heads * l.qkDim + l.kvWidth) / l.t});
        g.all.push_back({l.heads * l.vDim / l.t, l.h});
    }
    return g;
}

// A dense MLP of width f split over t GPUs.
Gemms mlpGemms(double h, double f, double mats, double t)
{
    return {{h, (mats - 1) * f / t}, {f / t, h}};
}

double tpCollectives(double bytes, const Workload& w, bool sequenceParallel, int count)
{
    if (w.t <= 1 || count == 0)
        return 0;
    const HierarchicalGroup& g = w.dims[Dim::TP].group;
    const double one = sequenceParallel ? allGather(bytes, g) : allReduce(bytes, g);
    return count * one;
}

// The expert layer: routing, the all-to-all that takes token copies to their experts' GPUs
// and back, the grouped GEMMs of the local experts, the shared experts.
struct Experts {
    double routedTokens = 0; // tokens this GPU routes per micro-batch
    double copies = 0;       // token copies its experts compute, with imbalance or padding
    double rowsPerExpert = 0;
    Gemms local;             // one expert's GEMMs on this GPU
    double localExperts = 1; // experts held by this GPU
    Gemms shared;            // the shared experts, split by TP
    double allToAllS = 0;    // one dispatch or combine, forward
};

Experts expertsOf(const LayerContext& ctx, const Shape& l)
{
    const Moe& moe = *ctx.run.model.moe;
    const Parallelism& par = ctx.run.parallelism;
    const double ep = std::max(1, par.ep), etp = std::max(1, par.etp);
    Experts x;
    x.routedTokens = l.tokens / l.t;
    x.localExperts = moe.experts / ep;
    // Padded to capacity when tokens are dropped; otherwise the GPU whose experts get the most
    // tokens sets the pace: its busiest expert's excess over the mean, spread over its experts.
    const double load =
        moe.capacityFactor ? *moe.capacityFactor : 1 + (moe.imbalance - 1) / x.localExperts;
    x.copies = x.routedTokens * moe.topK * load;
    x.rowsPerExpert = x.copies * etp / x.localExperts;
    x.local = mlpGemms(l.h, moe.ffnHidden, l.mats, etp);
    if (moe.sharedExperts > 0)
        x.shared = mlpGemms(l.h, double(moe.sharedFfnHidden) * moe.sharedExperts, l.mats, l.t);
    // FP8 recipes dispatch FP8 tokens (one byte and a scale per 32); the combine is BF16.
    const double dispatchBytes = l.lowPrecision ? 1 + 1.0 / 32 : kActivationBytes;
    x.allToAllS =
        0.5 * (allToAllSeconds(x.routedTokens, l.h * dispatchBytes, moe.topK, ctx.w, ctx.cal) +
               allToAllSeconds(x.routedTokens, l.h * kActivationBytes, moe.topK, ctx.w, ctx.cal));
    return x;
}

// The share of a MoE layer's CPU time (moe_layer_host_us: its attention's launches and the
// MoE's, forward and backward) still spent where the recipe replays some modules as CUDA
// graphs: from the launches counted on an x86 host (docs/cost-model.md, "Calibration"), the
// fused router and the token-count preprocessing (about 300 us) less their graphs' replays
// (about 145 us) are 0.07 of the 2,100 us, attention (about 560 us) less its replays 0.21.
double moeLayerHostShare(const Workload& w)
{
    constexpr double kRouterGraphed = 0.07, kAttentionGraphed = 0.21;
    return 1 - (w.routerGraph ? kRouterGraphed : 0) - (w.attentionGraph ? kAttentionGraphed : 0);
}

// The terms of one layer before they are put together, forward seconds.
struct Terms {
    AttentionSeconds attentionCore; // flash attention
    double attentionGemms = 0;      // projections
    double mlaUpProj = 0;
    double mlpGemms = 0; // dense MLP, or the experts' and shared experts' GEMMs
    double sharedGemms = 0;
    double expertGemms = 0;
    double router = 0;
    double norms = 0;      // norms and residual adds
    double activation = 0; // the MLP's activation function
    double permute = 0;    // token copies to and from the experts
    double expertBias = 0; // the experts' second bias, added apart: forward, backward
    double expertBiasBackward = 0;
    double clamp = 0; // the GLU clamp outside the fused activation (unfused.h), forward
    double clampBackward = 0;
    double rope = 0; // rotary embeddings outside the fused kernel, forward
    double ropeBackward = 0;
    double casts = 0;   // GEMM inputs cast to the low precision
    double weights = 0; // weight reads and gradient accumulation, forward share
    double weightsBackward = 0;
    double host = 0; // the CPU's launches and synchronizations, forward and backward together
    double tp = 0;   // TP collectives, forward
    double ep = 0;   // expert all-to-all, forward (dispatch and combine)
};

// A part of a layer's GPU time, forward and backward, from its forward GEMMs, flash attention
// and elementwise kernels.
struct GpuPasses {
    double forward = 0, backward = 0;
};
GpuPasses gpuPasses(double gemms, const AttentionSeconds& attentionCore, double elementwise)
{
    return {gemms + attentionCore.forward + elementwise,
            2 * gemms + attentionCore.backward + kBackwardElementwise * elementwise};
}

double memorySeconds(double bytes, const Rates& r)
{
    return bytes / r.memory;
}

Terms termsOf(const LayerContext& ctx, LayerKind kind, const Shape& l, LayerCosts& lc)
{
    const ModelShape& m = ctx.run.model;
    const Rates& r = ctx.rates;
    const Workload& w = ctx.w;
    Terms x;
    const AttentionGemms attention = attentionGemms(m, l);
    x.attentionGemms = gemmsForward(attention.all, l.tokens, r.gemm);
    x.mlaUpProj = gemmsForward(attention.upProjections, l.tokens, r.gemm);
    const double scores = l.tokens * l.keys * l.heads / l.t;
    const double attentionFlops = 2 * scores * (l.qkDim + l.vDim);
    x.attentionCore = flashAttentionSeconds(attentionFlops, scores, r.attention, r.exponentials);
    double flops = attentionFlops;
    for (const Gemm& g : attention.all)
        flops += 2 * l.tokens * g.params();
    double denseParams = paramsOf(attention.all);
    double expertParams = 0;
    double mlpWidth = 0; // what the activation function reads, per token on this GPU
    int tpCount = 2;     // attention's collectives; the MLP's follow
    if (kind.moe) {
        const Experts e = expertsOf(ctx, l);
        const double etp = std::max(1, ctx.run.parallelism.etp);
        const double kernelS = w.wholeStepGraph ? 0 : 1e-6 * ctx.cal.expertKernelUs;
        x.expertGemms =
            expertGemmsForward(e.local, e.localExperts, e.rowsPerExpert, r.grouped, kernelS);
        x.sharedGemms = gemmsForward(e.shared, l.tokens, r.gemm);
        x.router = gemmSeconds({e.routedTokens, double(m.moe->experts), l.h}, r.gemmBf16);
        x.mlpGemms = x.expertGemms + x.sharedGemms;
        x.permute = memorySeconds(kActivationBytes * e.routedTokens * m.moe->topK * l.h * 4 +
                                      kRouterBytes * e.routedTokens * m.moe->experts * 2,
                                  r);
        x.ep = 2 * e.allToAllS;
        if (ctx.w.expertBiasApart) {
            const double outputs = e.copies * etp * l.h;
            x.expertBias = memorySeconds(kExpertBiasForwardBytes * outputs, r);
            x.expertBiasBackward = memorySeconds(kExpertBiasBackwardBytes * outputs, r);
        }
        expertParams = e.localExperts * paramsOf(e.local);
        denseParams += paramsOf(e.shared) + l.h * m.moe->experts;
        mlpWidth = e.copies * etp * (l.mats - 1) * m.moe->ffnHidden / etp / l.tokens;
        const double balanced = e.routedTokens * m.moe->topK;
        flops += 2 * balanced * l.h * l.mats * m.moe->ffnHidden;
        flops += 2 * l.tokens * paramsOf(e.shared);
        tpCount += e.shared.empty() ? 0 : 2;
        // The router keeps its BF16 input; in FP8 and NVFP4 the shared experts a cast copy.
        lc.activationBytes += kActivationBytes * l.tokens * l.h / l.sp +
                              e.copies * etp * mlpSavedBytes(l, l.h, m.moe->ffnHidden / etp) +
                              l.tokens * sharedSavedBytes(l, *m.moe);
    } else {
        const Gemms mlp = mlpGemms(l.h, l.dense, l.mats, l.t);
        x.mlpGemms = gemmsForward(mlp, l.tokens, r.gemm);
        denseParams += paramsOf(mlp);
        mlpWidth = (l.mats - 1) * l.dense / l.t;
        flops += 2 * l.tokens * paramsOf(mlp);
        tpCount += 2;
        lc.activationBytes += l.tokens * mlpSavedBytes(l, l.h / l.sp, l.dense / l.t);
    }
    x.norms = memorySeconds(kActivationBytes * l.tokens * (4 * l.h / l.sp + 6 * l.h / l.sp), r);
    x.activation = memorySeconds(kActivationBytes * l.tokens * mlpWidth * 1.5, r);
    if (l.lowPrecision) // each GEMM input read in BF16 and written in the narrow type
        x.casts = memorySeconds(
            r.castBytes * l.tokens * (2 * l.h + l.heads * l.vDim / l.t + mlpWidth), r);
    const double params = denseParams + expertParams;
    x.weights = memorySeconds(params * r.weightBytes, r);
    x.weightsBackward = memorySeconds(params * (r.weightBytes + 8), r); // FP32 main grads
    // Dropless routing makes the CPU wait for each layer's token counts before it can size
    // and launch the expert GEMMs; with a capacity (tokens dropped or padded) it need not.
    // Each local expert's GEMMs are launched one by one (TE's grouped linear).
    const bool dropless = kind.moe && !m.moe->capacityFactor;
    const double localExperts = kind.moe ? m.moe->experts / std::max(1, ctx.run.parallelism.ep) : 0;
    x.host = ctx.w.wholeStepGraph
                 ? 0
                 : 1e-6 * (ctx.cal.layerHostUs +
                           (dropless ? ctx.cal.moeLayerHostUs * moeLayerHostShare(ctx.w) : 0) +
                           localExperts * ctx.cal.expertHostUs +
                           (ctx.w.allToAllOverlap ? ctx.cal.a2aOverlapHostUs : 0));
    if (kind.moe && w.gluClampApart) {
        const PassBytes clamp = gluClampBytes(l.tokens * mlpWidth);
        x.clamp = memorySeconds(clamp.forward, r);
        x.clampBackward = memorySeconds(clamp.backward, r);
    }
    if (w.unfusedRope) {
        const PassBytes rope =
            unfusedRopeBytes(l.tokens * (l.heads * l.qkDim + l.kvWidth / 2) / l.t);
        x.rope = memorySeconds(rope.forward, r);
        x.ropeBackward = memorySeconds(rope.backward, r);
    }
    const bool sp = ctx.run.parallelism.sequenceParallel;
    x.tp = tpCollectives(kActivationBytes * l.tokens * l.h, w, sp, sp ? tpCount : tpCount / 2);

    lc.denseParams = denseParams;
    lc.expertParams = expertParams;
    lc.modelFlops = flops;
    return x;
}

// CP: a ring passes each rank's K and V round the group, overlapped with the attention blocks
// computed meanwhile; backward passes K, V and their gradients.
void contextParallel(const Shape& l, const Workload& w, const AttentionSeconds& attention,
                     LayerCosts& lc)
{
    if (w.c <= 1)
        return;
    const double kvBytes = kActivationBytes * l.tokens * l.kvWidth / l.t;
    const HierarchicalGroup& g = w.dims[Dim::CP].group;
    const LinkSpeed link = w.dims[Dim::CP].scaleOut ? g.outer : g.inner;
    const double ringF = (l.c - 1) * pointToPoint(kvBytes, link);
    const double ringB = (l.c - 1) * pointToPoint(2 * kvBytes, link);
    const double hiddenUnder = (l.c - 1) / l.c;
    lc.forward.comm[Dim::CP] = std::max(0.0, ringF - attention.forward * hiddenUnder);
    lc.forward.hidden[Dim::CP] = ringF - lc.forward.comm[Dim::CP];
    lc.backward.comm[Dim::CP] = std::max(0.0, ringB - attention.backward * hiddenUnder);
    lc.backward.hidden[Dim::CP] = ringB - lc.backward.comm[Dim::CP];
    lc.comm[Dim::CP] = ringF + ringB;
}

// What the backward pass recomputes, in seconds, and what recomputing saves of the
// activations kept (bytes per micro-batch).
void recompute(const LayerContext& ctx, LayerKind kind, const Shape& l, const Terms& x,
               LayerCosts& lc)
{
    const Recompute& rc = ctx.run.parallelism.recompute;
    const double a = kActivationBytes * l.tokens;
    if (rc.mode == RecomputeMode::Full) {
        lc.backward.recompute = lc.forward.compute;
        for (Dim d : {Dim::TP, Dim::CP, Dim::EP}) {
            lc.backward.comm[d] += lc.forward.comm[d];
            lc.backward.hidden[d] += lc.forward.hidden[d];
            lc.comm[d] += d == Dim::CP ? 0 : lc.comm[d] / 2;
        }
        lc.activationBytes = a * l.h / l.sp; // only each layer's input is kept
        return;
    }
    auto redo = [&](RecomputeModule m, double seconds, double savedBytes) {
        if (!rc.recomputes(m))
            return;
        lc.backward.recompute += seconds;
        lc.activationBytes = std::max(a * l.h / l.sp, lc.activationBytes - savedBytes);
    };
    redo(RecomputeModule::CoreAttn, x.attentionCore.forward, a * l.heads * l.vDim / l.t);
    redo(RecomputeModule::MlaUpProj, x.mlaUpProj, a * l.heads * (l.qkDim + l.qkDim + l.vDim) / l.t);
    redo(RecomputeModule::Layernorm, x.norms / 2.5, a * 2 * l.h / l.sp);
    if (kind.moe) {
        const Moe& moe = *ctx.run.model.moe;
        const double copies = l.tokens / l.t * moe.topK;
        redo(RecomputeModule::MoeAct, x.activation + x.clamp,
             l.gemmInputBytes * copies * moe.ffnHidden);
        redo(RecomputeModule::SharedExperts, x.sharedGemms, l.tokens * sharedSavedBytes(l, moe));
        // `mlp` names the dense MLP: on an MoE layer it is `moe` that recomputes the experts.
        if (rc.recomputes(RecomputeModule::Moe)) {
            redo(RecomputeModule::Moe,
                 x.mlpGemms + x.permute + x.activation + x.expertBias + x.clamp,
                 copies * mlpSavedBytes(l, l.h, moe.ffnHidden));
            lc.backward.comm[Dim::EP] += lc.forward.comm[Dim::EP];
            lc.backward.hidden[Dim::EP] += lc.forward.hidden[Dim::EP];
            lc.comm[Dim::EP] += lc.comm[Dim::EP] / 2;
        }
    } else {
        redo(RecomputeModule::Mlp, x.mlpGemms + x.activation,
             l.tokens * mlpSavedBytes(l, l.h / l.sp, l.dense / l.t));
    }
}

} // namespace

double launchBoundSeconds(double gpu, double host, double gpuAfterWait)
{
    return std::max(gpu, host + gpuAfterWait);
}

LayerCosts layerCosts(const LayerContext& ctx, LayerKind kind)
{
    const Shape l = shapeOf(ctx, kind);
    LayerCosts lc;
    // Saved for backward, tensor by tensor (Megatron-Core with Transformer Engine and flash
    // attention, no dropout): both norms' inputs, the QKV projection's input, Q K V and the
    // attention output (BF16, for flash attention's backward), and in FP8 or NVFP4 the output
    // projection's cast copy of it; the MLP's (or experts') part is added by termsOf.
    const double attentionOut = l.heads * l.vDim / l.t;
    lc.activationBytes =
        l.tokens * (kActivationBytes *
                        (2 * l.h / l.sp + (l.heads * l.qkDim + l.kvWidth) / l.t + attentionOut) +
                    l.gemmInputBytes * (l.h / l.sp + (l.lowPrecision ? attentionOut : 0)));
    const Terms x = termsOf(ctx, kind, l, lc);
    lc.fullLayerBytes = lc.activationBytes;

    const double gemmsF = x.attentionGemms + x.mlpGemms + x.router;
    const double elementwiseF = x.norms + x.activation + x.permute + x.casts;
    // The GPU runs the layer unless the CPU cannot launch it as fast (host-bound): small
    // micro-batches of mixture-of-experts layers, whose dropless routing makes the CPU wait
    // for the token counts before it can launch the expert GEMMs.
    GpuPasses gpu = gpuPasses(gemmsF, x.attentionCore, elementwiseF);
    gpu.forward += x.expertBias + x.clamp + x.rope;
    gpu.backward += x.expertBiasBackward + x.clampBackward + x.ropeBackward;
    // Dropless routing makes the CPU wait for the token counts: the next layer's attention,
    // queued behind the experts' launches, starts only once the CPU has made them.
    const bool waits = kind.moe && !ctx.run.model.moe->capacityFactor;
    const GpuPasses attention =
        waits ? gpuPasses(x.attentionGemms, x.attentionCore, x.norms) : GpuPasses{};
    lc.forward.compute = launchBoundSeconds(gpu.forward + x.weights, x.host / 3, attention.forward);
    lc.backward.compute =
        launchBoundSeconds(gpu.backward + x.weightsBackward, 2 * x.host / 3, attention.backward);

    for (Parts* pass : {&lc.forward, &lc.backward}) {
        pass->comm[Dim::TP] = ctx.w.tpExposed * x.tp;
        pass->hidden[Dim::TP] = x.tp - pass->comm[Dim::TP];
    }
    lc.comm[Dim::TP] = 2 * x.tp;
    // Where the recipe overlaps it, the all-to-all runs under the compute of another
    // micro-batch (Megatron-Core's combined 1F1B), which hides at most that compute; the
    // warm-up forwards and the cool-down backwards have none beside them.
    const double epOverlap =
        ctx.w.allToAllOverlap ? ctx.cal.epOverlap * pairedShare(ctx.w.p, ctx.w.v, ctx.w.m) : 0;
    for (Parts* pass : {&lc.forward, &lc.backward}) {
        pass->hidden[Dim::EP] = std::min(epOverlap * x.ep, pass->compute);
        pass->comm[Dim::EP] = x.ep - pass->hidden[Dim::EP];
    }
    lc.comm[Dim::EP] = 2 * x.ep;
    contextParallel(l, ctx.w, x.attentionCore, lc);
    recompute(ctx, kind, l, x, lc);
    return lc;
}

} // namespace cs
