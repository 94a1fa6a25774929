// Mixture-of-experts runs: expert parallelism placed on the cluster, memory sharded by it,
// MFU over active parameters, and the search ranking expert layouts.

#include <algorithm>

#include <nlohmann/json.hpp>

#include "alltoall.h"
#include "calibration.h"
#include "checkpoint.h"
#include "costmodel.h"
#include "expertdispatch.h"
#include "layers.h"
#include "samplefiles.h"
#include "schedule.h"
#include "search.h"
#include "trace.h"
#include "validation.h"
#include "workload.h"

using namespace cs;

namespace {

const LoadedFile& insideRacks()
{
    static const LoadedFile loaded = loadSample("gb200-16-deepseek-v3.run.json");
    return loaded;
}

const LoadedFile& acrossRacks()
{
    static const LoadedFile loaded = loadSample("gb200-16-deepseek-v3-ep-across-racks.run.json");
    return loaded;
}

bool valid(const RunDesc& run, const ClusterDesc& cluster)
{
    Diagnostics diags;
    checkRunShape(run, "", "", diags);
    checkRunOnCluster(run, cluster, "", "", diags);
    INFO(diags.formatAll());
    return diags.empty();
}

// DeepSeek-V3's parameters a token passes through: every dense layer, the attention, router,
// shared expert and top_k routed experts of each MoE layer, the MTP layer alike, and the LM
// head (the embedding is a lookup). Counted from the shape, independently of the cost model.
double activeParameters(const ModelShape& m)
{
    const double h = m.hidden;
    const Attention& a = m.attention;
    const double qHead = a.qkNopeHeadDim + a.qkRopeHeadDim;
    const double attention =
        h * a.qLoraRank + a.qLoraRank * m.heads * qHead + h * (a.kvLoraRank + a.qkRopeHeadDim) +
        a.kvLoraRank * m.heads * (a.qkNopeHeadDim + a.vHeadDim) + m.heads * a.vHeadDim * h;
    const Moe& e = *m.moe;
    const double dense = attention + 3 * h * e.denseFfnHidden;
    const double moe = attention + h * e.experts + 3 * h * e.ffnHidden * e.topK +
                       3 * h * e.sharedFfnHidden * e.sharedExperts;
    const int moeLayers = m.layers - e.denseLayers;
    return e.denseLayers * dense + (moeLayers + m.mtpLayers) * moe + h * double(m.vocab);
}

} // namespace

TEST_CASE("expert parallelism inside an NVL72 rack beats the same groups spread over racks")
{
    const ClusterDesc& cluster = *insideRacks().cluster;
    const RunDesc& inside = *insideRacks().run;
    const RunDesc& across = *acrossRacks().run;
    REQUIRE(inside.parallelism == across.parallelism);
    REQUIRE(inside.placement != across.placement);

    const Evaluation in = evaluate(cluster, inside);
    const Evaluation out = evaluate(cluster, across);
    CHECK(in.stepTimeS < out.stepTimeS);
    // Same bytes, slower links: more all-to-all time in all and on the critical path.
    CHECK(out.commTotalS[Dim::EP] > 2 * in.commTotalS[Dim::EP]);
    CHECK(out.breakdown.exposed[Dim::EP] > in.breakdown.exposed[Dim::EP]);
    // The placement moves no memory.
    CHECK(in.memoryGiBPerGpu == Approx(out.memoryGiBPerGpu));
}

TEST_CASE("the all-to-all of an expert group within one rack uses NVLink only")
{
    const Evaluation in = evaluate(*insideRacks().cluster, *insideRacks().run);
    const Evaluation out = evaluate(*insideRacks().cluster, *acrossRacks().run);
    auto expertLinks = [](const Evaluation& e) {
        int fabric = 0, comm = 0;
        for (const Event& ev : e.events) {
            if (ev.isComm() && ev.dim == Dim::EP) {
                ++comm;
                fabric += ev.link != LinkClass::NVLink ? 1 : 0;
            }
        }
        return std::pair{comm, fabric};
    };
    const auto [inComm, inFabric] = expertLinks(in);
    const auto [outComm, outFabric] = expertLinks(out);
    CHECK(inComm > 0);
    CHECK(inFabric == 0);
    CHECK(outComm == inComm);
    CHECK(outFabric == outComm);
}

