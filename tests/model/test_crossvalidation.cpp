// A fit checked on what it did not see (issue 36): each model family left out of the fit in turn
// and predicted by the constants fitted on the others; what informs each constant.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "calibrate.h"
#include "measuredruns.h"
#include "samplefiles.h"

using namespace cs;

namespace {

MeasuredRun named(const std::string& name)
{
    MeasuredRun r;
    r.run.model.name = name;
    return r;
}

} // namespace

TEST_CASE("a row's model family comes from its model's name", "[calibration]")
{
    const auto [name, family] = GENERATE(table<std::string, std::string>({
        {"GPT-3 175B (MLPerf gpt3)", "GPT-3"},
        {"GPT 1008.0B", "GPT-3"},
        {"GPT-3-style 175B (MegaScale Table 1)", "GPT-3"},
        {"gpt-oss-120b", "gpt-oss"},
        {"Llama 3.1 405B (MLPerf llama31_405b)", "Llama 3"},
        {"Llama 4 Scout", "Llama 4"},
        {"DeepSeek-V3 671B", "DeepSeek-V3"},
        {"Qwen3-30B-A3B", "Qwen3"},
        {"Qwen3-235B-A22B", "Qwen3"},
        {"Falcon 180B", "Falcon"},
        {"", "unnamed"},
    }));
    CHECK(modelFamilyOf(named(name)) == family);
}

TEST_CASE("cross-validation by model family holds each family out of the fit in turn",
          "[calibration]")
{
    // A few rows of three families, fitted on the closed form for one sweep: quick, and enough
    // to tell each held-out family's error from its fitted one.
    std::map<std::string, int> taken;
    std::vector<MeasuredRun> rows;
    for (MeasuredRun& r : publicMeasuredRuns()) {
        const std::string family = modelFamilyOf(r);
        if ((family == "GPT-3" || family == "Llama 3" || family == "DeepSeek-V3") &&
            r.cluster.gpu.name == "H100" && taken[family] < 3) {
            ++taken[family];
            rows.push_back(std::move(r));
        }
    }
    REQUIRE(taken.size() == 3);
    FitOptions options;
    options.closedFormOnly = true;
    options.maxSweeps = 1;
    const std::vector<FamilyError> out =
        crossValidate(rows, defaultCalibration(), options, modelFamilyOf);
    REQUIRE(out.size() == 3);
    for (const FamilyError& f : out) {
        INFO(f.family);
        CHECK(taken.count(f.family) == 1);
        CHECK(f.rows == taken[f.family]);
        CHECK(f.heldOutMape >= 0);
        CHECK(f.heldOutMape < 1);
        // The constants it returns are those that predicted the family: the ranges of the
        // held-out rows (calibrate --cross-validate) are made with them.
        std::vector<MeasuredRun> held;
        for (const MeasuredRun& r : rows)
            if (modelFamilyOf(r) == f.family)
                held.push_back(r);
        double sum = 0;
        for (const RowError& e : predictRows(held, f.heldOutFit))
            sum += std::abs(e.error());
        CHECK(sum / double(held.size()) == Approx(f.heldOutMape));
    }
}

TEST_CASE("what informs each constant names a constant one model family alone informs",
          "[calibration][slow]")
{
    std::map<std::string, KnobBasis> byKnob;
    for (KnobBasis& b : knobBases(publicMeasuredRuns()))
        byKnob[b.knob] = b;
    // Only MLPerf GPT-3 and the SC21 GPT runs measure the A100.
    CHECK(byKnob.at("gemm Ampere bf16").modelFamilies == std::vector<std::string>{"GPT-3"});
    CHECK(byKnob.at("gemm Hopper fp8").modelFamilies.size() > 1);
    // A constant is seen by the rows it moves: the expert GEMMs' by the runs with experts only.
    const KnobBasis& grouped = byKnob.at("grouped_efficiency");
    CHECK(grouped.rows > 0);
    CHECK(std::find(grouped.modelFamilies.begin(), grouped.modelFamilies.end(), "GPT-3") ==
          grouped.modelFamilies.end());
}

TEST_CASE("the fit leaves a constant that one model family informs at its default", "[calibration]")
{
    // Three GPT-3 runs on A100 and three Llama 3 runs on H100: each GPU's efficiency is informed
    // by one family, the shared constants that both move by two.
    std::map<std::string, int> taken;
    std::vector<MeasuredRun> rows;
    for (MeasuredRun& r : publicMeasuredRuns()) {
        const std::string family = modelFamilyOf(r);
        const std::string gpu = r.cluster.gpu.name;
        if (((family == "GPT-3" && gpu == "A100") || (family == "Llama 3" && gpu == "H100")) &&
            taken[family] < 3) {
            ++taken[family];
            rows.push_back(std::move(r));
        }
    }
    REQUIRE(rows.size() == 6);
    FitOptions options;
    options.closedFormOnly = true;
    options.maxSweeps = 1;
    const Fit fit = calibrate(rows, defaultCalibration(), options);
    std::map<std::string, KnobBasis> refused;
    for (const KnobBasis& b : fit.refused)
        refused[b.knob] = b;
    REQUIRE(refused.count("gemm Ampere bf16") == 1);
    CHECK(refused.at("gemm Ampere bf16").modelFamilies == std::vector<std::string>{"GPT-3"});
    CHECK(refused.count("gemm Hopper fp8") == 1);
    // Dropped from the table: those GPUs take the default.
    CHECK(fit.calibration.gemm.empty());
    // Shared constants no run with experts moves keep their physical default.
    CHECK(refused.count("grouped_efficiency") == 1);
    CHECK(fit.calibration.groupedEfficiency == Calibration{}.groupedEfficiency);
    // A constant that moves rows of both families by 1 % or more is fitted.
    CHECK(refused.count("memory_efficiency") == 0);
}
