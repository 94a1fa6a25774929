#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "jobs.h"
#include "samplefiles.h"

using namespace cs;

TEST_CASE("every sample passes check", "[samples]")
{
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(CS_SAMPLES_DIR))
        if (e.is_regular_file()) // measured/ holds the measured runs that ship
            files.push_back(e.path().string());
    REQUIRE(files.size() >= 12);
    std::ostringstream out, err;
    CHECK(cli::run(
              [&] {
                  cli::Args a{"check"};
                  a.insert(a.end(), files.begin(), files.end());
                  return a;
              }(),
              {out, err}) == cli::kExitOk);
    INFO(out.str() << err.str());
    CHECK(out.str().find("ok (session)") != std::string::npos);
}

TEST_CASE("every sample names its sources and assumptions", "[samples]")
{
    for (const auto& e : std::filesystem::directory_iterator(CS_SAMPLES_DIR)) {
        if (!e.is_regular_file())
            continue;
        const LoadedFile f = loadSample(e.path().filename().string());
        INFO(e.path());
        const nlohmann::json& ext = f.kind == FileKind::Cluster ? f.cluster->extensions.value()
                                    : f.kind == FileKind::Run   ? f.run->extensions.value()
                                                                : f.session->extensions.value();
        REQUIRE(ext.contains("notes"));
        CHECK(ext["notes"].get<std::string>().size() > 60);
    }
}

TEST_CASE("a session survives load, save, load unchanged", "[samples][session]")
{
    for (const char* name :
         {"fairwater-gb200-128.csession", "ndv5-h100-1344-gpt3-175b.csession",
          "gb200-16-deepseek-v3.csession", "ndv5-h100-128-three-jobs-placed-badly.csession",
          "ndv5-h100-128-three-jobs-placed-well.csession"}) {
        const Session original = *loadSample(name).session;
        Diagnostics diags;
        const auto reparsed = parseJson(toJson(original).dump(2), "saved.csession", diags);
        REQUIRE(reparsed);
        const auto again = sessionFromJson(*reparsed, "saved.csession", diags);
        INFO(diags.formatAll());
        REQUIRE(again);
        CHECK(*again == original);
        CHECK(again->bookmarks.size() == original.bookmarks.size());
    }
}

TEST_CASE("the record runs' sessions embed the same cluster and run as the sample files",
          "[samples]")
{
    const Session s = *loadSample("fairwater-gb200-128.csession").session;
    const LoadedFile run = loadSample("fairwater-gb200-128-llama405b.run.json");
    CHECK(s.cluster == *run.cluster);
    RunDesc embedded = s.run;
    embedded.clusterPath = run.run->clusterPath;
    CHECK(embedded == *run.run);
    REQUIRE(s.compare);
    CHECK(s.compare->cluster.racks == 112);
}

TEST_CASE("the MoE session embeds the EP-inside-racks run and compares the EP-across-racks run",
          "[samples][moe]")
{
    const Session s = *loadSample("gb200-16-deepseek-v3.csession").session;
    REQUIRE(s.compare);
    for (const auto& [name, desc] :
         {std::pair{"gb200-16-deepseek-v3.run.json", ClusterRun{s.cluster, s.run}},
          std::pair{"gb200-16-deepseek-v3-ep-across-racks.run.json", *s.compare}}) {
        INFO(name);
        const LoadedFile run = loadSample(name);
        CHECK(desc.cluster == *run.cluster);
        RunDesc embedded = desc.run;
        embedded.clusterPath = run.run->clusterPath;
        CHECK(embedded == *run.run);
    }
}

TEST_CASE("the three-job sample: the run files placed badly, and each job alone when placed well",
          "[samples][jobs]")
{
    const char* const files[] = {"ndv5-h100-128-jobs-gpt3-175b.run.json",
                                 "ndv5-h100-128-jobs-llama3-70b.run.json",
                                 "ndv5-h100-128-jobs-llama3-8b.run.json"};
    const SampleJobs bad = loadSampleJobs("ndv5-h100-128-three-jobs-placed-badly.csession");
    const SampleJobs well = loadSampleJobs("ndv5-h100-128-three-jobs-placed-well.csession");
    REQUIRE(bad.runs.size() == 3);
    REQUIRE(well.runs.size() == 3);
    CHECK(bad.cluster.scaleOut.topology.oversubscriptionAt(0) == 4.0);
    for (size_t j = 0; j < 3; ++j) {
        INFO(files[j]);
        const LoadedFile file = loadSample(files[j]);
        CHECK(*file.cluster == bad.cluster);
        RunDesc embedded = bad.runs[j];
        embedded.clusterPath = file.run->clusterPath;
        CHECK(embedded == *file.run);
        embedded.allocation = well.runs[j].allocation;
        embedded.clusterPath.clear();
        CHECK(embedded == well.runs[j]); // the same jobs, on other racks
    }
    for (const SampleJobs* placed : {&bad, &well}) {
        const JobsEvaluation e = evaluateJobs(placed->cluster, placed->runs, {nullptr, false});
        for (const JobResult& r : e.jobs) {
            CHECK(r.alone.fitsMemory);
            CHECK(r.shared.stepTimeS >= r.alone.stepTimeS * (1 - 1e-9));
            if (placed == &well) // on leaves of its own
                CHECK(r.shared.stepTimeS <= r.alone.stepTimeS * 1.005);
        }
    }
}