TEST_CASE("DeepSeek-V3 fits on 1,024 GB200 with EP 64 but not without expert parallelism")
{
    const ClusterDesc& cluster = *insideRacks().cluster;
    RunDesc run = *insideRacks().run;
    REQUIRE(run.parallelism.ep == 64);
    const Evaluation ep64 = estimate(cluster, run);
    CHECK(ep64.fitsMemory);

    run.parallelism.ep = 1;
    REQUIRE(valid(run, cluster));
    const Evaluation ep1 = estimate(cluster, run);
    CHECK_FALSE(ep1.fitsMemory);
    // Each rank holds all the routed experts of its stage instead of one 64th: their weights
    // (BF16, as checkpointed) and gradients (the optimizer's share is the same: one
    // expert-data rank's either way).
    const Workload w = buildWorkload(cluster, run, defaultCalibration());
    for (int s = 0; s < w.p; ++s) {
        double experts = 0;
        for (int k = 0; k < w.v; ++k)
            experts += w.expertParamsOfChunk[w.op(s, k)];
        const double extraGiB =
            experts * (1 - 1.0 / 64) * (kCheckpointWeightBytes + w.gradBytesPerParam) / (1 << 30);
        INFO("stage " << s);
        CHECK(extraGiB > 100);
        CHECK(ep1.memoryGiBPerStage[size_t(s)] - ep64.memoryGiBPerStage[size_t(s)] ==
              Approx(extraGiB).epsilon(0.01));
    }
}

TEST_CASE("model FLOPs and MFU count the active parameters of an MoE model")
{
    const ClusterDesc& cluster = *insideRacks().cluster;
    const RunDesc& run = *insideRacks().run;
    const Workload w = buildWorkload(cluster, run, defaultCalibration());
    const double flopsPerToken = w.modelFlopsPerStep / w.tokensPerStep;
    const double active = activeParameters(run.model);
    // DeepSeek-V3 reports 37 billion activated of 671 billion.
    CHECK(active == Approx(37e9).epsilon(0.03));
    // 6 FLOPs per parameter and token, plus attention over the 4,096-token sequence.
    CHECK(flopsPerToken > 6 * active);
    CHECK(flopsPerToken < 6 * active * 1.25);

    const Evaluation e = evaluate(cluster, run);
    CHECK(e.mfu ==
          Approx(w.modelFlopsPerStep / (e.stepTimeS * double(w.gpus) * w.peakFlopsPerGpu)));
}

TEST_CASE("the search ranks expert layouts of an MoE run")
{
    const auto [cluster, run] = smallDeepSeekV3();
    REQUIRE(valid(run, cluster));

    SearchOptions options;
    options.keep = 20;
    const SearchOutcome outcome = searchParallelism(cluster, run, options);
    REQUIRE(outcome.results.size() == 20);
    for (const SearchResult& r : outcome.results) {
        CHECK(valid(withLayout(run, r.layout), cluster)); // the global batch divides
        CHECK(r.layout.parallelism.ep > 1);
    }
    // EP 1 keeps every expert on every rank: it fits here, but the ranking puts wide expert
    // groups first, as their GEMMs and weight traffic shrink.
    const auto widest = std::max_element(
        outcome.results.begin(), outcome.results.end(), [](const auto& a, const auto& b) {
            return a.layout.parallelism.ep < b.layout.parallelism.ep;
        });
    CHECK(widest->layout.parallelism.ep >= 8);
}

