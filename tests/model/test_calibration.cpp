// The built-in constants (model/cost/calibration.cpp) are the output of calibrate on the public
// measured runs: moving any one fitted constant, either way, makes the fit's objective no better.

#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "calibrate.h"
#include "calibration.h"
#include "measuredruns.h"
#include "samplefiles.h"

using namespace cs;

namespace {

std::vector<MeasuredRun> publicRows()
{
    std::vector<MeasuredRun> rows = publicMeasuredRuns();
    REQUIRE(rows.size() > 140);
    return rows;
}

} // namespace

TEST_CASE("the built-in constants are where calibrate stops on the public runs", "[calibration]")
{
    const std::vector<MeasuredRun> rows = publicRows();
    Calibration moved = defaultCalibration();
    std::vector<FitKnob> knobs = fitKnobs(rows, moved);
    std::vector<const MeasuredRun*> all;
    for (const MeasuredRun& r : rows)
        all.push_back(&r);
    for (FitKnob& k : knobs) {
        std::set<std::string> families;
        for (const MeasuredRun* r : k.informing)
            families.insert(modelFamilyOf(*r));
        if (families.size() < 2)
            continue; // not fitted: it keeps its default
        // Every architecture and precision the fit chooses has its built-in efficiency.
        if (k.name.rfind("gemm ", 0) == 0) {
            INFO(k.name);
            const std::vector<GemmEfficiency>& table = defaultCalibration().gemm;
            CHECK(std::any_of(table.begin(), table.end(), [&](const GemmEfficiency& e) {
                return k.name == "gemm " + e.gpu + " " + toString(e.precision);
            }));
        }
        double& value = k.value(moved);
        const double original = value;
        const double at = fitObjective(all, moved);
        for (double sign : {-1.0, 1.0}) {
            // A constant that close to a bound is where the fit stops that way.
            value = original + sign * 0.01 * (k.max - k.min);
            if (value < k.min || value > k.max)
                continue;
            INFO(k.name << " " << original << " -> " << value);
            CHECK(fitObjective(all, moved) >= at - 1e-9);
        }
        value = original;
    }
}

TEST_CASE("GPUs of one architecture share their GEMM efficiencies", "[calibration]")
{
    const Calibration& builtIn = defaultCalibration();
    const GpuSpec& b300 = *findCatalogGpu("B300");
    const GpuSpec& gb300 = *findCatalogGpu("GB300");
    for (Precision p : {Precision::BF16, Precision::FP8, Precision::NVFP4}) {
        CHECK(builtIn.gemmEfficiency(b300, p) == builtIn.gemmEfficiency(gb300, p));
        CHECK(builtIn.groupedGemmEfficiency(b300, p) == builtIn.groupedGemmEfficiency(gb300, p));
    }
    // A GPU's own entry takes precedence over its architecture's.
    Calibration own = builtIn;
    own.gemm.push_back({"B300", Precision::FP8, 0.123});
    CHECK(own.gemmEfficiency(b300, Precision::FP8) == Approx(0.123));
    CHECK(own.groupedGemmEfficiency(b300, Precision::FP8) ==
          Approx(0.123 * builtIn.groupedEfficiency));
    CHECK(own.gemmEfficiency(gb300, Precision::FP8) != Approx(0.123));
    // Expert GEMMs measured apart replace the derived efficiency.
    own.grouped.push_back({"Blackwell Ultra", Precision::FP8, 0.2});
    CHECK(own.groupedGemmEfficiency(gb300, Precision::FP8) == Approx(0.2));
    // An architecture with no entry gets the default.
    Calibration none = builtIn;
    none.gemm.clear();
    CHECK(none.gemmEfficiency(b300, Precision::FP8) == none.defaultGemmEfficiency);
}
