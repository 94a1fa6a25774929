// Every prediction carries the range in which the measured step should lie, from the model's own
// errors on the measured runs most like it (issue 36, report/uncertainty.h).

#include <catch2/catch.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include "calibrate.h"
#include "clirun.h"
#include "comparison.h"
#include "costmodel.h"
#include "importdata.h"
#include "megatron.h"
#include "samplefiles.h"
#include "uncertainty.h"

using namespace cs;
using nlohmann::json;

namespace {

Likeness like(int generation, Precision precision, bool experts, double gpus)
{
    Likeness l;
    l.tensorCoreGeneration = generation;
    l.precision = precision;
    l.experts = experts;
    l.gpus = gpus;
    return l;
}

ReferenceRun reference(const std::string& id, const Likeness& l, double error)
{
    return {id, l, error};
}

// Six references r0 to r5 like `l`, errors 0 to 5 %; the last one `last` instead.
std::vector<ReferenceRun> fiveAndOne(const Likeness& l, const Likeness& last)
{
    std::vector<ReferenceRun> refs;
    for (int i = 0; i < 6; ++i)
        refs.push_back(reference("r" + std::to_string(i), i < 5 ? l : last, 0.01 * i));
    return refs;
}

} // namespace

TEST_CASE("the range is the prediction over one plus the least and largest error of the runs "
          "most alike",
          "[uncertainty]")
{
    const Likeness hopperFp8 = like(2, Precision::FP8, false, 512);
    std::vector<ReferenceRun> refs;
    // Twelve alike at growing distance in scale, errors -6 % ... +5 %.
    for (int i = 0; i < 12; ++i)
        refs.push_back(reference("near" + std::to_string(i),
                                 like(2, Precision::FP8, false, 512.0 * (1 << (i % 3))),
                                 -0.06 + 0.01 * i));
    // Farther: another precision, or far in scale; never as near as the twelve.
    refs.push_back(reference("bf16", like(2, Precision::BF16, false, 512), 0.5));
    refs.push_back(reference("huge", like(2, Precision::FP8, false, 512.0 * 1024), -0.5));
    // Unlike: another generation or kind of model, whatever their distance.
    refs.push_back(reference("blackwell", like(3, Precision::FP8, false, 512), 0.9));
    refs.push_back(reference("experts", like(2, Precision::FP8, true, 512), 0.9));

    const Uncertainty u = uncertaintyOf(2.0, hopperFp8, refs);
    REQUIRE(u.known());
    CHECK(u.basis() == kMaxBasis);
    CHECK(u.lowS == Approx(2.0 / 1.05));
    CHECK(u.highS == Approx(2.0 / 0.94));
    for (const std::string& id : u.nearest)
        CHECK(id.rfind("near", 0) == 0);

    // Without one of them, the next nearest alike takes its place.
    const Uncertainty without = uncertaintyOf(2.0, hopperFp8, refs, "near0");
    CHECK(std::find(without.nearest.begin(), without.nearest.end(), "near0") ==
          without.nearest.end());
    CHECK(without.basis() == kMaxBasis);
    CHECK(without.lowS == Approx(2.0 / 1.5)); // the BF16 run's +50 % is among them now
}

TEST_CASE("no range where fewer than kMinBasis measured runs are alike", "[uncertainty]")
{
    const int alike = GENERATE(0, kMinBasis - 1, kMinBasis);
    std::vector<ReferenceRun> refs;
    for (int i = 0; i < alike; ++i)
        refs.push_back(reference(std::to_string(i), like(1, Precision::BF16, true, 64), 0.1));
    refs.push_back(reference("dense", like(1, Precision::BF16, false, 64), 0.1));
    const Uncertainty u = uncertaintyOf(1.0, like(1, Precision::BF16, true, 64), refs);
    CHECK(u.known() == (alike >= kMinBasis));
    CHECK(u.basis() == (alike >= kMinBasis ? alike : 0));
}

