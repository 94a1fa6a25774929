// The cost model against the published figures of the reference systems and the measured
// runs, and properties any sound model keeps.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "calibration.h"
#include "clicommands.h"
#include "costmodel.h"
#include "extensions.h"
#include "measuredruns.h"
#include "rates.h"
#include "samplefiles.h"
#include "validation.h"
#include "workload.h"

using namespace cs;

namespace {

struct Sample {
    ClusterDesc cluster;
    RunDesc run;
};

Sample sample(const std::string& runFile)
{
    const LoadedFile f = loadSample(runFile);
    REQUIRE(f.cluster.has_value());
    REQUIRE(f.run.has_value());
    return {*f.cluster, *f.run};
}

Sample fairwater128()
{
    return sample("fairwater-gb200-128-llama405b.run.json");
}
Sample fairwater112()
{
    return sample("fairwater-gb200-112-llama405b.run.json");
}
Sample ndv5()
{
    return sample("ndv5-h100-1344-gpt3-175b.run.json");
}

constexpr const char* kDenseRuns = "public.jsonl";
constexpr const char* kMoeRuns = "moe-public.jsonl";

std::vector<MeasuredRun> publicRuns(const char* file = kDenseRuns)
{
    Diagnostics diags;
    auto runs =
        readMeasuredRuns(std::string(CS_SHARED_DIR) + "/reference/validation/" + file, diags);
    INFO(diags.formatAll());
    REQUIRE(diags.empty());
    return runs;
}

void checkBreakdownAddsUp(const Evaluation& e)
{
    CHECK(e.breakdown.total() == Approx(e.stepTimeS).epsilon(1e-12));
    for (const cs::Breakdown::Part& part : e.breakdown.parts()) {
        INFO(part.key);
        CHECK(part.seconds >= 0);
    }
}

double step(const ClusterDesc& c, const RunDesc& r, bool events = true)
{
    return (events ? evaluate(c, r) : cs::estimate(c, r)).stepTimeS;
}

} // namespace

TEST_CASE("Fairwater, 128 racks: step time, exposed scale-out, weak scaling")
{
    const Sample s = fairwater128();
    const Evaluation e = evaluate(s.cluster, s.run);
    CHECK(e.stepTimeS == Approx(1.2712).epsilon(0.05));
    const double exposedShare = e.exposedScaleOutS / e.stepTimeS;
    CHECK(exposedShare >= 0.005);
    CHECK(exposedShare <= 0.03);
    CHECK(e.fitsMemory);
    CHECK(e.memoryGiBPerGpu < s.cluster.gpu.hbmGiB);
    REQUIRE(e.timeToTrainS.has_value());
    CHECK(*e.timeToTrainS == Approx(330 * e.stepTimeS));
    // TP, CP and PP stay on NVLink inside the rack; only DP crosses the fabric.
    for (const Event& ev : e.events) {
        if (ev.isComm() &&
            (ev.dim == cs::Dim::TP || ev.dim == cs::Dim::CP || ev.dim == cs::Dim::PP))
            CHECK(ev.link == LinkClass::NVLink);
        if (ev.isComm() && ev.dim == cs::Dim::DP)
            CHECK(isScaleOut(ev.link));
    }

    const Sample s112 = fairwater112();
    const double efficiency = step(s112.cluster, s112.run) / e.stepTimeS;
    CHECK(efficiency >= 0.99);
}

TEST_CASE("ND H100 v5, 10,752 GPUs: GPT-3 175B step time")
{
    const Sample s = ndv5();
    const Evaluation e = evaluate(s.cluster, s.run);
    CHECK(e.stepTimeS == Approx(0.945).epsilon(0.08));
    // The VM layer's 1.5 % is on the step.
    CHECK(e.breakdown.overhead == Approx(0.015 / 1.015 * e.stepTimeS));
    checkBreakdownAddsUp(e);
}

// Rows the model does not explain, each with the range of its error: a change that explains one
// (or moves it further) shows here.
const std::map<std::string, std::pair<double, double>> kUnexplainedRows = {
    // Megatron-Bridge LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_CS: Megatron FSDP with
    // cpu_offloading_num_layers = 20 (scripts/performance/configs/llama/
    // llama3_workload_base_configs.py). The same recipe takes 14 % less time from the
    // 26.02.01 container on (6.25 s against 7.25 s), where the model is within 5 % of it
    // (docs/cost-model.md, "Accuracy").
    {"nemo_bridge_25.11_DGX-GB300_LLAMA3_70B_64gpu_FP8-CS", {-0.20, -0.16}},
};

// Since the GEMMs are timed from their shapes with one efficiency per architecture, and
// constants that one model family alone informs are no longer fitted (issue 36: the A100's,
// which only GPT-3 measures, and NVFP4's, which only Llama 3 does), the dense rows carry
// 5.1 % (3.7 % before) and the A100 and B200 rows up to 17 % (docs/cost-model.md, "Accuracy").
TEST_CASE("public measured runs: MAPE at most 5.5 %, no row off by more than 18 % but one "
          "unexplained")
{
    double sum = 0;
    const auto runs = publicRuns();
    for (const MeasuredRun& r : runs) {
        const double error = step(r.cluster, r.run) / r.run.measured->stepTimeS - 1;
        INFO(r.id << " error " << error);
        if (const auto outlier = kUnexplainedRows.find(r.id); outlier != kUnexplainedRows.end()) {
            CHECK(error >= outlier->second.first);
            CHECK(error <= outlier->second.second);
        } else {
            CHECK(std::abs(error) <= 0.18);
        }
        sum += std::abs(error);
    }
    CHECK(sum / double(runs.size()) <= 0.055);
}

