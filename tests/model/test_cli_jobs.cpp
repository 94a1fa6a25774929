// Several jobs on one cluster on the command line: evaluate and links with several RUNs
// (formats.md "Several jobs on one cluster"), and the same commands with one RUN unchanged.

#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "../helpers/datasafety.h"
#include "clirun.h"
#include "costmodel.h"
#include "samplefiles.h"

using nlohmann::json;
using testing::ScratchDir;

namespace {

const std::string kCluster = samplePath("ndv5-h100-128-4to1.cluster.json");

std::vector<std::string> sampleJobs()
{
    return {samplePath("ndv5-h100-128-jobs-gpt3-175b.run.json"),
            samplePath("ndv5-h100-128-jobs-llama3-70b.run.json"),
            samplePath("ndv5-h100-128-jobs-llama3-8b.run.json")};
}

cs::cli::Args words(std::vector<std::string> head, const std::vector<std::string>& runs,
                    std::vector<std::string> tail = {})
{
    head.insert(head.end(), runs.begin(), runs.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

// A copy of a sample job in `dir` with another allocation of racks.
std::string withRacks(const ScratchDir& dir, const std::string& runFile, int first, int last)
{
    json run = json::parse(std::ifstream(runFile));
    run["cluster"] = kCluster;
    run["allocation"] = {{"racks", {{first, last}}}};
    const std::string path =
        dir.path(std::to_string(first) + "-" + std::to_string(last) + ".run.json");
    std::ofstream(path) << run.dump(2);
    return path;
}

} // namespace

TEST_CASE("with one RUN, evaluate and links print what they printed before several jobs",
          "[cli][jobs]")
{
    const std::string cluster = samplePath("ndv5-h100-128.cluster.json");
    const std::string run = samplePath("ndv5-h100-128-gpt3-175b.run.json");
    const cs::ClusterRun loaded = loadSampleRun("ndv5-h100-128-gpt3-175b.run.json");
    const double step = cs::evaluate(loaded.cluster, loaded.run).stepTimeS;

    const CliRun text = runCli({"evaluate", cluster, run});
    REQUIRE(text.status == cs::cli::kExitOk);
    CHECK(text.out.rfind("step time          ", 0) == 0);
    CHECK(text.out.find("slowed by") == std::string::npos);

    const CliRun asJson = runCli({"evaluate", cluster, run, "--json"});
    REQUIRE(asJson.status == cs::cli::kExitOk);
    const json j = json::parse(asJson.out);
    CHECK_FALSE(j.contains("jobs"));
    CHECK(j.at("step_time_s").get<double>() == step);

    const CliRun links = runCli({"links", cluster, run, "--json", "--top", "5"});
    REQUIRE(links.status == cs::cli::kExitOk);
    const json l = json::parse(links.out);
    CHECK(l.at("step_time_s").get<double>() == step);
    CHECK_FALSE(l.contains("jobs"));
    for (const json& link : l.at("links"))
        CHECK_FALSE(link.contains("jobs"));
    const CliRun linksText = runCli({"links", cluster, run});
    CHECK(linksText.out.rfind("step time ", 0) == 0);
    CHECK(linksText.out.find("  jobs\n") == std::string::npos);
}

TEST_CASE("evaluate with several RUNs gives each job as for one, and who slows it", "[cli][jobs]")
{
    const CliRun r = runCli(words({"evaluate", kCluster}, sampleJobs(), {"--json"}));
    INFO(r.err);
    REQUIRE(r.status == cs::cli::kExitOk);
    const json jobs = json::parse(r.out).at("jobs");
    REQUIRE(jobs.size() == 3);
    std::vector<std::string> names;
    for (const json& job : jobs)
        names.push_back(job.at("name"));
    for (size_t i = 0; i < jobs.size(); ++i) {
        const json& job = jobs[i];
        INFO(names[i]);
        for (const char* key : {"step_time_s", "breakdown", "comm_total_s", "mfu", "tokens_per_s",
                                "memory_gib_per_gpu", "fits_memory", "step_time_alone_s"})
            CHECK(job.contains(key));
        CHECK(job.at("allocation").contains("racks"));
        CHECK(job.at("step_time_s").get<double>() >=
              job.at("step_time_alone_s").get<double>() * (1 - 1e-12));
        const json& slowedBy = job.at("slowed_by");
        CHECK(slowedBy.size() == 2);
        CHECK_FALSE(slowedBy.contains(names[i]));
        for (size_t other = 0; other < names.size(); ++other)
            if (other != i)
                CHECK(slowedBy.at(names[other]).get<double>() >= 0);
    }

    const CliRun table = runCli(words({"evaluate", kCluster}, sampleJobs()));
    REQUIRE(table.status == cs::cli::kExitOk);
    CHECK(table.out.rfind("job ", 0) == 0);
    CHECK(table.out.find("racks 4-5, 12-13, 20-21, 28-29") != std::string::npos);
}

TEST_CASE("links with several RUNs names the jobs on each link", "[cli][jobs]")
{
    const CliRun r = runCli(words({"links", kCluster}, sampleJobs(), {"--json", "--top", "50"}));
    INFO(r.err);
    REQUIRE(r.status == cs::cli::kExitOk);
    const json j = json::parse(r.out);
    REQUIRE(j.at("jobs").size() == 3);
    std::set<std::string> names;
    for (const json& job : j.at("jobs")) {
        names.insert(job.at("name").get<std::string>());
        CHECK(job.at("step_time_s").get<double>() > 0);
    }
    size_t carrying = 0;
    for (const json& link : j.at("links")) {
        for (const json& name : link.at("jobs"))
            CHECK(names.count(name.get<std::string>()) == 1);
        carrying += link.at("jobs").empty() ? 0 : 1;
    }
    CHECK(carrying > 0);
    const CliRun text = runCli(words({"links", kCluster}, sampleJobs()));
    CHECK(text.out.find("  jobs\n") != std::string::npos);
}

TEST_CASE("overlapping allocations are refused, naming both jobs and the shared node",
          "[cli][jobs]")
{
    ScratchDir dir;
    const std::vector<std::string> runs = sampleJobs();
    const std::string a = withRacks(dir, runs[0], 0, 15);
    const std::string b = withRacks(dir, runs[1], 15, 22);
    for (const char* command : {"evaluate", "links"}) {
        INFO(command);
        const CliRun r = runCli({command, kCluster, a, b});
        CHECK(r.status == cs::cli::kExitBadInput);
        CHECK(r.out.empty());
        CHECK(r.err.find("GPT-3 175B on 512 H100") != std::string::npos);
        CHECK(r.err.find("Llama 3 70B on 256 H100") != std::string::npos);
        CHECK(r.err.find("node 60") != std::string::npos);
    }
}

TEST_CASE("more runs than jobs evaluated together are refused before any is read", "[cli][jobs]")
{
    // Files that do not exist: the count is refused first.
    const std::vector<std::string> runs(65, "/nonexistent/run.json");
    for (const char* command : {"evaluate", "links"}) {
        const CliRun r = runCli(words({command, kCluster}, runs));
        CHECK(r.status == cs::cli::kExitBadInput);
        CHECK(r.err.find("65 runs; at most 64 jobs") != std::string::npos);
        CHECK(r.err.find("nonexistent") == std::string::npos);
    }
}
