// Before a row is called an outlier, the rows that share its GPU, precision and kind of model are
// looked at: one row off alone is an outlier, a group off the same way is a pattern (issue 36,
// report/errorpatterns.h).

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "errorpatterns.h"

using namespace cs;

namespace {

MeasuredRun patternRow(const std::string& gpu, Precision precision, bool experts,
                       const std::string& model)
{
    MeasuredRun r;
    r.id = gpu + "-" + model;
    r.cluster.gpu.name = gpu;
    r.run.precision = precision;
    r.run.model.name = model;
    if (experts)
        r.run.model.moe = Moe{};
    return r;
}

struct Rows {
    std::vector<MeasuredRun> runs;
    std::vector<double> errors;
    void add(MeasuredRun r, double error)
    {
        runs.push_back(std::move(r));
        errors.push_back(error);
    }
};

} // namespace

TEST_CASE("rows are grouped by GPU, precision and kind of model, and a group off the same way is "
          "a pattern",
          "[errorpatterns]")
{
    struct Case {
        const char* what;
        std::vector<double> errors;
        bool pattern;
    };
    const Case cases[] = {
        {"three rows too slow by 7 % on average", {0.06, 0.07, 0.08}, true},
        {"three rows too fast by 5 % on average", {-0.02, -0.05, -0.08}, true},
        {"two rows too slow by 10 %: too few", {0.1, 0.1}, false},
        {"three rows, mean 4 %", {0.03, 0.04, 0.05}, false},
        {"errors that cancel: no pattern, however large", {0.3, -0.3, 0.0}, false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.what)
        {
            Rows rows;
            for (double e : c.errors)
                rows.add(patternRow("A100", Precision::BF16, false, "GPT 175B"), e);
            // Another precision, another GPU, another kind of model: groups of their own.
            rows.add(patternRow("A100", Precision::FP8, false, "GPT 175B"), 0.5);
            rows.add(patternRow("H100", Precision::BF16, false, "GPT 175B"), 0.5);
            rows.add(patternRow("A100", Precision::BF16, true, "Qwen3-30B-A3B"), 0.5);
            const std::vector<ErrorGroup> groups = errorGroups(rows.runs, rows.errors);
            REQUIRE(groups.size() == 4);
            const ErrorGroup& g = groups.front(); // A100 bf16 dense sorts first
            CHECK(groupName(g) == "A100 bf16 dense");
            CHECK(g.rows.size() == c.errors.size());
            double mean = 0, mape = 0;
            for (double e : c.errors) {
                mean += e / double(c.errors.size());
                mape += std::abs(e) / double(c.errors.size());
            }
            CHECK(g.meanError == Approx(mean).margin(1e-12));
            CHECK(g.mape == Approx(mape));
            CHECK(g.families == std::vector<std::string>{"GPT-3"});
            CHECK(g.pattern() == c.pattern);
            CHECK(groupName(groups[1]) == "A100 bf16 experts");
            CHECK(groupName(groups[2]) == "A100 fp8 dense");
        }
    }
}

TEST_CASE("a large error is a pattern when its group's other rows, or those of the same model, err "
          "the same way, otherwise an outlier",
          "[errorpatterns]")
{
    const MeasuredRun gptOss = patternRow("H100", Precision::BF16, true, "gpt-oss-120b");
    const MeasuredRun qwen = patternRow("H100", Precision::BF16, true, "Qwen3-235B-A22B");
    struct Case {
        const char* what;
        std::vector<std::pair<const MeasuredRun*, double>> others;
        int modelOthers;
        bool shared;
    };
    const Case cases[] = {
        {"others fine: an outlier", {{&qwen, 0.01}, {&qwen, -0.02}, {&qwen, 0.04}}, 0, false},
        {"others too fast as well: a pattern", {{&qwen, -0.06}, {&qwen, -0.08}}, 0, true},
        {"others too slow: the large row is still an outlier",
         {{&qwen, 0.1}, {&qwen, 0.1}},
         0,
         false},
        {"the group cancels but the same model is too fast: a pattern",
         {{&qwen, 0.25}, {&qwen, 0.3}, {&gptOss, -0.2}, {&gptOss, -0.19}},
         2,
         true},
        {"alone in its group", {}, 0, false},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.what)
        {
            Rows rows;
            rows.add(gptOss, -0.24);
            rows.add(patternRow("GB200", Precision::BF16, true, "gpt-oss-120b"),
                     -0.3); // another group
            for (const auto& [r, e] : c.others)
                rows.add(*r, e);
            const std::vector<LargeRowError> large =
                largeRowErrors(errorGroups(rows.runs, rows.errors), rows.runs, rows.errors);
            // Every row past 20 %, and only those, in row order.
            std::vector<size_t> expected{0, 1};
            for (size_t i = 2; i < rows.errors.size(); ++i)
                if (std::abs(rows.errors[i]) >= kLargeRowError)
                    expected.push_back(i);
            std::vector<size_t> got;
            for (const LargeRowError& e : large)
                got.push_back(e.row);
            CHECK(got == expected);
            const LargeRowError& first = large.front();
            CHECK(first.error == -0.24);
            CHECK(first.others == int(c.others.size()));
            CHECK(first.modelOthers == c.modelOthers);
            CHECK(first.sharedByOthers == c.shared);
            CHECK(large[1].others == 0); // GB200's row has no company
            CHECK_FALSE(large[1].sharedByOthers);
        }
    }
}

TEST_CASE("validate-runs gives the errors by group, each group's mean that of its rows, and the "
          "large errors beside their group",
          "[errorpatterns]")
{
    const std::string file = std::string(CS_SHARED_DIR) + "/reference/validation/public.jsonl";
    std::ostringstream out, err;
    REQUIRE(cli::runValidateRuns({file, "--json"}, {out, err}) == cli::kExitOk);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    std::map<std::string, double> errorOf;
    for (const auto& r : j.at("rows"))
        errorOf[r.at("id")] = r.at("error");
    size_t grouped = 0;
    for (const auto& g : j.at("groups")) {
        grouped += g.at("rows").get<size_t>();
        CHECK(g.at("pattern").get<bool>() ==
              (g.at("rows").get<int>() >= kPatternMinRows &&
               std::abs(g.at("mean_error").get<double>()) >= kPatternMeanError));
        CHECK_FALSE(g.at("families").empty());
    }
    CHECK(grouped == errorOf.size());
    for (const auto& e : j.at("large_errors"))
        CHECK(std::abs(errorOf.at(e.at("id"))) >= kLargeRowError);

    std::ostringstream text, err2;
    REQUIRE(cli::runValidateRuns({file}, {text, err2}) == cli::kExitOk);
    CHECK(text.str().find("errors by GPU, precision and kind of model") != std::string::npos);
    for (const auto& g : j.at("groups"))
        CHECK(text.str().find(
                  g.at("gpu").get<std::string>() + " " + g.at("precision").get<std::string>() +
                  (g.at("experts").get<bool>() ? " experts" : " dense")) != std::string::npos);
}