TEST_CASE("measured runs with experts: MAPE at most 10 %")
{
    const auto runs = publicRuns(kMoeRuns);
    REQUIRE(runs.size() == 94);
    double sum = 0;
    for (const MeasuredRun& r : runs)
        sum += std::abs(step(r.cluster, r.run) / r.run.measured->stepTimeS - 1);
    CHECK(sum / double(runs.size()) <= 0.10);
}

TEST_CASE("the analytical path agrees with the event simulation within 2 %")
{
    std::vector<std::tuple<std::string, ClusterDesc, RunDesc>> cases;
    for (const Sample& s : {fairwater128(), fairwater112(), ndv5()})
        cases.emplace_back(s.run.name, s.cluster, s.run);
    for (const MeasuredRun& r : publicRuns())
        cases.emplace_back(r.id, r.cluster, r.run);
    for (const auto& [name, cluster, run] : cases) {
        INFO(name);
        const Evaluation fast = cs::estimate(cluster, run);
        const Evaluation full = evaluate(cluster, run);
        CHECK(fast.events.empty());
        CHECK_FALSE(full.events.empty());
        CHECK(fast.stepTimeS == Approx(full.stepTimeS).epsilon(0.02));
        checkBreakdownAddsUp(fast);
        checkBreakdownAddsUp(full);
        CHECK(fast.memoryGiBPerGpu == full.memoryGiBPerGpu);
    }
}

TEST_CASE("an evaluation without its timeline has the same figures, and no events")
{
    std::vector<std::tuple<std::string, ClusterDesc, RunDesc>> cases;
    for (const Sample& s : {fairwater128(), ndv5(), sample("gb200-16-deepseek-v3.run.json")})
        cases.emplace_back(s.run.name, s.cluster, s.run);
    for (const MeasuredRun& r : publicRuns())
        cases.emplace_back(r.id, r.cluster, r.run);
    for (const auto& [name, cluster, run] : cases) {
        INFO(name);
        const Evaluation full = evaluate(cluster, run);
        const Evaluation figures = evaluate(cluster, run, {nullptr, false});
        CHECK_FALSE(full.events.empty());
        CHECK(figures.events.empty());
        CHECK(figures.stepTimeS == full.stepTimeS);
        const auto parts = full.breakdown.parts(), same = figures.breakdown.parts();
        for (size_t i = 0; i < parts.size(); ++i)
            CHECK(parts[i].seconds == same[i].seconds);
        CHECK(figures.commTotalS.values == full.commTotalS.values);
        CHECK(figures.exposedScaleOutS == full.exposedScaleOutS);
        CHECK(figures.mfu == full.mfu);
        CHECK(figures.memoryGiBPerStage == full.memoryGiBPerStage);
    }
}

TEST_CASE("more bandwidth never slows a step")
{
    for (const Sample& s : {fairwater128(), ndv5()}) {
        INFO(s.run.name);
        for (bool events : {true, false}) {
            const double base = step(s.cluster, s.run, events);
            ClusterDesc nvlink = s.cluster;
            nvlink.scaleUp.GBpsPerGpu *= 2;
            CHECK(step(nvlink, s.run, events) <= base);
            ClusterDesc nic = s.cluster;
            nic.scaleOut.GbpsPerGpu *= 2;
            CHECK(step(nic, s.run, events) < base); // DP crosses the fabric in both
            ClusterDesc slowNic = s.cluster;
            slowNic.scaleOut.GbpsPerGpu /= 4;
            CHECK(step(slowNic, s.run, events) > base);
            // Oversubscription slows only traffic that crosses the boundary beyond what its
            // uplinks carry; these data-parallel rings leave each leaf on a few flows, so it
            // never speeds them up (test_fabric.cpp has the traffic it slows).
            ClusterDesc oversubscribed = s.cluster;
            oversubscribed.scaleOut.topology.oversubscription = {2.0};
            CHECK(step(oversubscribed, s.run, events) >= base);
            ClusterDesc hashed = s.cluster;
            hashed.scaleOut.topology.routing = Routing::Ecmp;
            CHECK(step(hashed, s.run, events) >= base);
        }
    }
}

TEST_CASE("doubling GPUs at constant work per GPU barely moves the step")
{
    const Sample s = sample("ndv5-h100-128-gpt3-175b.run.json");
    ClusterDesc doubled = s.cluster;
    doubled.racks *= 2;
    RunDesc run = s.run;
    run.parallelism.dp *= 2;
    run.batch.global *= 2;
    const double before = step(s.cluster, s.run);
    const double after = step(doubled, run);
    CHECK(after >= before);
    CHECK(after / before < 1.02);
}

