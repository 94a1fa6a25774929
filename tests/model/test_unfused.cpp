// Work some models run outside the fused kernels (model/cost/unfused.h): gpt-oss's GLU clamp and
// its rotary embeddings, in HBM bytes and in the layer's time.

#include <catch2/catch.hpp>

#include "calibration.h"
#include "costmodel.h"
#include "extensions.h"
#include "samplefiles.h"
#include "unfused.h"
#include "workload.h"

using namespace cs;

TEST_CASE("the GLU clamp and the unfused RoPE move their bytes per element", "[unfused]")
{
    // Element accesses counted from the PyTorch ops each runs (unfused.h), BF16 2 bytes, a
    // comparison's flag 1 byte.
    const auto [elements, clampForward, clampBackward, ropeForward, ropeBackward] =
        GENERATE(table<double, double, double, double, double>({
            {1, 2 * 4, 15, 2 * 10, 2 * 13},
            {1000, 8000, 15000, 20000, 26000},
            {0, 0, 0, 0, 0},
        }));
    INFO(elements << " elements");
    const PassBytes clamp = gluClampBytes(elements);
    CHECK(clamp.forward == Approx(clampForward));
    CHECK(clamp.backward == Approx(clampBackward));
    const PassBytes rope = unfusedRopeBytes(elements);
    CHECK(rope.forward == Approx(ropeForward));
    CHECK(rope.backward == Approx(ropeBackward));
}

namespace {

// Forward and backward compute of a step's ops, summed.
struct ComputeSeconds {
    double forward = 0, backward = 0;
};
ComputeSeconds computeOf(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal)
{
    const Workload w = buildWorkload(cluster, run, cal);
    ComputeSeconds s;
    for (const Parts& p : w.forward)
        s.forward += p.compute;
    for (const Parts& p : w.backward)
        s.backward += p.compute;
    return s;
}

} // namespace

TEST_CASE("the GLU clamp costs its bytes on every expert layer, unless the MLP is fused",
          "[unfused][moe]")
{
    const LoadedFile f = loadSample("gb200-16-deepseek-v3.run.json");
    RunDesc run = *f.run;
    run.precision = Precision::BF16; // launched layer by layer: no fused expert MLP
    Calibration gpuBound = defaultCalibration();
    gpuBound.moeLayerHostUs = gpuBound.expertHostUs = gpuBound.a2aOverlapHostUs = 0;
    RunDesc clamped = run;
    clamped.extensions.set(kGluClampKey, true);
    const ComputeSeconds off = computeOf(*f.cluster, run, gpuBound);
    const ComputeSeconds on = computeOf(*f.cluster, clamped, gpuBound);
    // Every token's top-k copies reach a GLU input 2 f wide on the GPUs of its experts
    // (dropless, balanced: the busiest GPU takes the mean).
    const ModelShape& m = run.model;
    const double elements =
        double(run.batch.micro) * m.seqLen * m.moe->topK * 2.0 * m.moe->ffnHidden;
    const double rate = f.cluster->gpu.hbmTBps * 1e12 * gpuBound.memoryEfficiency;
    const int moeLayers = m.layers - m.moe->denseLayers + m.mtpLayers;
    const PassBytes bytes = gluClampBytes(elements);
    CHECK(on.forward - off.forward == Approx(moeLayers * bytes.forward / rate).epsilon(1e-6));
    CHECK(on.backward - off.backward == Approx(moeLayers * bytes.backward / rate).epsilon(1e-6));
    // The full-iteration MXFP8 recipe's fused expert MLP clamps inside.
    RunDesc fused = *f.run;
    REQUIRE(fused.precision == Precision::FP8);
    const double fusedBefore = evaluate(*f.cluster, fused).stepTimeS;
    fused.extensions.set(kGluClampKey, true);
    CHECK(evaluate(*f.cluster, fused).stepTimeS == fusedBefore);
}

TEST_CASE("unfused rotary embeddings cost their bytes on every layer, fused MLP or not",
          "[unfused]")
{
    const LoadedFile f = loadSample("fairwater-gb200-128-llama405b.run.json");
    const Calibration& cal = defaultCalibration();
    RunDesc unfused = *f.run;
    unfused.extensions.set(kUnfusedRopeKey, true);
    const ComputeSeconds off = computeOf(*f.cluster, *f.run, cal);
    const ComputeSeconds on = computeOf(*f.cluster, unfused, cal);
    CHECK(on.forward > off.forward);
    CHECK(on.backward > off.backward);
    // Backward moves 26 bytes an element to forward's 20.
    CHECK((on.backward - off.backward) / (on.forward - off.forward) == Approx(26.0 / 20));
    // Off unless the run says so.
    RunDesc said = *f.run;
    said.extensions.set(kUnfusedRopeKey, false);
    CHECK(evaluate(*f.cluster, said).stepTimeS == evaluate(*f.cluster, *f.run).stepTimeS);
}