TEST_CASE("describe says which dimensions cross the fabric", "[samples][cli]")
{
    std::ostringstream out, err;
    REQUIRE(cli::run({"describe", samplePath("fairwater-gb200-128-llama405b.run.json")},
                     {out, err}) == cli::kExitOk);
    const std::string text = out.str();
    INFO(text);
    CHECK(text.find("8,192 GB200") != std::string::npos);
    CHECK(text.find("TP groups of 4: inside one NVLink domain each") != std::string::npos);
    CHECK(text.find("PP groups of 8: inside one NVLink domain each") != std::string::npos);
    CHECK(text.find("DP groups of 128: cross the fabric") != std::string::npos);
    CHECK(text.find("15 to 16 layers per stage, the embedding and the loss counted as a layer "
                    "each") != std::string::npos);
    CHECK(text.find("embedding alone") == std::string::npos);
}

TEST_CASE("describe gives a model's experts and its attention", "[samples][cli]")
{
    std::ostringstream out, err;
    REQUIRE(cli::run({"describe", samplePath("gb200-16-deepseek-v3.run.json")}, {out, err}) ==
            cli::kExitOk);
    const std::string text = out.str();
    INFO(text);
    CHECK(text.find("sequence 4,096, 1 MTP layer\n") != std::string::npos);
    CHECK(text.find("  attention       multi-head latent attention: keys and values compressed "
                    "to rank 512, queries to 1,536") != std::string::npos);
    CHECK(text.find("  experts         256 of width 2,048, 8 a token, 1 shared of width 2,048; "
                    "the first 3 layers dense (FFN 18,432); dropless; a token's experts from 4 "
                    "of 8 groups (group-limited routing)\n") != std::string::npos);

    // Sliding windows, and a capacity past which tokens are dropped.
    nlohmann::json run =
        nlohmann::json::parse(std::ifstream(samplePath("gb200-16-deepseek-v3.run.json")));
    run["cluster"] = samplePath("gb200-nvl72-16.cluster.json");
    run["model"]["attention"] = {{"kind", "sliding_window"}, {"window", 128}, {"every", 2}};
    run["model"]["head_dim"] = 128;
    run["model"]["moe"]["capacity_factor"] = 1.25;
    run.erase("x-moe_router_num_groups"); // any expert for any token: no groups named
    const std::string file =
        (std::filesystem::temp_directory_path() / "cs-describe-window.run.json").string();
    std::ofstream(file) << run.dump();
    std::ostringstream window;
    REQUIRE(cli::run({"describe", file}, {window, err}) == cli::kExitOk);
    std::filesystem::remove(file);
    INFO(window.str() << err.str());
    CHECK(window.str().find("  attention       sliding-window attention: 128 tokens on one layer "
                            "in 2, the others full\n") != std::string::npos);
    CHECK(window.str().find("; tokens dropped past capacity factor 1.25\n") != std::string::npos);
    CHECK(window.str().find("group-limited") == std::string::npos);

    // A dense model with grouped-query attention has neither line.
    std::ostringstream dense;
    REQUIRE(cli::run({"describe", samplePath("fairwater-gb200-128-llama405b.run.json")},
                     {dense, err}) == cli::kExitOk);
    CHECK(dense.str().find("  experts ") == std::string::npos);
    CHECK(dense.str().find("  attention ") == std::string::npos);
}

TEST_CASE("describe says when the embedding and the loss take a virtual stage each",
          "[samples][cli]")
{
    // The Fairwater run's 126 layers on 16 x 8 virtual stages, as the 405B NVFP4 recipes lay them.
    nlohmann::json run =
        nlohmann::json::parse(std::ifstream(samplePath("fairwater-gb200-128-llama405b.run.json")));
    run["cluster"] = samplePath("fairwater-gb200-128.cluster.json");
    run["parallelism"]["tp"] = 2;
    run["parallelism"]["pp"] = 16;
    const std::string file = (std::filesystem::temp_directory_path() / "cs-pp16.run.json").string();
    std::ofstream(file) << run.dump();
    std::ostringstream out, err;
    REQUIRE(cli::run({"describe", file}, {out, err}) == cli::kExitOk);
    std::filesystem::remove(file);
    INFO(out.str() << err.str());
    CHECK(out.str().find("126 layers over 16 stages x 8 virtual chunks: 7 to 8 layers per stage") !=
          std::string::npos);
    CHECK(out.str().find("the first virtual stage holds the embedding alone, the last the loss") !=
          std::string::npos);
}

TEST_CASE("the command line's usage errors exit 2", "[cli]")
{
    std::ostringstream out, err;
    CHECK(cli::run({}, {out, err}) == cli::kExitUsage);
    CHECK(cli::run({"frobnicate"}, {out, err}) == cli::kExitUsage);
    CHECK(cli::run({"check"}, {out, err}) == cli::kExitUsage);
    CHECK(cli::run({"check", "--bogus", "x"}, {out, err}) == cli::kExitUsage);
    CHECK(cli::run({"--help"}, {out, err}) == cli::kExitOk);
    CHECK(out.str().find("validate-runs") != std::string::npos);
}