TEST_CASE("a 405B model on one node with no model parallelism does not fit")
{
    Sample s = fairwater128();
    ClusterDesc node = s.cluster;
    node.racks = 1;
    node.nodesPerRack = 2;
    RunDesc run = s.run;
    run.parallelism = Parallelism{};
    run.parallelism.dp = 8;
    run.batch = {8, 1};
    const Evaluation e = evaluate(node, run);
    CHECK_FALSE(e.fitsMemory);
    CHECK(e.memoryGiBPerGpu > 1000);
    CHECK(s.cluster.gpu.hbmGiB < e.memoryGiBPerGpu);
}

TEST_CASE("recompute trades memory for time")
{
    const Sample s = fairwater128();
    RunDesc selective = s.run;
    selective.parallelism.recompute = Recompute::of(cs::RecomputeMode::Selective);
    RunDesc full = s.run;
    full.parallelism.recompute = Recompute::of(cs::RecomputeMode::Full);
    const Evaluation none = evaluate(s.cluster, s.run);
    const Evaluation sel = evaluate(s.cluster, selective);
    const Evaluation all = evaluate(s.cluster, full);
    CHECK(none.breakdown.recompute == 0);
    CHECK(sel.breakdown.recompute > 0);
    CHECK(all.breakdown.recompute > sel.breakdown.recompute);
    CHECK(all.stepTimeS > sel.stepTimeS);
    CHECK(sel.stepTimeS > none.stepTimeS);
    CHECK(all.memoryGiBPerGpu < sel.memoryGiBPerGpu);
    CHECK(sel.memoryGiBPerGpu < none.memoryGiBPerGpu);
}

TEST_CASE("gradients are held in the type they are reduced in: FP32 on Megatron-LM's defaults")
{
    const Sample s = fairwater128();
    RunDesc fp32Grads = s.run;
    fp32Grads.extensions.set(kFrameworkKey, "megatron-2021");
    const Evaluation bf16 = evaluate(s.cluster, s.run);
    const Evaluation fp32 = evaluate(s.cluster, fp32Grads);
    const Workload w = buildWorkload(s.cluster, s.run, defaultCalibration());
    REQUIRE(w.gradBytesPerParam == 2);
    for (int st = 0; st < w.p; ++st) {
        double params = 0;
        for (int k = 0; k < w.v; ++k)
            params += w.paramsOfChunk[w.op(st, k)] + w.expertParamsOfChunk[w.op(st, k)];
        INFO("stage " << st);
        CHECK(fp32.memoryGiBPerStage[size_t(st)] - bf16.memoryGiBPerStage[size_t(st)] ==
              Approx(params * 2 / (1 << 30)).epsilon(1e-9));
    }
}

TEST_CASE("the memory per GPU is the sum of its parts, each moved by what it stands for")
{
    const Sample s = fairwater128();
    const auto partsOf = [&](const RunDesc& run) {
        const Evaluation e = evaluate(s.cluster, run);
        INFO("memory " << e.memoryGiBPerGpu);
        CHECK(e.memory.total() == Approx(e.memoryGiBPerGpu).epsilon(1e-12));
        return e.memory;
    };
    const MemoryParts base = partsOf(s.run);
    CHECK(base.weights > 0);
    CHECK(base.gradients == Approx(base.weights)); // both BF16 on Megatron-Core
    CHECK(base.activations > 0);

    RunDesc full = s.run;
    full.parallelism.recompute = Recompute::of(RecomputeMode::Full);
    const MemoryParts recomputed = partsOf(full);
    CHECK(recomputed.activations < base.activations / 4);
    CHECK(recomputed.weights == base.weights);
    CHECK(recomputed.optimizer == base.optimizer);

    RunDesc unsharded = s.run;
    unsharded.parallelism.distributedOptimizer = false;
    const MemoryParts replicated = partsOf(unsharded);
    const Workload w = buildWorkload(s.cluster, s.run, defaultCalibration());
    CHECK(replicated.optimizer == Approx(base.optimizer * w.d * w.c));
    CHECK(replicated.activations == base.activations);

    RunDesc sharded = s.run;
    sharded.parallelism.fsdp = true;
    const MemoryParts fsdp = partsOf(sharded);
    CHECK(fsdp.gradients == Approx(base.gradients / (w.d * w.c)));
    CHECK(fsdp.weights < base.weights / 4);
}

TEST_CASE("FSDP gathers and reduces every micro-batch's layers, and counts it as DP traffic")
{
    Sample s = ndv5();
    const Evaluation once = evaluate(s.cluster, s.run);
    RunDesc sharded = s.run;
    sharded.parallelism.fsdp = true;
    const Evaluation fsdp = evaluate(s.cluster, sharded);
    const Workload w = buildWorkload(s.cluster, sharded, defaultCalibration());
    INFO("DP traffic once a step " << once.commTotalS[Dim::DP] << " s, FSDP "
                                   << fsdp.commTotalS[Dim::DP] << " s, " << w.m
                                   << " micro-batches");
    REQUIRE(w.m > 4);
    // Two gathers and a reduction per micro-batch, against one of each a step.
    CHECK(fsdp.commTotalS[Dim::DP] > 0.5 * w.m * once.commTotalS[Dim::DP]);
    checkBreakdownAddsUp(fsdp);

    // On a fabric too slow to hide it, both methods wait for the same gathers.
    s.cluster.scaleOut.GbpsPerGpu /= 50;
    const Evaluation slow = evaluate(s.cluster, sharded);
    const Evaluation bound = cs::estimate(s.cluster, sharded);
    INFO("exposed DP: simulation " << slow.breakdown.exposed[Dim::DP] << " s, closed form "
                                   << bound.breakdown.exposed[Dim::DP] << " s");
    CHECK(slow.breakdown.exposed[Dim::DP] > 0.1 * slow.stepTimeS);
    CHECK(bound.breakdown.exposed[Dim::DP] == Approx(slow.breakdown.exposed[Dim::DP]).epsilon(0.1));
}