TEST_CASE("The all-to-all of a forward op is dispatch + combine, of a backward op their gradients",
          "[moe][events]")
{
    const Evaluation e = evaluate(*acrossRacks().cluster, *acrossRacks().run);
    int forward = 0, backward = 0;
    for (size_t i = 0; i < e.events.size(); ++i) {
        const std::optional<AllToAllLabel> label = allToAllLabel(e.events, i);
        const bool expertComm = e.events[i].isComm() && e.events[i].dim == Dim::EP;
        REQUIRE(label.has_value() == expertComm);
        if (!label)
            continue;
        // The op's compute event, by the op it belongs to.
        const auto compute = std::find_if(e.events.begin(), e.events.end(), [&](const Event& c) {
            return c.op == e.events[i].op &&
                   (c.kind == EventKind::Forward || c.kind == EventKind::Backward);
        });
        REQUIRE(compute != e.events.end());
        if (compute->kind == EventKind::Forward) {
            ++forward;
            CHECK(label->brief == "dispatch + combine");
        } else {
            ++backward;
            CHECK(label->brief == "combine + dispatch (grad)");
        }
    }
    CHECK(forward > 0);
    CHECK(backward > 0);
}

TEST_CASE("the trace names the expert all-to-all as the timeline does", "[moe][events]")
{
    const Evaluation e = evaluate(*acrossRacks().cluster, *acrossRacks().run);
    const nlohmann::json trace = nlohmann::json::parse(chromeTrace(e, *acrossRacks().run).text);
    std::vector<std::string> names;
    for (const auto& ev : trace.at("traceEvents"))
        if (ev.at("ph") == "X")
            names.push_back(ev.at("name").get<std::string>());
    REQUIRE(names.size() == e.events.size());
    int named = 0;
    for (size_t i = 0; i < e.events.size(); ++i) {
        const std::optional<AllToAllLabel> label = allToAllLabel(e.events, i);
        if (!label)
            continue;
        ++named;
        INFO(names[i]);
        CHECK(names[i].rfind(label->brief + " mb", 0) == 0);
    }
    CHECK(named > 0);
}

TEST_CASE("the layers of each kind in a range are counted as a walk over the layers would")
{
    struct Shape {
        int layers, denseLayers, every; // every: 0 for no sliding window
    };
    const auto shape = GENERATE(Shape{61, 3, 0}, Shape{61, 61, 0}, Shape{36, 0, 2}, Shape{48, 1, 4},
                                Shape{48, 3, 4}, Shape{7, 7, 1}, Shape{5, 2, 3});
    ModelShape model;
    model.layers = shape.layers;
    if (shape.denseLayers < shape.layers) {
        model.moe = Moe{};
        model.moe->denseLayers = shape.denseLayers;
    }
    if (shape.every > 0) {
        model.attention.kind = AttentionKind::SlidingWindow;
        model.attention.every = shape.every;
    }
    const LayerKinds kinds = layerKindsOf(model);
    INFO(shape.layers << " layers, " << shape.denseLayers << " dense, sliding every "
                      << shape.every);
    std::vector<LayerKind> seen;
    for (int i = 0; i < shape.layers; ++i) {
        const LayerKind kind = kinds.kindAt(i);
        CHECK(kind.moe == (i >= shape.denseLayers));
        CHECK(kind.sliding == (shape.every > 0 && i % shape.every == 0));
        if (std::find(seen.begin(), seen.end(), kind) == seen.end())
            seen.push_back(kind);
    }
    CHECK(kinds.present() == seen);
    for (int first = 0; first <= shape.layers; ++first)
        for (int end = first; end <= shape.layers; ++end)
            for (bool moe : {false, true})
                for (bool sliding : {false, true}) {
                    int walked = 0;
                    for (int i = first; i < end; ++i)
                        walked += kinds.kindAt(i) == LayerKind{moe, sliding};
                    CHECK(kinds.count({moe, sliding}, first, end) == walked);
                }
}

