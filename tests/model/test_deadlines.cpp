// A time limit covers all the work of a search or a fit (issue 35): what comes after the
// deadline (placing the best bounded layouts, evaluating the shortlist, tuning a constant) is
// left out rather than done late, and the answer says it stopped early.

#include <chrono>

#include <catch2/catch.hpp>

#include "../helpers/datasafety.h"
#include "calibrate.h"
#include "clirun.h"
#include "samplefiles.h"
#include "search.h"

using namespace cs;

TEST_CASE("a search whose deadline has passed places and evaluates at most one layout, and "
          "says it ran out of time",
          "[search][deadline]")
{
    // The small run fits from its first layout on; Llama 3.1 405B's first (no parallelism) fits
    // nowhere, so it may find nothing in no time.
    const std::string file = GENERATE(std::string(CS_TEST_DATA_DIR) + "/good/small.run.json",
                                      samplePath("fairwater-gb200-128-llama405b.run.json"));
    const size_t keep = GENERATE(size_t(1), size_t(1000), size_t(100000));
    const int threads = GENERATE(1, 2);
    Diagnostics diags;
    const std::optional<LoadedFile> in = loadFile(file, diags);
    REQUIRE(in);
    SearchOptions options;
    options.keep = keep;
    options.threads = threads;
    options.deadline = std::chrono::steady_clock::now();
    const SearchOutcome outcome = searchParallelism(*in->cluster, *in->run, options);
    INFO(file << ", keep " << keep << ", threads " << threads);
    CHECK(outcome.outOfTime);
    CHECK_FALSE(outcome.cancelled);
    CHECK(outcome.layouts > 1);
    // The first item of each pass is always done, and nothing more.
    CHECK(outcome.evaluated == int64_t(outcome.results.size()));
    CHECK(outcome.results.size() <= 1);
    if (file.find("small") != std::string::npos)
        CHECK(outcome.results.size() == 1);
    // What is listed is what evaluate gives.
    for (const SearchResult& r : outcome.results)
        CHECK(r.stepTimeS == evaluate(*in->cluster, withLayout(*in->run, r.layout)).stepTimeS);
}

TEST_CASE("a search with time to spare is not cut short by the deadline's passes",
          "[search][deadline]")
{
    const ClusterRun in = loadSampleRun("fairwater-gb200-128-llama405b.run.json");
    SearchOptions options;
    options.keep = 5;
    options.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
    const SearchOutcome outcome = searchParallelism(in.cluster, in.run, options);
    CHECK_FALSE(outcome.outOfTime);
    CHECK(outcome.results.size() == 5);
}

TEST_CASE("a fit whose deadline has passed keeps its start and says it stopped early",
          "[calibration][deadline]")
{
    // Every public row but the three whose steps take longest to simulate (A100 and NVFP4
    // rows: what they inform, one model family informs): on fewer, the fit would leave more
    // at its default, and "unchanged" would not be the deadline's doing.
    std::vector<MeasuredRun> rows = publicMeasuredRuns();
    std::erase_if(rows, [](const MeasuredRun& r) {
        return r.id == "korthikanti_530B" || r.id == "sc21_t1_1008.0B" ||
               r.id == "nemo_bridge_26.06_DGX-GB200_LLAMA3.1_405B_256gpu_NVFP4";
    });
    REQUIRE(rows.size() == publicMeasuredRuns().size() - 3);
    FitOptions options;
    options.deadline = std::chrono::steady_clock::now();
    std::vector<std::string> lines;
    options.progress = [&](const std::string& line) { lines.push_back(line); };
    const Fit fit = calibrate(rows, defaultCalibration(), options);
    CHECK(fit.stoppedEarly);
    CHECK(fit.sweeps == 0);
    CHECK(fit.calibration == defaultCalibration());
    CHECK(fit.rows.size() == rows.size());
    REQUIRE_FALSE(lines.empty());
    CHECK_THAT(lines.back(), Catch::Contains("stopped at the time limit"));
    // Cross-validation starts no family once the time is gone.
    CHECK(crossValidate(rows, fit.calibration, options).empty());
}

TEST_CASE("calibrate --max-seconds prints and writes the best constants so far, and says so",
          "[calibration][deadline][cli][slow]")
{
    testing::ScratchDir dir;
    const std::string output = dir.path("cal.json");
    const CliRun r =
        runCli({"calibrate", std::string(CS_SHARED_DIR) + "/reference/validation/public.jsonl",
                std::string(CS_SHARED_DIR) + "/reference/validation/moe-public.jsonl",
                "--max-seconds", "0.001", "-o", output});
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("Stopped early after 0.001 s (--max-seconds)") &&
                          Catch::Contains("wrote "));
    // What informs each constant is known before the first sweep, so a fit stopped at once
    // still names it.
    CHECK_THAT(r.out, Catch::Contains("what informs each constant") &&
                          Catch::Contains("1 family: GPT-3 alone: not fitted"));
    Diagnostics diags;
    const std::optional<Calibration> written = readCalibration(output, diags);
    INFO(diags.formatAll());
    REQUIRE(written);
    CHECK(*written == defaultCalibration());
}
