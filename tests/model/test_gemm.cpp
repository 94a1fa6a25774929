// GEMM times from shapes (model/cost/gemm.h): tiles in waves over the SMs, a fixed cost per
// tile, a memory roofline.

#include <catch2/catch.hpp>

#include "calibration.h"
#include "description.h"
#include "gemm.h"

using namespace cs;

namespace {

// Four SMs of 1 TFLOP/s each at full efficiency, no fixed cost, no roofline: a tile of
// 128 x 256 x 4096 takes 2 * 128 * 256 * 4096 / 1e12 s.
GemmDevice fourSms()
{
    return GemmDevice{4e12, 1.0, 4, 128, 256, 0, 0, 2, 2};
}

constexpr double kTileS = 2.0 * 128 * 256 * 4096 / 1e12;

} // namespace

TEST_CASE("a GEMM's tiles run in waves over the SMs", "[gemm]")
{
    const auto [m, n, waves] = GENERATE(table<double, double, double>({
        {128, 256, 1},     // one tile: one wave, three SMs idle
        {4 * 128, 256, 1}, // a full wave
        {5 * 128, 256, 2}, // one tile past a full wave: two waves
        {129, 256, 1},     // a partial tile counts whole
        {129, 257, 1},     // four tiles
        {257, 257, 2},     // six tiles
        {8 * 128, 2 * 256, 4},
    }));
    INFO(m << " x " << n);
    CHECK(gemmSeconds({m, n, 4096}, fourSms()) == Approx(waves * kTileS));
}

TEST_CASE("a grouped GEMM's experts share the waves", "[gemm]")
{
    const auto [experts, rows, waves] = GENERATE(table<double, double, double>({
        {4, 128, 1}, // one tile each, one wave
        {5, 128, 2}, // a fifth expert starts a second wave
        {8, 10, 2},  // ten rows fill a tile as 128 do
        {2, 300, 2}, // three tiles each
    }));
    INFO(experts << " experts of " << rows << " rows");
    CHECK(groupedGemmSeconds(experts, {rows, 256, 4096}, fourSms()) == Approx(waves * kTileS));
}

TEST_CASE("with no SM count, tiles spread evenly", "[gemm]")
{
    GemmDevice d = fourSms();
    d.sms = 0;
    CHECK(gemmSeconds({5 * 128, 256, 4096}, d) == Approx(5 * kTileS / 4));
    CHECK(wavesOf(5, 0) == 5);
    CHECK(wavesOf(5, 4) == 2);
}

TEST_CASE("a tile's fixed cost halves the speed at k = kHalf", "[gemm]")
{
    GemmDevice d = fourSms();
    d.kHalf = 1024;
    const auto perFlop = [&](double k) {
        const GemmShape s{512, 256, k};
        return gemmSeconds(s, d) / s.flops();
    };
    CHECK(perFlop(kReferenceK) == Approx(1 / 4e12)); // the efficiency is quoted there
    CHECK(perFlop(1024) / perFlop(1e9) == Approx(2).epsilon(1e-5));
    CHECK(perFlop(512) > perFlop(1024));
}

TEST_CASE("a GEMM that moves more bytes than its tiles take is memory bound", "[gemm]")
{
    GemmDevice d = fourSms();
    d.memory = 1e10; // 10 GB/s
    // One row against a 8192 x 8192 weight: 128 MiB of weights, 13 ms at 10 GB/s against
    // 4.3 ms of tiles.
    const GemmShape skinny{1, 8192, 8192};
    const double bytes = (1.0 * 8192 + 8192.0 * 8192) * 2 + 8192.0 * 2;
    CHECK(gemmSeconds(skinny, d) == Approx(bytes / 1e10));
    // A square one is compute bound at 1 TB/s: the roofline does not change it.
    const GemmShape square{512, 512, 4096};
    d.memory = 1e12;
    GemmDevice noRoofline = d;
    noRoofline.memory = 0;
    CHECK(gemmSeconds(square, d) == Approx(gemmSeconds(square, noRoofline)));
}

TEST_CASE("gpt-oss's expert GEMMs are slower per FLOP than DeepSeek-V3's from their shapes",
          "[gemm][moe]")
{
    // The same GPU, efficiency and tokens per expert (thousands, as EP 8 to 64 at micro-batch 1
    // give; at a few hundred the last wave's luck decides); only the shapes differ. gpt-oss-120b:
    // hidden 2,880, expert MLP 2,880 (gated: 5,760 wide); DeepSeek-V3: hidden 7,168, expert
    // MLP 2,048 (gated: 4,096 wide).
    const GpuSpec& gpu = *findCatalogGpu("B200");
    const GemmDevice d{gpu.peakTflopsFp8 * 1e12,
                       0.5,
                       gpu.sms,
                       double(gpu.tileM),
                       double(gpu.tileN),
                       defaultCalibration().gemmHalfWidth,
                       gpu.hbmTBps * 1e12 * 0.7,
                       1,
                       2};
    const auto perFlop = [&](double h, double f, double rows) {
        const GemmShape up{rows, 2 * f, h}, down{rows, h, f};
        const double seconds = groupedGemmSeconds(8, up, d) + groupedGemmSeconds(8, down, d);
        return seconds / (8 * (up.flops() + down.flops()));
    };
    for (double rows : {2048.0, 4096.0, 8192.0}) {
        INFO(rows << " rows an expert");
        CHECK(perFlop(2880, 2880, rows) > 1.02 * perFlop(7168, 2048, rows));
    }
}

TEST_CASE("every catalog GPU has its SMs, tile and architecture", "[gemm]")
{
    for (const GpuSpec& gpu : gpuCatalog()) {
        INFO(gpu.name);
        CHECK(gpu.sms > 0);
        CHECK(gpu.tileM * gpu.tileN > 0);
        CHECK(!gpu.architecture.empty());
    }
    CHECK(findCatalogGpu("H100")->architecture == findCatalogGpu("H200")->architecture);
    CHECK(findCatalogGpu("B300")->architecture == findCatalogGpu("GB300")->architecture);
}