TEST_CASE("evaluate gives the range and its basis, or says no measured run is like it",
          "[uncertainty][cli]")
{
    const CliRun fairwater =
        runCli({"evaluate", samplePath("fairwater-gb200-128.cluster.json"),
                samplePath("fairwater-gb200-128-llama405b.run.json"), "--json"});
    REQUIRE(fairwater.status == 0);
    const json u = json::parse(fairwater.out)["uncertainty"];
    CHECK(u["basis"] == kMaxBasis);
    CHECK(u["nearest"].size() == size_t(kMaxBasis));
    CHECK(u["low_s"].get<double>() < u["high_s"].get<double>());

    const CliRun text = runCli({"evaluate", samplePath("fairwater-gb200-128.cluster.json"),
                                samplePath("fairwater-gb200-128-llama405b.run.json")});
    CHECK_THAT(text.out, Catch::Contains("measured runs like this one"));
}

TEST_CASE("validate-runs gives each row the range made without it", "[uncertainty][cli]")
{
    const std::string file = std::string(CS_SAMPLES_DIR) + "/measured/public.jsonl";
    const CliRun r = runCli({"validate-runs", file, "--json"});
    REQUIRE(r.status == 0);
    const json out = json::parse(r.out);
    Diagnostics diags;
    const std::vector<MeasuredRun> rows = readMeasuredRuns(file, diags);
    REQUIRE(rows.size() == out["rows"].size());
    const std::vector<ReferenceRun>& refs = shippedReferenceRuns(defaultCalibration());
    int inside = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const json& row = out["rows"][i];
        INFO(rows[i].id);
        const Uncertainty u =
            uncertaintyOf(row["predicted_s"].get<double>(),
                          likenessOf(rows[i].cluster, rows[i].run), refs, rows[i].id);
        REQUIRE(u.known());
        CHECK(row["low_s"].get<double>() == u.lowS);
        CHECK(row["high_s"].get<double>() == u.highS);
        const double measured = row["measured_s"].get<double>();
        inside += u.lowS <= measured && measured <= u.highS ? 1 : 0;
    }
    CHECK(out["range_coverage"]["inside"] == inside);
    CHECK(out["range_coverage"]["rows_with_range"] == rows.size());
}

TEST_CASE("search lists each layout's range and marks those whose range overlaps the best's",
          "[uncertainty][cli][search]")
{
    const std::string data = std::string(CS_TEST_DATA_DIR) + "/good/";
    const CliRun r = runCli(
        {"search", data + "small.cluster.json", data + "small.run.json", "--top", "30", "--json"});
    REQUIRE(r.status == 0);
    const json results = json::parse(r.out)["results"];
    REQUIRE(results.size() > 2);
    const json& best = results[0];
    REQUIRE(best.contains("low_s"));
    CHECK_FALSE(best["tie_with_best"].get<bool>());
    for (const json& row : results) {
        CHECK(row["low_s"].get<double>() < row["high_s"].get<double>());
        if (&row == &best)
            continue;
        const bool overlaps = row["low_s"].get<double>() <= best["high_s"].get<double>() &&
                              best["low_s"].get<double>() <= row["high_s"].get<double>();
        CHECK(row["tie_with_best"].get<bool>() == overlaps);
    }
}

TEST_CASE("compare gives both ranges and says when the measured steps could come in either "
          "order",
          "[uncertainty][compare]")
{
    const ClusterRun h100 = loadSampleRun("ndv5-h100-128-gpt3-175b.run.json");
    ClusterRun slower = h100;
    slower.run.batch.micro = 2; // a few per cent apart: inside the range
    const Comparison close = compareRuns(h100, slower);
    REQUIRE(close.rangeA.known());
    REQUIRE(close.rangeB.known());
    const auto saysEitherOrder = [](const Comparison& c) {
        return std::any_of(c.findings.begin(), c.findings.end(), [](const std::string& f) {
            return f.find("either order") != std::string::npos;
        });
    };
    CHECK(saysEitherOrder(close) == tied(close.rangeA, close.rangeB));
    CHECK(saysEitherOrder(compareRuns(h100, h100)));
    const json j = comparisonJson(close);
    CHECK(j["b"]["uncertainty"]["low_s"].get<double>() == close.rangeB.lowS);
}