TEST_CASE("the DP collectives' HBM traffic slows the compute they hide under")
{
    const Sample s = fairwater128();
    const Calibration& cal = defaultCalibration();
    const double memory = s.cluster.gpu.hbmTBps * 1e12 * cal.memoryEfficiency;
    struct Case {
        const char* name;
        bool distributedOptimizer, fsdp;
        double hbmPerGradByte, hbmPerGatherByte; // once a step: reduce-scatter 3, all-gather 2
    };
    const Case cases[] = {
        {"distributed optimizer", true, false, 3, 2},
        {"all-reduce", false, false, 3 + 2, 0},
        {"FSDP: per op, nothing once a step", true, true, 0, 0},
    };
    RunDesc once = s.run;
    once.parallelism.distributedOptimizer = true;
    once.parallelism.fsdp = false;
    const Workload unsharded = buildWorkload(s.cluster, once, cal);
    for (const Case& c : cases) {
        INFO(c.name);
        RunDesc run = s.run;
        run.parallelism.distributedOptimizer = c.distributedOptimizer;
        run.parallelism.fsdp = c.fsdp;
        const Workload w = buildWorkload(s.cluster, run, cal);
        const int n = w.dp().group.size();
        REQUIRE(n > 1);
        const double share = double(n - 1) / n;
        for (int stage = 0; stage < w.p; ++stage) {
            double params = 0;
            for (int k = 0; k < w.v; ++k)
                params += w.paramsOfChunk[w.op(stage, k)];
            const double bytes = params * share *
                                 (c.hbmPerGradByte * w.gradBytesPerParam +
                                  c.hbmPerGatherByte * w.gatherBytesPerParam);
            CHECK(w.dpHbmS[size_t(stage)] == Approx(bytes / memory));
        }
        // FSDP's gathers and reductions run under every op: the op computes longer by their
        // HBM traffic.
        for (size_t i = 0; c.fsdp && i < w.forward.size(); ++i) {
            const double gather = 2 * w.paramsOfChunk[i] * w.gatherBytesPerParam * share;
            const double reduce = 3 * w.paramsOfChunk[i] * w.gradBytesPerParam * share;
            CHECK(w.forward[i].compute - unsharded.forward[i].compute == Approx(gather / memory));
            CHECK(w.backward[i].compute - unsharded.backward[i].compute ==
                  Approx((gather + reduce) / memory));
        }
    }
}

TEST_CASE("NVLink SHARP speeds TP's all-reduces where the run turns it on and the GPUs have it")
{
    Sample s = ndv5(); // H100: NVLink 4, third-generation NVSwitch
    s.run.parallelism.tp = 8;
    s.run.parallelism.dp /= 2;
    s.run.parallelism.sequenceParallel = false; // all-reduces, not gathers and scatters
    const auto tpTraffic = [&](bool nvls) {
        RunDesc run = s.run;
        run.extensions.set(kNvlsKey, nvls);
        return evaluate(s.cluster, run).commTotalS[Dim::TP];
    };
    const double ring = tpTraffic(false);
    REQUIRE(ring > 0);
    CHECK(tpTraffic(true) < 0.85 * ring);
    CHECK_FALSE(nvlsOf(s.run, s.cluster.gpu, frameworkOf(s.run, s.cluster.gpu)));

    s.run.parallelism.sequenceParallel = true; // NCCL keeps rings for gathers and scatters
    CHECK(tpTraffic(true) == Approx(tpTraffic(false)));

    s.run.parallelism.sequenceParallel = false;
    s.cluster.gpu.nvlinkGBps = 600; // NVLink 3: the NVSwitches do not reduce
    CHECK(tpTraffic(true) == Approx(tpTraffic(false)));
}

TEST_CASE("FP8 and NVFP4 keep the inputs of their GEMMs narrow for the backward pass")
{
    const Sample s = fairwater128();
    std::map<Precision, Evaluation> e;
    for (Precision p : {Precision::BF16, Precision::FP8, Precision::NVFP4}) {
        RunDesc run = s.run;
        run.precision = p;
        e.emplace(p, evaluate(s.cluster, run));
    }
    CHECK(e.at(Precision::FP8).memoryGiBPerGpu < e.at(Precision::BF16).memoryGiBPerGpu);
    CHECK(e.at(Precision::NVFP4).memoryGiBPerGpu < e.at(Precision::FP8).memoryGiBPerGpu);
    // Only what is kept for backward shrinks: with every layer recomputed whole there is
    // little left to shrink.
    std::map<Precision, double> full;
    for (Precision p : {Precision::BF16, Precision::FP8}) {
        RunDesc run = s.run;
        run.precision = p;
        run.parallelism.recompute = Recompute::of(RecomputeMode::Full);
        full[p] = evaluate(s.cluster, run).memoryGiBPerGpu;
    }
    CHECK(full[Precision::BF16] - full[Precision::FP8] <
          0.1 * (e.at(Precision::BF16).memoryGiBPerGpu - e.at(Precision::FP8).memoryGiBPerGpu));
}