TEST_CASE("an expert GEMM slows per token as fewer tokens reach the expert")
{
    // DeepSeek-V3's expert FC1 (7168 x 4096), 8 experts a GPU, on an H100 at efficiency 0.5.
    const GpuSpec& gpu = *findCatalogGpu("H100");
    const GemmDevice d{
        gpu.peakTflopsFp8 * 1e12, 0.5, gpu.sms, double(gpu.tileM), double(gpu.tileN), 500,
        gpu.hbmTBps * 1e12 * 0.7, 1,   2};
    auto perRow = [&](double rows) { return groupedGemmSeconds(8, {rows, 4096, 7168}, d) / rows; };
    // Many rows: linear in rows, but for the last wave.
    CHECK(perRow(16384) == Approx(perRow(8192)).epsilon(0.02));
    // Half a tile of rows costs a whole tile, and few rows read the weights for little work.
    CHECK(perRow(64) > 2 * perRow(8192));
    double previous = perRow(16);
    for (double rows : {32.0, 64.0, 128.0, 512.0, 2048.0, 8192.0}) {
        INFO(rows << " rows");
        CHECK(perRow(rows) <= previous * (1 + 1e-9));
        previous = perRow(rows);
    }
}

TEST_CASE("a layer waits for its launches only past dropless routing's wait for token counts")
{
    const auto [gpu, host, afterWait, seconds] =
        GENERATE(table<double, double, double, double>({{10, 4, 0, 10},    // the GPU behind
                                                        {10, 12, 0, 12},   // the CPU behind
                                                        {10, 4, 5, 10},    // the wait costs none
                                                        {10, 7, 5, 12}})); // it drains the GPU
    CHECK(launchBoundSeconds(gpu, host, afterWait) == seconds);
}

TEST_CASE("the expert all-to-all hides under compute only where the recipe overlaps it")
{
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    REQUIRE(run.precision == Precision::FP8); // MXFP8 on GB200: the 2026 full-iteration recipe
    const Evaluation byDefault = evaluate(*f.cluster, run);
    run.extensions.set("x-moe_a2a_overlap", false);
    const Evaluation off = evaluate(*f.cluster, run);
    run.extensions.set("x-moe_a2a_overlap", true);
    const Evaluation on = evaluate(*f.cluster, run);
    CHECK(byDefault.stepTimeS == on.stepTimeS);
    // Overlapped, at most the calibrated share of the all-to-all hides.
    const double hidable = defaultCalibration().epOverlap;
    CHECK(on.commExposedS[Dim::EP] < (1 - hidable / 2) * off.commExposedS[Dim::EP]);
    CHECK(on.commExposedS[Dim::EP] >= (1 - hidable) * off.commExposedS[Dim::EP] - 1e-9);
    CHECK(off.stepTimeS > on.stepTimeS);
    CHECK(off.commTotalS[Dim::EP] == Approx(on.commTotalS[Dim::EP])); // the same traffic
    // The recipes that run BF16 keep it off unless told.
    run.precision = Precision::BF16;
    const double bf16On = evaluate(*f.cluster, run).stepTimeS;
    run.extensions.set("x-moe_a2a_overlap", false);
    const double bf16Off = evaluate(*f.cluster, run).stepTimeS;
    run.extensions.erase("x-moe_a2a_overlap");
    CHECK(evaluate(*f.cluster, run).stepTimeS == bf16Off);
    CHECK(bf16Off > bf16On);
}

TEST_CASE("the overlapped all-to-all stays exposed in the passes nothing runs beside")
{
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    run.extensions.set("x-moe_a2a_overlap", true);
    const int p = run.parallelism.pp, v = run.parallelism.vp;
    const int m0 = run.microBatchesFor(evaluate(*f.cluster, run).gpusUsed);
    const double hidable = defaultCalibration().epOverlap;
    double previous = 1;
    for (const int m : {4, 8, 32, 256}) {
        run.batch.global = run.batch.global / m0 * m;
        const Evaluation e = evaluate(*f.cluster, run);
        const double exposed = e.commExposedS[Dim::EP] / e.commTotalS[Dim::EP];
        CHECK(exposed == Approx(1 - hidable * pairedShare(p, v, m)).epsilon(1e-6));
        CHECK(exposed < previous);
        previous = exposed;
        run.batch.global = run.batch.global / m * m0;
    }
}