TEST_CASE("range coverage counts the ranges that hold the measured step and their median "
          "half-width, merged, as if added to one",
          "[uncertainty]")
{
    const auto range = [](double low, double high) {
        Uncertainty u;
        u.lowS = low;
        u.highS = high;
        u.nearest = {"a", "b", "c", "d"};
        return u;
    };
    RangeCoverage a, b, all;
    const std::vector<std::pair<Uncertainty, double>> cases{
        {range(0.9, 1.1), 1.0},   // inside, half-width 10 %
        {range(0.9, 1.1), 1.2},   // outside, 10 %
        {range(1.8, 2.2), 2.2},   // on the edge: inside, 10 %
        {range(0.8, 1.2), 1.0},   // inside, 20 %
        {range(0.95, 1.05), 1.0}, // inside, 5 %
        {Uncertainty{}, 1.0},     // no measured run like it
    };
    for (size_t i = 0; i < cases.size(); ++i) {
        (i % 2 ? a : b).add(cases[i].first, cases[i].second);
        all.add(cases[i].first, cases[i].second);
    }
    CHECK(all.inside() == 4);
    CHECK(all.withRange() == 5);
    CHECK(all.withoutRange() == 1);
    CHECK(all.medianHalfWidth() == Approx(0.1));
    a.merge(b);
    CHECK(a.inside() == all.inside());
    CHECK(a.withRange() == all.withRange());
    CHECK(a.withoutRange() == all.withoutRange());
    CHECK(a.medianHalfWidth() == Approx(all.medianHalfWidth()));
    CHECK(RangeCoverage{}.medianHalfWidth() == 0);
}

TEST_CASE("a range says when no measured run is of the model's family", "[uncertainty]")
{
    Likeness deepSeek = like(3, Precision::FP8, true, 256), qwen = deepSeek;
    deepSeek.family = "DeepSeek-V3";
    qwen.family = "Qwen3";
    const std::vector<ReferenceRun> refs = fiveAndOne(deepSeek, qwen);
    const auto [family, without, measured] = GENERATE(table<std::string, std::string, bool>({
        {"DeepSeek-V3", "", true},
        {"Qwen3", "", true},
        {"Qwen3", "r5", false}, // its only run of the family is the row itself
        {"Kimi K2", "", false},
    }));
    INFO(family << " without " << without);
    Likeness query = like(3, Precision::FP8, true, 256);
    query.family = family;
    const Uncertainty u = uncertaintyOf(1.0, query, refs, without);
    REQUIRE(u.known());
    CHECK(u.familyMeasured == measured);
    CHECK((rangeText(u).find("none of its model family") != std::string::npos) == !measured);
    CHECK(uncertaintyJson(u).at("family_measured") == measured);
}

TEST_CASE("the range of a model of a family no measured run has is widened about its middle",
          "[uncertainty]")
{
    Likeness deepSeek = like(3, Precision::FP8, true, 256);
    deepSeek.family = "DeepSeek-V3";
    const std::vector<ReferenceRun> refs = fiveAndOne(deepSeek, deepSeek); // errors 0 to 5 %
    Likeness kimi = deepSeek;
    kimi.family = "Kimi K2";
    const Uncertainty seen = uncertaintyOf(2.0, deepSeek, refs);
    const Uncertainty unseen = uncertaintyOf(2.0, kimi, refs);
    REQUIRE(seen.known());
    REQUIRE(unseen.known());
    CHECK(seen.lowS == Approx(2.0 / 1.05));
    CHECK(seen.highS == Approx(2.0));
    // In log(step): the same middle, a half-width 1 + kUnseenFamilyWidening times as wide.
    const auto logMiddle = [](const Uncertainty& u) { return std::log(u.lowS * u.highS) / 2; };
    const auto logHalf = [](const Uncertainty& u) { return std::log(u.highS / u.lowS) / 2; };
    CHECK(logMiddle(unseen) == Approx(logMiddle(seen)));
    CHECK(logHalf(unseen) == Approx(logHalf(seen) * (1 + kUnseenFamilyWidening)));
    // By hand for 0.75: log(1.05) / 2 = 0.024395 either side of the middle becomes 0.042691, so
    // the errors run from -1.81 % to +6.94 %.
    CHECK(unseen.lowS == Approx(2.0 / 1.06939).epsilon(1e-4));
    CHECK(unseen.highS == Approx(2.0 / (1 - 0.018130)).epsilon(1e-4));
    CHECK(unseen.nearest == seen.nearest);
}

