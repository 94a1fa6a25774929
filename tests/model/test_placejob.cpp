// Where the next job goes (model/search/placejob.h, clusterscope-cli place): free allocations
// that fit, best first, none over a running job; and a clear refusal when nothing fits.

#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "../helpers/datasafety.h"

#include "clirun.h"
#include "jobs.h"
#include "placejob.h"
#include "samplefiles.h"

using namespace cs;
using nlohmann::json;
using testing::ScratchDir;

namespace {

const char* const kGpt3 = "ndv5-h100-128-jobs-gpt3-175b.run.json";
const char* const kLlama70b = "ndv5-h100-128-jobs-llama3-70b.run.json";
const char* const kLlama8b = "ndv5-h100-128-jobs-llama3-8b.run.json";

RunDesc onRacks(RunDesc run, int first, int last)
{
    run.allocation = Allocation{Allocation::Unit::Racks, {{first, last}}};
    return run;
}

// The nodes an allocation holds on the sample cluster (4 nodes a rack).
std::vector<bool> nodesOf(const ClusterDesc& cluster, const Allocation& a)
{
    std::vector<bool> held(size_t(cluster.nodeCount()), false);
    for (const auto& [first, end] : allocatedGpuRanges(cluster, a))
        for (int64_t g = first; g < end; ++g)
            held[size_t(g / cluster.gpusPerNode)] = true;
    return held;
}

bool overlaps(const ClusterDesc& cluster, const Allocation& a, const Allocation& b)
{
    const std::vector<bool> x = nodesOf(cluster, a), y = nodesOf(cluster, b);
    for (size_t n = 0; n < x.size(); ++n)
        if (x[n] && y[n])
            return true;
    return false;
}

} // namespace

TEST_CASE("placements are free, fit, and come best first", "[placejob][jobs]")
{
    const ClusterRun gpt = loadSampleRun(kGpt3);
    const ClusterDesc& cluster = gpt.cluster;
    // GPT-3 on racks 0-15 and Llama 3 70B on 16-23 leave racks 24-31 (leaves 6 and 7) free.
    const std::vector<RunDesc> running{onRacks(gpt.run, 0, 15),
                                       onRacks(loadSampleRun(kLlama70b).run, 16, 23)};
    const RunDesc job = loadSampleRun(kLlama8b).run; // 128 GPUs: 4 racks
    const PlaceJobResult placed = placeJob(cluster, job, running);
    INFO(placed.nothingFits);
    REQUIRE_FALSE(placed.placements.empty());
    CHECK(placed.candidatesFound == int(placed.placements.size()));
    // Racks 24 to 28 start a free range of 4; 24 is a leaf's first rack.
    CHECK(placed.placements.size() == 5);
    for (size_t i = 0; i < placed.placements.size(); ++i) {
        const JobPlacement& p = placed.placements[i];
        INFO(allocationText(p.allocation));
        REQUIRE(p.allocation.unit == Allocation::Unit::Racks);
        REQUIRE(p.allocation.ranges.size() == 1);
        CHECK(p.allocation.ranges[0].first >= 24);
        CHECK(p.allocation.ranges[0].second <= 31);
        CHECK(p.allocation.ranges[0].second - p.allocation.ranges[0].first == 3);
        for (const RunDesc& other : running)
            CHECK_FALSE(overlaps(cluster, p.allocation, *other.allocation));
        CHECK(p.stepTimeS > 0);
        if (i > 0)
            CHECK(placed.placements[i - 1].costS() <= p.costS() + 1e-6);
        // The placed job is valid beside the others.
        std::vector<RunDesc> all = running;
        all.push_back(onRacks(job, p.allocation.ranges[0].first, p.allocation.ranges[0].second));
        Diagnostics diags;
        checkJobs(cluster, all, std::vector<RunSource>(all.size(), RunSource{"t", ""}), diags);
        CHECK(diags.formatAll().empty());
    }
    // A whole leaf beats a range that straddles two at the same cost.
    CHECK(placed.placements.front().leaves == 1);

    // Past the bound, the leaf's start and others spread over the rest are timed.
    PlaceJobOptions bounded;
    bounded.maxCandidates = 3;
    const PlaceJobResult few = placeJob(cluster, job, running, bounded);
    CHECK(few.candidatesFound == 5);
    REQUIRE(few.placements.size() == 3);
    std::set<int> firsts;
    for (const JobPlacement& p : few.placements)
        firsts.insert(p.allocation.ranges[0].first);
    CHECK(firsts == std::set<int>{24, 25, 27});
}

