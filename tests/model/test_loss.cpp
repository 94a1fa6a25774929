// The loss over the vocabulary (model/cost/loss.h): Megatron-Core's own, over FP32 copies of the
// logits, or Transformer Engine's fused cross-entropy on the BF16 logits in place.

#include <catch2/catch.hpp>

#include "calibration.h"
#include "extensions.h"
#include "loss.h"
#include "samplefiles.h"
#include "workload.h"

using namespace cs;

TEST_CASE("the loss moves and keeps its bytes per logit", "[loss]")
{
    // Megatron-Core's: three FP32 passes each way, the FP32 copy and softmax held. Transformer
    // Engine's: forward reads the BF16 logits twice and writes their gradient once, backward
    // reads and writes it; the logits themselves are what it holds.
    const auto [te, forward, backward, kept] = GENERATE(table<bool, double, double, double>({
        {false, 12, 12, 8},
        {true, 6, 4, 2},
    }));
    INFO((te ? "Transformer Engine" : "Megatron-Core"));
    const LossBytes bytes = lossBytesPerLogit(te);
    CHECK(bytes.pass.forward == forward);
    CHECK(bytes.pass.backward == backward);
    CHECK(bytes.kept == kept);
}

namespace {

struct StepParts {
    double forward = 0, backward = 0, lastStageGiB = 0;
};
StepParts partsOf(const ClusterDesc& cluster, const RunDesc& run)
{
    const Workload w = buildWorkload(cluster, run, defaultCalibration());
    StepParts s;
    for (const Parts& p : w.forward)
        s.forward += p.compute;
    for (const Parts& p : w.backward)
        s.backward += p.compute;
    s.lastStageGiB = w.memoryGiB.back();
    return s;
}

} // namespace

TEST_CASE("Transformer Engine's cross-entropy costs the last stage less time and memory", "[loss]")
{
    const LoadedFile f = loadSample("fairwater-gb200-128-llama405b.run.json");
    const RunDesc& own = *f.run;
    REQUIRE_FALSE(teCrossEntropyOf(own, f.cluster->gpu, frameworkOf(own, f.cluster->gpu)));
    RunDesc te = own;
    te.extensions.set(kTeCrossEntropyKey, true);
    const StepParts before = partsOf(*f.cluster, own);
    const StepParts after = partsOf(*f.cluster, te);
    // One micro-batch's logits on a GPU of the last stage: its tokens (split by context
    // parallelism) times the vocabulary (split by tensor parallelism).
    const Parallelism& par = own.parallelism;
    const double logits = double(own.batch.micro) * own.model.seqLen / std::max(1, par.cp) *
                          own.model.vocab / std::max(1, par.tp);
    const double rate = f.cluster->gpu.hbmTBps * 1e12 * defaultCalibration().memoryEfficiency;
    CHECK(before.forward - after.forward == Approx((12 - 6) * logits / rate).epsilon(1e-6));
    CHECK(before.backward - after.backward == Approx((12 - 4) * logits / rate).epsilon(1e-6));
    CHECK(before.lastStageGiB - after.lastStageGiB ==
          Approx((8 - 2) * logits / double(1 << 30)).epsilon(1e-6));
}
