// The built-in constants (model/cost/calibration.cpp) are the output of calibrate on the public
// measured runs: moving any one fitted constant, either way, makes the fit's objective worse.

#include <algorithm>

#include <catch2/catch.hpp>

#include "calibrate.h"
#include "calibration.h"
#include "measuredruns.h"

using namespace cs;

namespace {

std::vector<MeasuredRun> publicRows()
{
    std::vector<MeasuredRun> rows;
    Diagnostics diags;
    for (const char* file : {"public.jsonl", "moe-public.jsonl"}) {
        std::vector<MeasuredRun> some =
            readMeasuredRuns(std::string(CS_SHARED_DIR) + "/reference/validation/" + file, diags);
        rows.insert(rows.end(), some.begin(), some.end());
    }
    REQUIRE(rows.size() > 140);
    return rows;
}

// One fitted constant of a calibration being moved, and its bounds.
struct Move {
    std::string what;
    double* value;
    double min, max;
};

} // namespace

TEST_CASE("the built-in constants are where calibrate stops on the public runs", "[calibration]")
{
    const std::vector<MeasuredRun> rows = publicRows();
    const Calibration builtIn = defaultCalibration();
    const double at = fitObjective(rows, builtIn);
    Calibration moved = builtIn;
    std::vector<Move> moves;
    for (const FittedConstant& k : fittedConstants())
        moves.push_back({k.key, &(moved.*k.field), k.min, k.max});
    for (GemmEfficiency& e : moved.gemm)
        moves.push_back({"gemm " + e.gpu + " " + toString(e.precision), &e.efficiency,
                         kEfficiencyMin, kEfficiencyMax});
    for (GemmEfficiency& e : moved.grouped)
        moves.push_back({"grouped " + e.gpu + " " + toString(e.precision), &e.efficiency,
                         kEfficiencyMin, kEfficiencyMax});
    for (const Move& m : moves) {
        const double original = *m.value;
        for (double sign : {-1.0, 1.0}) {
            *m.value = std::clamp(original + sign * 0.01 * (m.max - m.min), m.min, m.max);
            INFO(m.what << " " << original << " -> " << *m.value);
            CHECK(fitObjective(rows, moved) >= at - 1e-9);
        }
        *m.value = original;
    }
}