TEST_CASE("a GEMM input is written once per layout its format cannot serve both ways")
{
    // {gpu, precision, x-fp8_block_scaling, bytes written per element}: Hopper's FP8 a copy and
    // its transpose; Blackwell's per-tensor FP8 one copy; MXFP8 two with a scale per 32;
    // NVFP4 two with a scale per 16; BF16 casts nothing. Block scaling needs Blackwell.
    struct Case {
        const char* gpu;
        Precision precision;
        std::optional<bool> blocks;
        double bytes;
    };
    const Case cases[] = {
        {"H100", Precision::FP8, {}, 2},
        {"H100", Precision::FP8, true, 2},
        {"B200", Precision::FP8, {}, 1},
        {"GB200", Precision::FP8, false, 1},
        {"GB300", Precision::FP8, true, 2 * (1 + 1.0 / 32)},
        {"GB200", Precision::NVFP4, {}, 2 * (0.5 + 1.0 / 16)},
        {"GB200", Precision::BF16, true, 0},
        {"A100", Precision::BF16, {}, 0},
    };
    for (const Case& c : cases) {
        INFO(c.gpu << " " << toString(c.precision) << " " << c.blocks.value_or(false));
        const GpuSpec gpu = *findCatalogGpu(c.gpu);
        RunDesc run;
        run.precision = c.precision;
        run.extensions.set(kFrameworkKey, "megatron-core-2025");
        if (c.blocks)
            run.extensions.set(kFp8BlockScalingKey, *c.blocks);
        CHECK(quantizedBytesOf(run, gpu, frameworkOf(run, gpu)) == Approx(c.bytes));
    }
}

TEST_CASE("MXFP8 costs its second copies: slower than per-tensor FP8 on the same layout, and the "
          "2026 full-iteration recipes run it unless the run says")
{
    const Sample s = fairwater128();
    RunDesc run = s.run;
    run.precision = Precision::FP8;
    const GpuSpec& gpu = s.cluster.gpu;
    run.extensions.set(kFp8BlockScalingKey, false);
    const double perTensor = evaluate(s.cluster, run).stepTimeS;
    run.extensions.set(kFp8BlockScalingKey, true);
    const double blocks = evaluate(s.cluster, run).stepTimeS;
    CHECK(blocks > perTensor * 1.002);
    CHECK(blocks < perTensor * 1.05);
    run.extensions.erase(kFp8BlockScalingKey);
    run.extensions.set(kFrameworkKey, "megatron-core-2026");
    CHECK(fp8BlockScalingOf(run, gpu, frameworkOf(run, gpu)));
    run.extensions.set(kFrameworkKey, "megatron-core-2025");
    CHECK_FALSE(fp8BlockScalingOf(run, gpu, frameworkOf(run, gpu)));
}

TEST_CASE("TP collectives hide under the GEMMs where the recipe overlaps them: by default all but "
          "NVFP4's, never on Megatron-LM's defaults")
{
    struct Case {
        Precision precision;
        const char* framework;
        std::optional<bool> overlap; // x-tp_comm_overlap, when the run gives it
        bool expected;
    };
    const Case cases[] = {
        {Precision::FP8, "megatron-core-2025", {}, true},
        {Precision::BF16, "megatron-core-2026", {}, true},
        {Precision::NVFP4, "megatron-core-2025", {}, false},
        {Precision::NVFP4, "megatron-core-2026", true, true},
        {Precision::FP8, "megatron-core-2025", false, false},
        {Precision::BF16, "megatron-2021", true, false},
    };
    const GpuSpec gpu = *findCatalogGpu("GB200");
    for (const Case& c : cases) {
        INFO(toString(c.precision) << " " << c.framework << " " << c.overlap.value_or(false));
        RunDesc run;
        run.precision = c.precision;
        run.extensions.set(kFrameworkKey, c.framework);
        if (c.overlap)
            run.extensions.set(kTpCommOverlapKey, *c.overlap);
        CHECK(tpCommOverlapOf(run, gpu, frameworkOf(run, gpu)) == c.expected);
    }

    const Sample s = fairwater128();
    REQUIRE(s.run.parallelism.tp > 1);
    RunDesc run = s.run;
    run.extensions.set(kTpCommOverlapKey, true);
    const Evaluation overlapped = evaluate(s.cluster, run);
    run.extensions.set(kTpCommOverlapKey, false);
    const Evaluation exposed = evaluate(s.cluster, run);
    const double tp = exposed.commTotalS[Dim::TP];
    REQUIRE(tp > 0);
    CHECK(overlapped.commTotalS[Dim::TP] == Approx(tp));
    CHECK(exposed.commExposedS[Dim::TP] == Approx(tp));
    CHECK(overlapped.commExposedS[Dim::TP] ==
          Approx((1 - defaultCalibration().tpOverlap) * tp).epsilon(0.01));
    CHECK(exposed.stepTimeS > overlapped.stepTimeS);
}