TEST_CASE("the overlapped all-to-all's schedule costs the CPU time per layer unless the step "
          "is one CUDA graph")
{
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    run.precision = Precision::BF16; // launched layer by layer
    run.batch.micro = 1;             // small enough for the CPU to set the pace
    run.extensions.set("x-moe_a2a_overlap", true);
    Calibration none = defaultCalibration();
    none.a2aOverlapHostUs = 0;
    Calibration heavy = none;
    heavy.a2aOverlapHostUs = 1e5; // 0.1 s a layer and micro-batch: the CPU sets the pace
    const double free = evaluate(*f.cluster, run, EvalOptions{&none}).stepTimeS;
    const double paid = evaluate(*f.cluster, run, EvalOptions{&heavy}).stepTimeS;
    CHECK(paid > 2 * free);
    run.extensions.set("x-moe_a2a_overlap", false); // no such schedule, no such cost
    CHECK(evaluate(*f.cluster, run, EvalOptions{&heavy}).stepTimeS ==
          evaluate(*f.cluster, run, EvalOptions{&none}).stepTimeS);
    run = *f.run; // the 2026 MXFP8 recipe: the step is one CUDA graph, the overlap on
    CHECK(evaluate(*f.cluster, run, EvalOptions{&heavy}).stepTimeS ==
          evaluate(*f.cluster, run, EvalOptions{&none}).stepTimeS);
}

TEST_CASE("each local expert's GEMM kernels cost the GPU a fixed time, unless one fused kernel "
          "runs every expert")
{
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    Calibration none = defaultCalibration();
    none.expertKernelUs = 0;
    none.layerHostUs = none.moeLayerHostUs = none.expertHostUs = none.a2aOverlapHostUs = 0;
    Calibration paid = none;
    paid.expertKernelUs = 1000; // 1 ms a kernel: the experts' fixed time dominates the step
    auto stepS = [&](const Calibration& c) {
        return evaluate(*f.cluster, run, EvalOptions{&c}).stepTimeS;
    };
    // The 2026 MXFP8 recipe on GB200 fuses the expert MLP into one kernel.
    CHECK(stepS(paid) == stepS(none));
    run.extensions.set(kFrameworkKey, "megatron-core-2025"); // an expert's GEMMs one by one
    const double oneByOne = stepS(paid) - stepS(none);
    CHECK(oneByOne > 0);
    // Half the experts on each GPU, half the kernels (the tokens they compute do not change).
    run.parallelism.ep *= 2;
    const double halfTheExperts = stepS(paid) - stepS(none);
    CHECK(halfTheExperts == Approx(oneByOne / 2).epsilon(0.05));
}

TEST_CASE("the router's and attention's CUDA graphs take their counted shares off a MoE "
          "layer's CPU time")
{
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    run.precision = Precision::BF16; // launched layer by layer
    run.batch.micro = 1;
    Calibration light = defaultCalibration();
    light.layerHostUs = light.expertHostUs = light.a2aOverlapHostUs = 0;
    light.moeLayerHostUs = 1e5; // 0.1 s a layer and micro-batch: the CPU sets the pace
    Calibration heavy = light;
    heavy.moeLayerHostUs = 2e5;
    // Seconds of step per second of a MoE layer's CPU time, where the CPU sets the pace.
    auto perCpuSecond = [&] {
        return evaluate(*f.cluster, run, EvalOptions{&heavy}).stepTimeS -
               evaluate(*f.cluster, run, EvalOptions{&light}).stepTimeS;
    };
    const double eager = perCpuSecond();
    REQUIRE(eager > 0);
    const auto [router, attention, share] = GENERATE(
        table<bool, bool, double>({{true, false, 0.93}, {false, true, 0.79}, {true, true, 0.72}}));
    run.extensions.set(kRouterGraphKey, router);
    run.extensions.set(kAttentionGraphKey, attention);
    CHECK(perCpuSecond() == Approx(share * eager).epsilon(1e-6));
    run.precision = Precision::FP8; // the 2026 MXFP8 recipe: the whole step one CUDA graph
    CHECK(perCpuSecond() == 0);
}