TEST_CASE("a job smaller than a rack is offered ranges of nodes on a cluster of 8-GPU domains",
          "[placejob][jobs]")
{
    const ClusterRun gpt = loadSampleRun(kGpt3);
    RunDesc small = loadSampleRun(kLlama8b).run;
    small.parallelism.dp = 16; // 2 nodes
    small.batch.global = 256;
    const PlaceJobResult placed = placeJob(gpt.cluster, small, {onRacks(gpt.run, 0, 29)});
    REQUIRE_FALSE(placed.placements.empty());
    bool nodes = false;
    for (const JobPlacement& p : placed.placements) {
        nodes = nodes || p.allocation.unit == Allocation::Unit::Nodes;
        CHECK(nodesOf(gpt.cluster, p.allocation).size() == 128);
        CHECK_FALSE(
            overlaps(gpt.cluster, p.allocation, Allocation{Allocation::Unit::Racks, {{0, 29}}}));
    }
    CHECK(nodes);
    // At the same cost, the allocation that holds fewer GPUs: 2 nodes, not the whole rack.
    CHECK(placed.placements.front().gpusHeld == 16);
}

TEST_CASE("place refuses clearly when nothing fits", "[placejob][jobs]")
{
    const ClusterRun gpt = loadSampleRun(kGpt3);
    // The badly placed sample leaves one rack free in every four: 16 racks never fit.
    const std::vector<RunDesc> running{loadSampleRun(kLlama70b).run, loadSampleRun(kLlama8b).run};
    const PlaceJobResult placed = placeJob(gpt.cluster, gpt.run, running);
    CHECK(placed.placements.empty());
    CHECK(placed.nothingFits.find("512 GPUs") != std::string::npos);
    CHECK(placed.nothingFits.find("free") != std::string::npos);

    // The cost model names a link's jobs in 64 bits: a 65th job is refused before any work.
    std::vector<RunDesc> many(size_t(kMaxJobs), loadSampleRun(kLlama8b).run);
    for (size_t j = 0; j < many.size(); ++j)
        many[j].allocation = Allocation{Allocation::Unit::Nodes, {{int(2 * j), int(2 * j + 1)}}};
    CHECK(placeJob(gpt.cluster, gpt.run, many).nothingFits.find("at most 64") != std::string::npos);

    RunDesc whole = gpt.run;
    whole.allocation.reset();
    CHECK(placeJob(gpt.cluster, gpt.run, {whole}).nothingFits.find("holds the whole cluster") !=
          std::string::npos);

    RunDesc noDp = gpt.run;
    noDp.parallelism.dp = 0;
    CHECK(placeJob(gpt.cluster, noDp, running).nothingFits.find("parallelism.dp") !=
          std::string::npos);

    const CliRun r =
        runCli({"place", samplePath("ndv5-h100-128-4to1.cluster.json"), samplePath(kGpt3),
                "--beside", samplePath(kLlama70b), samplePath(kLlama8b)});
    CHECK(r.status == cs::cli::kExitBadInput);
    CHECK(r.out.empty());
    CHECK(r.err.find("cannot be placed") != std::string::npos);
}