TEST_CASE("published layouts fit their GPUs; one fits only by offloading activations as its "
          "recipe does",
          "[reference]")
{
    std::vector<MeasuredRun> runs = publicRuns();
    for (MeasuredRun& r : publicRuns(kMoeRuns))
        runs.push_back(std::move(r));
    // id, fits: MLPerf GPT-3 on H100 with micro-batch 2, Llama 3.1 405B FP8 on GB300 with no
    // recompute, Qwen3-30B on one GB300 node with micro-batch 8, Llama 3 70B FP8 on H100; and
    // Llama 3 70B on 64 GB300 with no model parallelism, which its recipe runs by offloading 20
    // layers' activations to the host (Megatron-Bridge LLAMA3_70B_GB300_FP8_CS_BASE_CONFIG).
    const std::vector<std::pair<std::string, int>> expected{
        {"mlperf_v4.1_gpt3_Oracle_1536xBM.GPU.H100.8", 0},
        {"nemo_bridge_25.11_DGX-GB300_LLAMA3.1_405B_256gpu_FP8-CS", 0},
        {"mbridge_2604_qwen3-30b_gb300_8_mxfp8", 0},
        {"nemo_bridge_25.11_DGX-H100_LLAMA3_70B_64gpu_FP8-CS", 0},
        {"nemo_bridge_25.11_DGX-GB300_LLAMA3_70B_64gpu_FP8-CS", 20},
    };
    for (const auto& [id, offloaded] : expected) {
        INFO(id);
        const auto it = std::find_if(runs.begin(), runs.end(),
                                     [&](const MeasuredRun& r) { return r.id == id; });
        REQUIRE(it != runs.end());
        CHECK(activationOffloadLayersOf(it->run) == offloaded);
        CHECK(evaluate(it->cluster, it->run).fitsMemory);
        RunDesc kept = it->run;
        kept.extensions.erase(kActivationOffloadKey);
        CHECK(evaluate(it->cluster, kept).fitsMemory == (offloaded == 0));
    }
}

TEST_CASE("an offloaded layer's copy waits only for what outlasts its window of layers",
          "[offload]")
{
    struct Case {
        double copyS, layerS;
        int layers, offloaded;
        double waitS;
    };
    // Windows of layers / offloaded layers, the remainder one more each on the first windows,
    // the first one layer short (it starts after the layer it copies).
    const Case cases[] = {
        {26.3, 10.8, 80, 20, 0},                      // 3 and then 4 layers of 10.8 hide 26.3
        {50, 10, 80, 20, (50 - 30) + 19 * (50 - 40)}, // every window too short
        {5, 1, 10, 3, 3 * (5 - 3)}, // windows 4, 3, 3: the first 3 after its layer
        {2.5, 1, 7, 3, 3 * 0.5},    // windows 3, 2, 2: 2, 2, 2
        {3, 1, 8, 7, 7 * 2},        // one layer each
        {3, 1, 8, 0, 0},            // nothing offloaded
    };
    for (const Case& c : cases) {
        INFO(c.layers << " layers, " << c.offloaded << " offloaded");
        CHECK(offloadWaitS(c.copyS, c.layerS, c.layers, c.offloaded) == Approx(c.waitS));
    }
}

TEST_CASE("offloaded activations leave the GPU; only copies longer than their window of layers "
          "cost time")
{
    const auto runs = publicRuns();
    const auto it = std::find_if(runs.begin(), runs.end(), [](const MeasuredRun& r) {
        return r.id == "nemo_bridge_25.11_DGX-GB300_LLAMA3_70B_64gpu_FP8-CS";
    });
    REQUIRE(it != runs.end());
    const int layers = it->run.model.layers;
    const auto offloading = [&](const GpuSpec& gpu, const nlohmann::json& value) {
        ClusterDesc cluster = it->cluster;
        cluster.gpu = gpu;
        RunDesc run = it->run;
        run.extensions.set(kActivationOffloadKey, value);
        return evaluate(cluster, run);
    };
    const GpuSpec& gb300 = *findCatalogGpu("GB300");
    const Evaluation none = offloading(gb300, 0);
    const Evaluation twenty = offloading(gb300, 20);
    // All but the layer in transit leave the GPU.
    CHECK(none.memory.activations - twenty.memory.activations ==
          Approx(19.0 / layers * none.memory.activations));
    CHECK(twenty.memory.weights == none.memory.weights);
    CHECK(twenty.stepTimeS >= none.stepTimeS);
    // At most all layers but one; a value that is no whole number from 0 offloads nothing.
    CHECK(offloading(gb300, 10 * layers).memory.activations ==
          Approx(offloading(gb300, layers - 1).memory.activations));
    CHECK(offloading(gb300, layers - 1).memory.activations ==
          Approx(2.0 / layers * none.memory.activations));
    for (const nlohmann::json& ignored :
         {nlohmann::json(-3), nlohmann::json("20"), nlohmann::json(20.5), nlohmann::json(true)})
        CHECK(offloading(gb300, ignored).stepTimeS == none.stepTimeS);
    // Over a Grace superchip's NVLink-C2C each copy hides under its window of four layers; over
    // PCIe (B200 boards) it outlasts them.
    const GpuSpec& b200 = *findCatalogGpu("B200");
    const double pcieCost = offloading(b200, 20).stepTimeS - offloading(b200, 0).stepTimeS;
    const double c2cCost = twenty.stepTimeS - none.stepTimeS;
    INFO("offloading 20 layers costs " << c2cCost << " s on GB300, " << pcieCost << " s on B200");
    CHECK(c2cCost == 0);
    CHECK(pcieCost > 0.1);
    checkBreakdownAddsUp(twenty);
}