TEST_CASE("group-limited routing: the chance a token misses a domain")
{
    const auto [domains, topK, groups, groupTopK, miss] =
        GENERATE(table<double, int, int, int, double>({
            {8, 8, 0, 0, 0.343608915}, // unlimited: (7/8)^8
            {8, 8, 8, 4, 0.5},         // DeepSeek-V3, a group a domain: 4 of 8 groups
            {4, 8, 8, 4, 15.0 / 70},   // two groups a domain: C(6,4) / C(8,4)
            {16, 8, 8, 4, 0.625},      // a group over two domains: 1/2 + 1/2 (1/2)^2
            {8, 8, 32, 1, 0.875},      // top-k consecutive experts: one domain of 8
            {3, 8, 8, 4, 0.039018442}, // neither divides the other: unlimited, (2/3)^8
        }));
    const std::optional<RouterGroups> limit =
        groups ? std::optional<RouterGroups>(RouterGroups{groups, groupTopK}) : std::nullopt;
    CHECK(missesDomain(domains, topK, limit) == Approx(miss));
}

TEST_CASE("a token's copies: one per expert (alltoall), one per GPU and domain (flex)")
{
    const auto [perDomain, domains, topK, groups, flex, nvlink, fabric] =
        GENERATE(table<int, int, int, int, bool, double, double>({
            // one node of 8 GPUs, 8 experts a token: 7 of 8 copies leave the GPU...
            {8, 1, 8, 0, false, 7, 0},
            // ...or one to each other GPU hit: 7 (1 - (7/8)^8)
            {8, 1, 8, 0, true, 4.594737594, 0},
            // 8 nodes: an alltoall copy leaves the node 7 times in 8, straight over the NIC
            {8, 8, 8, 0, false, 0.875, 7},
            // flex: once to each other node hit, then on over NVLink: 63 (1 - (63/64)^8)
            {8, 8, 8, 0, true, 7.457534593, 4.594737594},
            // AutoModel's gate, 8 consecutive of 256 experts: two GPUs of one node
            {8, 8, 8, 32, true, 1.96105957, 0.875},
            // the same gate on one node of 16 experts a GPU: the token's one GPU
            {8, 1, 8, 16, true, 0.875, 0},
        }));
    const std::optional<RouterGroups> limit =
        groups ? std::optional<RouterGroups>(RouterGroups{groups, 1}) : std::nullopt;
    const AllToAllCopies copies = allToAllCopies({perDomain, domains}, topK, limit, flex);
    CHECK(copies.nvlink == Approx(nvlink));
    CHECK(copies.fabric == Approx(fabric));
}

TEST_CASE("the flex dispatcher sends fewer copies, read from the run")
{
    const LoadedFile& f = acrossRacks();
    RunDesc run = *f.run;
    run.precision = Precision::BF16; // no full-iteration recipe: alltoall unless the run says
    run.extensions.erase("x-moe_flex_dispatcher");
    const double alltoall = evaluate(*f.cluster, run).commTotalS[Dim::EP];
    run.extensions.set("x-moe_flex_dispatcher", true);
    const double flex = evaluate(*f.cluster, run).commTotalS[Dim::EP];
    CHECK(flex < alltoall);
    run = *f.run; // the 2026 MXFP8 recipe runs HybridEP
    run.extensions.erase("x-moe_flex_dispatcher");
    const double recipe = evaluate(*f.cluster, run).commTotalS[Dim::EP];
    run.extensions.set("x-moe_flex_dispatcher", false);
    CHECK(evaluate(*f.cluster, run).commTotalS[Dim::EP] > recipe);
}

