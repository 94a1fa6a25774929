// Flash attention's time (model/cost/attention.h): its matmuls on the tensor cores and one
// exponential a score on the special function units, the slower of the two setting the time.

#include <catch2/catch.hpp>

#include <string>

#include "attention.h"
#include "description.h"

using namespace cs;

namespace {

// One query's scores against 1,000 keys: 1,000 scores, 2 (d + d) FLOPs each.
constexpr double kScores = 1000;
double flopsOf(double headDim)
{
    return 2 * (headDim + headDim) * kScores;
}

} // namespace

TEST_CASE("attention is bound by its matmuls or by its exponentials", "[attention]")
{
    // Rates in units of the GPU's BF16 peak: the exponentials' rate is the peak over the
    // catalog's FLOPs per exponential.
    const auto [gpu, headDim, forwardFlopRatio, backwardFlopRatio] =
        GENERATE(table<std::string, double, double, double>({
            // Hopper: 4,096 FLOPs a clock an SM, 16 exponentials: 256 FLOPs per exponential.
            {"H100", 128, 1, 1}, // 512 FLOPs a score: the matmuls bind
            {"H100", 64, 1, 1},  // 256: a tie
            {"A100", 64, 1, 1},  // 128 FLOPs per exponential: the matmuls bind
            {"B200", 128, 1, 1}, // 512 FLOPs per exponential: a tie at 128
            {"B200", 64, 2, 1},  // forward waits on its exponentials; backward's 2.5x FLOPs bind
            {"GB200", 32, 4, 1.6},
            {"GB300", 64, 1, 1}, // Blackwell Ultra's doubled exponentials: a tie again
        }));
    INFO(gpu << ", head dim " << headDim);
    const GpuSpec* spec = findCatalogGpu(gpu);
    REQUIRE(spec);
    const double peak = spec->peakTflopsBf16 * 1e12;
    const double flops = flopsOf(headDim);
    const AttentionSeconds s =
        flashAttentionSeconds(flops, kScores, peak, peak / spec->flopsPerExponential);
    CHECK(s.forward == Approx(forwardFlopRatio * flops / peak));
    CHECK(s.backward == Approx(backwardFlopRatio * kAttentionBackwardRatio * flops / peak));
}

TEST_CASE("a GPU outside the catalog has no bound from its exponentials", "[attention]")
{
    const AttentionSeconds s = flashAttentionSeconds(flopsOf(16), kScores, 1e12, 0);
    CHECK(s.forward == Approx(flopsOf(16) / 1e12));
    CHECK(s.backward == Approx(kAttentionBackwardRatio * flopsOf(16) / 1e12));
}