TEST_CASE("place on the command line: placements best first, in JSON and in words",
          "[placejob][cli][jobs]")
{
    const std::string cluster = samplePath("ndv5-h100-128-4to1.cluster.json");
    // GPT-3 on racks 0-15 and Llama 3 8B on 24-27: Llama 3 70B fits on 16-23 only.
    ScratchDir dir;
    const auto onRacksFile = [&](const char* sample, int first, int last) {
        json run = json::parse(std::ifstream(samplePath(sample)));
        run["cluster"] = cluster;
        run["allocation"] = {{"racks", {{first, last}}}};
        const std::string path = dir.path(std::string("on-") + sample);
        std::ofstream(path) << run.dump(2);
        return path;
    };
    const std::vector<std::string> beside{onRacksFile(kGpt3, 0, 15), onRacksFile(kLlama8b, 24, 27)};
    const CliRun j = runCli(
        {"place", cluster, samplePath(kLlama70b), "--beside", beside[0], beside[1], "--json"});
    INFO(j.err);
    REQUIRE(j.status == cs::cli::kExitOk);
    const json placements = json::parse(j.out).at("placements");
    REQUIRE(placements.size() == 1);
    CHECK(placements[0].at("allocation") == json{{"racks", {{16, 23}}}});
    CHECK(placements[0].at("step_time_s").get<double>() > 0);
    CHECK(placements[0].at("others_slowed_s").get<double>() >= 0);

    const CliRun text =
        runCli({"place", cluster, samplePath(kLlama70b), "--beside", beside[0], beside[1]});
    REQUIRE(text.status == cs::cli::kExitOk);
    CHECK(text.out.find("1. racks 16-23: its step ") != std::string::npos);

    CHECK(runCli({"place", cluster, samplePath(kLlama70b)}).status == cs::cli::kExitUsage);
    CHECK(runCli({"place", cluster, samplePath(kLlama70b), "--beside"}).status ==
          cs::cli::kExitUsage);
    const CliRun noRuns = runCli({"place", cluster, samplePath(kLlama70b), "--beside", "--json"});
    CHECK(noRuns.status == cs::cli::kExitUsage);
    CHECK(noRuns.err.find("--beside needs RUN...") != std::string::npos);
}

TEST_CASE("an allocation in words", "[placejob]")
{
    using U = Allocation::Unit;
    CHECK(allocationText({U::Racks, {{8, 15}}}) == "racks 8-15");
    CHECK(allocationText({U::Nodes, {{12, 12}}}) == "node 12");
    CHECK(allocationText({U::Racks, {{0, 3}, {8, 11}}}) == "racks 0-3, 8-11");
}

TEST_CASE("place reports its progress and stops between candidates when cancelled",
          "[placejob][jobs]")
{
    const ClusterRun gpt = loadSampleRun(kGpt3);
    const std::vector<RunDesc> running{onRacks(gpt.run, 0, 15),
                                       onRacks(loadSampleRun(kLlama70b).run, 16, 23)};
    const RunDesc job = loadSampleRun(kLlama8b).run;

    std::vector<std::pair<int, int>> reports;
    PlaceJobOptions watched;
    watched.progress = [&](int done, int total) { reports.emplace_back(done, total); };
    const PlaceJobResult all = placeJob(gpt.cluster, job, running, watched);
    REQUIRE(all.placements.size() == 5);
    CHECK_FALSE(all.cancelled);
    // Before each of the five candidates, then at the end.
    REQUIRE(reports.size() == 6);
    for (size_t i = 0; i < reports.size(); ++i)
        CHECK(reports[i] == std::pair<int, int>(int(i), 5));

    // Cancelled after the second candidate: nothing ranked, and it says so.
    std::atomic<bool> cancel{false};
    PlaceJobOptions cancelled;
    cancelled.cancel = &cancel;
    int seen = 0;
    cancelled.progress = [&](int done, int) {
        seen = done;
        if (done == 2)
            cancel = true;
    };
    const PlaceJobResult stopped = placeJob(gpt.cluster, job, running, cancelled);
    CHECK(stopped.cancelled);
    CHECK(stopped.placements.empty());
    CHECK(seen == 2);
}