TEST_CASE("group-limited routing sends fewer tokens across NVLink domains, read from the run")
{
    const LoadedFile& f = acrossRacks();
    RunDesc run = *f.run;
    REQUIRE(run.model.moe->experts == 256);
    REQUIRE(routerGroupsOf(run)); // the sample routes as DeepSeek-V3 does: 4 of 8 groups
    const Evaluation limited = evaluate(*f.cluster, run);
    run.extensions.erase(kRouterGroupsKey);
    run.extensions.erase(kRouterGroupTopKKey);
    const Evaluation unlimited = evaluate(*f.cluster, run);
    CHECK(limited.commTotalS[Dim::EP] < unlimited.commTotalS[Dim::EP]);
    CHECK(limited.stepTimeS < unlimited.stepTimeS);
    // Values that describe no limit are ignored: as many groups as chosen, groups that do not
    // divide the experts, text.
    for (const auto& [groups, topK] :
         std::vector<std::pair<nlohmann::json, nlohmann::json>>{{8, 8}, {7, 2}, {"8", 4}, {8, 0}}) {
        run.extensions.set(kRouterGroupsKey, groups);
        run.extensions.set(kRouterGroupTopKKey, topK);
        INFO(groups.dump() << " " << topK.dump());
        CHECK_FALSE(routerGroupsOf(run));
        CHECK(evaluate(*f.cluster, run).stepTimeS == unlimited.stepTimeS);
    }
}

TEST_CASE("FP8 attention follows the recipe unless the run says, and never in BF16")
{
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    const GpuSpec& gpu = f.cluster->gpu;
    REQUIRE(fullIterationRecipe(run, gpu, frameworkOf(run, gpu)));
    CHECK(fp8AttentionOf(run, gpu, frameworkOf(run, gpu)));
    const double byDefault = evaluate(*f.cluster, run).stepTimeS;
    run.extensions.set(kFp8AttentionKey, false);
    CHECK_FALSE(fp8AttentionOf(run, gpu, frameworkOf(run, gpu)));
    const double bf16Attention = evaluate(*f.cluster, run).stepTimeS;
    CHECK(bf16Attention > byDefault);
    // The 2025 framework launches layer by layer and keeps attention in BF16 unless told.
    run.extensions.erase(kFp8AttentionKey);
    run.extensions.set(kFrameworkKey, "megatron-core-2025");
    CHECK_FALSE(fp8AttentionOf(run, gpu, frameworkOf(run, gpu)));
    run.extensions.set(kFp8AttentionKey, true);
    CHECK(fp8AttentionOf(run, gpu, frameworkOf(run, gpu)));
    run.precision = Precision::BF16;
    CHECK_FALSE(fp8AttentionOf(run, gpu, frameworkOf(run, gpu)));
}

TEST_CASE("the LM head runs in MXFP8 only where the run says so and scales in blocks")
{
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    const GpuSpec& gpu = f.cluster->gpu;
    const Framework framework = frameworkOf(run, gpu);
    REQUIRE(fp8BlockScalingOf(run, gpu, framework));
    CHECK_FALSE(fp8OutputProjOf(run, gpu, framework)); // Megatron-Core's default
    const Evaluation bf16Head = evaluate(*f.cluster, run);
    run.extensions.set(kFp8OutputProjKey, true);
    CHECK(fp8OutputProjOf(run, gpu, framework));
    const Evaluation fp8Head = evaluate(*f.cluster, run);
    // The head sits on the last stage, which is the pipeline's heaviest here: the step falls.
    CHECK(fp8Head.stepTimeS < bf16Head.stepTimeS);
    CHECK(fp8Head.mfu * fp8Head.stepTimeS ==
          Approx(bf16Head.mfu * bf16Head.stepTimeS)); // same FLOPs
    // Megatron-Core refuses it for per-tensor FP8 and BF16 alike.
    run.extensions.set(kFp8BlockScalingKey, false);
    CHECK_FALSE(fp8OutputProjOf(run, gpu, framework));
    run.extensions.erase(kFp8BlockScalingKey);
    for (Precision p : {Precision::BF16, Precision::NVFP4}) {
        run.precision = p;
        CHECK_FALSE(fp8OutputProjOf(run, gpu, framework));
    }
}