TEST_CASE("events are well formed: ordered, one compute op at a time per stage, PP order kept, "
          "hidden collectives start with their op's compute")
{
    for (const Sample& s : {fairwater128(), ndv5(), sample("gb200-16-deepseek-v3.run.json")}) {
        INFO(s.run.name);
        const Evaluation e = evaluate(s.cluster, s.run);
        std::map<int, double> computeStart; // by op
        for (const Event& ev : e.events)
            if (ev.kind == EventKind::Forward || ev.kind == EventKind::Backward)
                computeStart[ev.op] = ev.start;
        std::map<Dim, int> hiddenByDim;
        for (const Event& ev : e.events) {
            if (!ev.isComm() || ev.exposed || ev.dim == Dim::DP || ev.dim == Dim::PP)
                continue;
            ++hiddenByDim[ev.dim];
            REQUIRE(computeStart.count(ev.op) == 1);
            CHECK(ev.start == computeStart.at(ev.op));
        }
        // TP is partly hidden where the run overlaps it (not Fairwater's NVFP4); the expert
        // all-to-all of the MoE sample (MXFP8 on GB200) wholly.
        CHECK((hiddenByDim[Dim::TP] > 0) ==
              (s.run.parallelism.tp > 1 &&
               tpCommOverlapOf(s.run, s.cluster.gpu, frameworkOf(s.run, s.cluster.gpu))));
        CHECK((hiddenByDim[Dim::EP] > 0) == s.run.model.moe.has_value());
        std::map<int, std::vector<const Event*>> computeByStage;
        // (forward?, micro-batch, virtual stage) -> [start, end] of its compute segments
        std::map<std::tuple<bool, int, int>, std::pair<double, double>> ops;
        const int p = s.run.parallelism.pp;
        for (const Event& ev : e.events) {
            CHECK(ev.end >= ev.start);
            CHECK(ev.start >= 0);
            CHECK(ev.end <= e.stepTimeS + 1e-12);
            const bool onStream =
                ev.kind == EventKind::Forward || ev.kind == EventKind::Backward ||
                ev.kind == EventKind::Recompute ||
                (ev.isComm() && ev.exposed &&
                 (ev.dim == cs::Dim::TP || ev.dim == cs::Dim::CP || ev.dim == cs::Dim::EP));
            if (!onStream)
                continue;
            computeByStage[ev.stage].push_back(&ev);
            const bool forward = ev.kind == EventKind::Forward;
            if (forward || ev.kind == EventKind::Backward) {
                auto& span = ops[{forward, ev.microBatch, ev.chunk * p + ev.stage}];
                span = {ev.start, ev.end};
            }
        }
        for (auto& [stage, events] : computeByStage) {
            std::sort(events.begin(), events.end(),
                      [](const Event* a, const Event* b) { return a->start < b->start; });
            for (size_t i = 1; i < events.size(); ++i)
                CHECK(events[i]->start >= events[i - 1]->end - 1e-12);
        }
        for (const auto& [key, span] : ops) {
            const auto [forward, mb, vs] = key;
            if (forward && vs > 0)
                CHECK(span.first >= ops.at({true, mb, vs - 1}).second);
            if (!forward && vs + 1 < p * s.run.parallelism.vp)
                CHECK(span.first >= ops.at({false, mb, vs + 1}).second);
        }
    }
}

TEST_CASE("evaluate and trace on the command line")
{
    const std::string cluster = samplePath("fairwater-gb200-128.cluster.json");
    const std::string run = samplePath("fairwater-gb200-128-llama405b.run.json");
    std::ostringstream out, err;
    REQUIRE(cli::runEvaluate({cluster, run, "--json"}, {out, err}) == cli::kExitOk);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    double sum = 0;
    for (const auto& [name, seconds] : j.at("breakdown").items())
        sum += seconds.get<double>();
    CHECK(sum == Approx(j.at("step_time_s").get<double>()));
    for (const char* key : {"comm_total_s", "exposed_scale_out_s", "mfu", "tokens_per_s",
                            "memory_gib_per_gpu", "fits_memory", "time_to_train_s", "error"})
        CHECK(j.contains(key));
    CHECK(j.at("comm_total_s").size() == 4);

    std::ostringstream out2, err2;
    CHECK(cli::runEvaluate({cluster}, {out2, err2}) == cli::kExitUsage);
    CHECK(cli::runEvaluate({cluster, cluster}, {out2, err2}) == cli::kExitBadInput);

    const std::string trace =
        (std::filesystem::temp_directory_path() / "clusterscope-trace-test.json").string();
    std::ostringstream out3, err3;
    REQUIRE(cli::runTrace({cluster, run, "-o", trace}, {out3, err3}) == cli::kExitOk);
    std::ifstream in(trace);
    const nlohmann::json t = nlohmann::json::parse(in);
    std::remove(trace.c_str());
    int complete = 0, names = 0;
    for (const auto& ev : t.at("traceEvents")) {
        if (ev.at("ph") == "X") {
            ++complete;
            CHECK(ev.at("dur").get<double>() >= 0);
            CHECK(ev.contains("ts"));
            CHECK(ev.contains("tid"));
        } else if (ev.at("name") == "thread_name" && ev.at("args").at("name") == "DP fabric") {
            ++names;
        }
    }
    CHECK(complete > 1000);
    CHECK(names == 8);
}

