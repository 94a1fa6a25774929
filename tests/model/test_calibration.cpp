// The built-in constants (model/cost/calibration.cpp) are the output of calibrate on the public
// measured runs: moving any one fitted constant, either way, makes the fit's objective no better.

#include <algorithm>

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
    // Every GPU and precision of the rows has its built-in efficiencies.
    REQUIRE(moved == defaultCalibration());
    for (FitKnob& k : knobs) {
        double& value = k.value(moved);
        const double original = value;
        const double at = fitObjective(k.rows, moved);
        for (double sign : {-1.0, 1.0}) {
            // A constant that close to a bound is where the fit stops that way.
            value = original + sign * 0.01 * (k.max - k.min);
            if (value < k.min || value > k.max)
                continue;
            INFO(k.name << " " << original << " -> " << value);
            CHECK(fitObjective(k.rows, moved) >= at - 1e-9);
        }
        value = original;
    }
}

TEST_CASE("a GPU no run calibrates takes the efficiencies of one on the same silicon",
          "[calibration]")
{
    const Calibration& builtIn = defaultCalibration();
    for (Precision p : {Precision::BF16, Precision::FP8, Precision::NVFP4}) {
        CHECK(builtIn.gemmEfficiency("B300", p) == builtIn.gemmEfficiency("GB300", p));
        CHECK(builtIn.groupedGemmEfficiency("B300", p) ==
              builtIn.groupedGemmEfficiency("GB300", p));
    }
    // Once runs calibrate it, its own efficiencies hold.
    Calibration own = builtIn;
    own.gemm.push_back({"B300", Precision::FP8, 0.123});
    CHECK(own.gemmEfficiency("B300", Precision::FP8) == Approx(0.123));
    CHECK(own.groupedGemmEfficiency("B300", Precision::FP8) == Approx(0.123));
    CHECK(own.gemmEfficiency("GB300", Precision::FP8) != Approx(0.123));
    // A GPU with no stand-in and no runs gets the default.
    Calibration none = builtIn;
    none.gemm.clear();
    none.grouped.clear();
    CHECK(none.gemmEfficiency("B300", Precision::FP8) == none.defaultGemmEfficiency);
}