TEST_CASE("a run's likeness names its model's family", "[uncertainty]")
{
    for (const MeasuredRun& r : publicMeasuredRuns()) {
        CHECK(likenessOf(r.cluster, r.run).family == modelFamilyOf(r));
        CHECK(likenessOf(r.cluster, r.run).architecture == modelShapeOf(r));
    }
}

TEST_CASE("a model's shape names its layers, widths, heads and experts", "[uncertainty]")
{
    ModelShape qwen;
    qwen.layers = 48;
    qwen.hidden = 2048;
    qwen.heads = 32;
    qwen.kvHeads = 4;
    qwen.ffnHidden = 768;
    CHECK(shapeOfModel(qwen) == "48 layers, 2048 wide, 32/4 heads, FFN 768");
    qwen.moe = Moe{};
    qwen.moe->experts = 128;
    qwen.moe->ffnHidden = 768;
    qwen.moe->topK = 8;
    CHECK(shapeOfModel(qwen) ==
          "48 layers, 2048 wide, 32/4 heads, FFN 768, 128 experts of 768, top 8");
}

TEST_CASE("a model whose name names no family is of the family of a measured run of its shape",
          "[uncertainty]")
{
    Likeness big = like(2, Precision::BF16, true, 64), small = big;
    big.family = small.family = "gpt-oss";
    big.architecture = "36 layers, 2880 wide";
    small.architecture = "24 layers, 2880 wide";
    const std::vector<ReferenceRun> refs = fiveAndOne(big, small);
    const auto [architecture, without, measured] = GENERATE(table<std::string, std::string, bool>({
        {"36 layers, 2880 wide", "", true},
        {"24 layers, 2880 wide", "", true},
        {"24 layers, 2880 wide", "r5", false}, // its only run of that shape is the row itself
        {"61 layers, 7168 wide", "", false},
        {"", "", false}, // no shape says nothing
    }));
    INFO(architecture << " without " << without);
    Likeness query = like(2, Precision::BF16, true, 64);
    query.family = "unnamed";
    query.architecture = architecture;
    CHECK(uncertaintyOf(1.0, query, refs, without).familyMeasured == measured);
}

TEST_CASE("an imported gpt-oss launch script is of a measured family, and predicted as its row",
          "[uncertainty][imports]")
{
    ImportReport report;
    const auto imported = importMegatron({importSource("gpt-oss-120b-h100.sh")}, nullptr, report);
    INFO(report.errors.formatAll());
    REQUIRE(imported);
    const RunDesc run = loadedRun(*imported);
    CHECK(run.model.name.empty()); // a launch script names no model
    const MeasuredRun* row = nullptr;
    const std::vector<MeasuredRun>& rows = publicMeasuredRuns();
    for (const MeasuredRun& r : rows)
        if (r.id == "mbridge_2604_gptoss-120b_h100_64_bf16")
            row = &r;
    REQUIRE(row);
    // The launch gives the cost model what the row gives it: the same step.
    CHECK(evaluate(row->cluster, run).stepTimeS ==
          Approx(evaluate(row->cluster, row->run).stepTimeS).epsilon(1e-12));
    const Uncertainty u = uncertaintyOf(1.0, likenessOf(row->cluster, run),
                                        referenceRuns(rows, defaultCalibration()));
    CHECK(u.familyMeasured);
    CHECK(rangeText(u).find("none of its model family") == std::string::npos);
}