TEST_CASE("validate-runs prints every row and the MAPE, and bad rows exit 1")
{
    std::ostringstream out, err;
    const std::string publicFile =
        std::string(CS_SHARED_DIR) + "/reference/validation/public.jsonl";
    // The public rows with one broken copy of the 405B row on 16 x 8 virtual stages: only 100 of
    // its layers, which leaves stages without one even with the embedding and the loss on two.
    std::ifstream in(publicFile);
    std::string text, line, broken;
    while (std::getline(in, line)) {
        text += line + "\n";
        if (broken.empty() && line.find("\"layers\":126") != std::string::npos &&
            line.find("\"pp\":16,\"vp\":8") != std::string::npos) {
            nlohmann::json row = nlohmann::json::parse(line);
            row["id"] = "broken";
            row["model"]["layers"] = 100;
            broken = row.dump();
        }
    }
    REQUIRE_FALSE(broken.empty());
    const std::string file =
        (std::filesystem::temp_directory_path() / "cs-validate-runs.jsonl").string();
    std::ofstream(file) << text << broken << "\n";
    REQUIRE(cli::runValidateRuns({file, "--json"}, {out, err}) == cli::kExitBadInput);
    CHECK(err.str().find("cs-validate-runs.jsonl:57: /model/layers: layers = 100 and the "
                         "embedding and the loss") != std::string::npos);
    CHECK(err.str().find("(row \"broken\")") != std::string::npos);
    std::filesystem::remove(file);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    CHECK(j.at("rows").size() == 56);
    double sum = 0;
    for (const auto& r : j.at("rows")) {
        CHECK(r.at("error").get<double>() ==
              Approx(r.at("predicted_s").get<double>() / r.at("measured_s").get<double>() - 1));
        sum += std::abs(r.at("error").get<double>());
    }
    CHECK(j.at("mape").get<double>() == Approx(sum / 56));
    std::ostringstream out2, err2;
    CHECK(cli::runValidateRuns({}, {out2, err2}) == cli::kExitUsage);
    CHECK(cli::runValidateRuns({file, "--bogus"}, {out2, err2}) == cli::kExitUsage);
}

TEST_CASE("126 layers on 16 x 8 virtual stages: the embedding and the loss take one each")
{
    // Llama 3.1 405B's NVFP4 recipes on GB200 and B200 (Megatron-Core's
    // account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split).
    for (const MeasuredRun& r : publicRuns()) {
        if (r.run.model.layers != 126 || r.run.parallelism.pp * r.run.parallelism.vp != 128)
            continue;
        INFO(r.id);
        const std::vector<int> split = layersPerVirtualStage(r.cluster, r.run);
        REQUIRE(split.size() == 128);
        CHECK(split.front() == 0);
        CHECK(split.back() == 0);
        CHECK(std::count(split.begin(), split.end(), 1) == 126);
        CHECK(evaluate(r.cluster, r.run).stepTimeS > 0);
        return;
    }
    FAIL("no public row runs 126 layers on 128 virtual stages");
}

TEST_CASE("layers that divide evenly among the virtual stages are split evenly, the head on top")
{
    // Megatron-Core's default, as gpt-oss's recipes run it: 36 layers on 4 stages, 9 each, the
    // last stage the heaviest with the LM head and the loss.
    for (MeasuredRun& r : publicRuns(kMoeRuns)) {
        if (r.run.model.name != "gpt-oss-120b" || r.run.parallelism.pp != 4)
            continue;
        INFO(r.id);
        CHECK(layersPerVirtualStage(r.cluster, r.run) == std::vector<int>{9, 9, 9, 9});
        const Workload w = buildWorkload(r.cluster, r.run, defaultCalibration());
        const auto stageWork = [&](int s) {
            return w.forward[w.op(s, 0)].total() + w.backward[w.op(s, 0)].total();
        };
        CHECK(stageWork(3) > 1.1 * stageWork(1));
        // One layer fewer, and the split evens the stages out by FLOPs instead.
        r.run.model.layers = 35;
        CHECK(layersPerVirtualStage(r.cluster, r.run).back() < 9);
        return;
    }
    FAIL("no measured run of gpt-oss-120b on 4 pipeline stages");
}

TEST_CASE("one virtual stage more than layers and the head: the embedding's stage holds no layer")
{
    Sample s = ndv5();
    s.run.model.layers = 14; // 16 virtual stages: embedding, 14 layers, head
    s.run.parallelism.pp = 8;
    s.run.parallelism.vp = 2;
    const std::vector<int> split = layersPerVirtualStage(s.cluster, s.run);
    REQUIRE(split.size() == 16);
    CHECK(split.front() == 0);
    CHECK(split.back() == 0);
    Diagnostics diags;
    validateClusterRun(s.cluster, s.run, diags);
    CHECK(diags.empty());
    s.run.model.layers = 13; // one stage too many even with the embedding and the head on two
    validateClusterRun(s.cluster, s.run, diags);
    CHECK(diags.contains("layers = 13 and the embedding and the loss"));
}
