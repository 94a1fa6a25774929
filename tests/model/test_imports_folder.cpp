// A folder of training logs read as measured runs: each log on its own, a refused one reported
// by name without losing the others.

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "importdata.h"
#include "logfolder.h"
#include "samplefiles.h"
#include "steptimes.h"

using namespace cs;
namespace fs = std::filesystem;

namespace {

struct TempLogFolder {
    fs::path path;
    TempLogFolder()
        : path(fs::temp_directory_path() /
               ("cs-logfolder-" + std::to_string(reinterpret_cast<uintptr_t>(this))))
    {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempLogFolder() { fs::remove_all(path); }
    void copy(const std::string& name, const std::string& as) const
    {
        fs::copy_file(importPath(name), path / as);
    }
    void write(const std::string& name, const std::string& text) const
    {
        std::ofstream(path / name) << text;
    }
};

} // namespace

TEST_CASE("a folder of logs gives a measured run per log, and lists the refused ones by file",
          "[imports][folder]")
{
    const LoadedFile sample = loadSample("ndv5-h100-1344-gpt3-175b.run.json");
    TempLogFolder folder;
    folder.copy("gpt3-175b-ndv5.sbatch", "a-scripted.sbatch");
    folder.copy("gpt3-175b-ndv5.log", "a-scripted.log");
    folder.copy("gpt3-175b-ndv5.log", "b-alone.log");
    folder.write("c-broken.log", "loading data\nno iteration finished\n");
    folder.write("readme.md", "not a log");
    ImportReport report;
    const std::vector<MeasuredRun> runs =
        importLogFolder(folder.path.string(), *sample.cluster, *sample.run, report);
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].id == "a-scripted.log");
    CHECK(runs[1].id == "b-alone.log");
    for (const MeasuredRun& r : runs) {
        REQUIRE(r.run.measured);
        CHECK(r.run.measured->stepTimeS == Approx(0.945).epsilon(1e-9));
        CHECK(measuredStepTimes(r.run).size() == 31);
        CHECK(r.run.parallelism == sample.run->parallelism);
    }
    CHECK(runs[1].run.model == sample.run->model); // the current run, measured by the log
    INFO(report.errors.formatAll());
    REQUIRE(report.errors.size() == 1);
    CHECK(hasLine(report.errors, {"c-broken.log"}));
}

TEST_CASE("a log whose run does not fit the cluster is refused with the cluster's rule",
          "[imports][folder]")
{
    const LoadedFile small = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    TempLogFolder folder;
    folder.copy("gpt3-175b-ndv5.sbatch", "big.sbatch");
    folder.copy("gpt3-175b-ndv5.log", "big.log");
    ImportReport report;
    CHECK(importLogFolder(folder.path.string(), *small.cluster, *small.run, report).empty());
    CHECK(hasLine(report.errors, {"big"}));
}

TEST_CASE("a folder that cannot be read, or holds no logs, says so", "[imports][folder]")
{
    const LoadedFile sample = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    TempLogFolder folder;
    ImportReport empty;
    CHECK(importLogFolder(folder.path.string(), *sample.cluster, *sample.run, empty).empty());
    CHECK(hasLine(empty.errors, {"no training logs"}));
    ImportReport missing;
    CHECK(importLogFolder((folder.path / "nothing").string(), *sample.cluster, *sample.run, missing)
              .empty());
    CHECK(hasLine(missing.errors, {"cannot read the folder"}));
}

TEST_CASE("a folder of more than 1,000 logs reads the first 1,000 and says so", "[imports][folder]")
{
    const LoadedFile sample = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    TempLogFolder folder;
    for (size_t i = 0; i <= kMaxFolderLogs; ++i)
        folder.write("run" + std::to_string(10000 + i) + ".log", "");
    ImportReport report;
    CHECK(importLogFolder(folder.path.string(), *sample.cluster, *sample.run, report).empty());
    CHECK(hasLine(report.errors, {"holds 1001 logs; the first 1000 are read"}));
    // Each log read is refused on its own (empty): one line each, none for the logs left out.
    CHECK(report.errors.size() == kMaxFolderLogs + 1);
}

TEST_CASE("a log of a million iterations keeps an even sample of its step times, as an import "
          "does",
          "[imports][folder]")
{
    const LoadedFile sample = loadSample("ndv5-h100-1344-gpt3-175b.run.json");
    TempLogFolder folder;
    const int iterations = 1100000; // past the 1,048,576 JSON values of a run file
    std::string log;
    log.reserve(size_t(iterations) * 48);
    for (int it = 1; it <= iterations; ++it)
        log += "iteration " + std::to_string(it) +
               " | elapsed time per iteration (ms): " + (it % 2 ? "945.0" : "946.0") + "\n";
    folder.write("long.log", log);
    ImportReport report;
    const std::vector<MeasuredRun> runs =
        importLogFolder(folder.path.string(), *sample.cluster, *sample.run, report);
    INFO(report.errors.formatAll());
    REQUIRE(runs.size() == 1);
    CHECK(measuredStepTimes(runs[0].run).size() == kMaxKeptStepTimes);
    CHECK(hasLine(report.notes, {"long.log", "evenly spaced"}));
}
