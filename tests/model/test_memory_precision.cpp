// Memory per GPU and what each precision keeps and writes: gradients in the type they are
// reduced in, narrow GEMM inputs kept for the backward pass, MXFP8's second copies.

#include "costmodeltests.h"

using namespace cs;
using namespace costmodeltests;

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