TEST_CASE("a pipeline split keeps every chunk but the head's to the lightest its layers allow")
{
    // DeepSeek-V3 on 8 stages of 4 chunks: the recipes' "Et|(tt|)*30mL", two layers a chunk,
    // the MTP layer and the loss alone on the last, which outweighs the others.
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    run.parallelism.pp = 8;
    run.parallelism.vp = 4;
    run.parallelism.ep = 8;
    REQUIRE(valid(run, *f.cluster));
    const std::vector<int> split = layersPerVirtualStage(*f.cluster, run);
    REQUIRE(split.size() == 32);
    CHECK(*std::max_element(split.begin(), split.end()) == 2);
    CHECK(split.front() == 1); // the embedding's chunk takes the layer short
    CHECK(std::count(split.begin(), split.end(), 2) == 30);
    CHECK(split.back() == 0);
    int layers = 0;
    for (int n : split)
        layers += n;
    CHECK(layers == run.model.layers);
}

TEST_CASE("biased experts add their second bias apart, in bytes per output, unless the recipe "
          "fuses the expert MLP",
          "[moe]")
{
    const LoadedFile& f = insideRacks();
    RunDesc run = *f.run;
    run.precision = Precision::BF16; // launched layer by layer: no fused expert MLP
    Calibration gpuBound = defaultCalibration();
    gpuBound.moeLayerHostUs = gpuBound.expertHostUs = gpuBound.a2aOverlapHostUs = 0;
    auto computeSeconds = [&](const RunDesc& r, bool backward) {
        const Workload w = buildWorkload(*f.cluster, r, gpuBound);
        double sum = 0;
        for (const Parts& p : backward ? w.backward : w.forward)
            sum += p.compute;
        return sum;
    };
    RunDesc biased = run;
    biased.extensions.set(kBiasLinearKey, true);
    const double forward = computeSeconds(biased, false) - computeSeconds(run, false);
    const double backward = computeSeconds(biased, true) - computeSeconds(run, true);
    // Per MoE layer (the MTP layer's too), forward: b * p written in FP32, its sum with the
    // BF16 output, the experts' concatenation and the cast back, 28 bytes an output element;
    // backward 36. Every token's top-k copies, h wide, on the GPUs of its experts (dropless,
    // balanced: the busiest GPU takes the mean).
    const ModelShape& m = run.model;
    const double tokens = double(run.batch.micro) * m.seqLen;
    const double outputs = tokens * m.moe->topK * m.hidden;
    const double rate =
        f.cluster->gpu.hbmTBps * 1e12 * gpuBound.memoryEfficiency; // bytes/s of streaming kernels
    const int moeLayers = m.layers - m.moe->denseLayers + m.mtpLayers;
    CHECK(forward == Approx(moeLayers * 28 * outputs / rate).epsilon(1e-6));
    CHECK(backward == Approx(moeLayers * 36 * outputs / rate).epsilon(1e-6));
    // The full-iteration MXFP8 recipe's fused expert MLP adds the bias inside.
    RunDesc fused = *f.run;
    REQUIRE(fused.precision == Precision::FP8);
    const double fusedBefore = evaluate(*f.cluster, fused).stepTimeS;
    fused.extensions.set(kBiasLinearKey, true);
    CHECK(evaluate(*f.cluster, fused).stepTimeS == fusedBefore);
    // Off unless the run says so.
    RunDesc off = run;
    off.extensions.set(kBiasLinearKey, false);
    CHECK(evaluate(*f.cluster, off).stepTimeS == evaluate(*f.cluster, run).stepTimeS);
}
