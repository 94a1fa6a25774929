// Communication the step hides or pays: FSDP's gathers and reductions, the DP collectives'
// HBM traffic under compute, NVLink SHARP, TP collectives under their GEMMs.

#include "costmodeltests.h"

using namespace cs;
using namespace costmodeltests;

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

TEST_CASE("gradients reduced once the backward pass is done expose their reduction, bucket by "
          "bucket it hides under the backward pass")
{
    const Sample s = fairwater128();
    CHECK(overlapGradReduceOf(s.run, s.cluster.gpu, frameworkOf(s.run, s.cluster.gpu)));
    RunDesc after = s.run;
    after.extensions.set(kOverlapGradReduceKey, false);
    const Evaluation under = evaluate(s.cluster, s.run);
    const Evaluation once = evaluate(s.cluster, after);
    // The same bytes, in BF16 either way (only Megatron-LM's 2021 defaults reduce FP32, twice
    // as many): within what the critical stage's choice moves them, as its stages hold 15 or 16
    // layers with the embedding or the head.
    CHECK(once.commTotalS[Dim::DP] == Approx(under.commTotalS[Dim::DP]).epsilon(0.1));
    CHECK(once.commExposedS[Dim::DP] > 2 * under.commExposedS[Dim::DP]);
    CHECK(once.stepTimeS > under.stepTimeS);
    checkBreakdownAddsUp(once);
    // The closed form tells the same.
    CHECK(estimate(s.cluster, after).stepTimeS > estimate(s.cluster, s.run).stepTimeS);
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
