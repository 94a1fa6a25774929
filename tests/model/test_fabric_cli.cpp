// clusterscope-cli describe --json, links and the fabric's refusals, as formats.md says.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "clirun.h"
#include "fabricclusters.h"
#include "samplefiles.h"

using namespace cs;
using nlohmann::json;

namespace {

json parsed(const CliRun& r)
{
    INFO(r.err);
    REQUIRE(r.status == cli::kExitOk);
    return json::parse(r.out);
}

std::string written(const std::string& name, const json& content)
{
    const std::string path =
        (std::filesystem::temp_directory_path() / ("cs-fabric-" + name)).string();
    std::ofstream(path) << content.dump(2);
    return path;
}

const std::string kFairwater = samplePath("fairwater-gb200-128.cluster.json");
const std::string kFairwaterRun = samplePath("fairwater-gb200-128-llama405b.run.json");

} // namespace

TEST_CASE("describe --json: counts, every switch and link by name and tier", "[fabric][cli]")
{
    const json d = parsed(runCli({"describe", kFairwater, "--json"}));
    CHECK(d["kind"] == "cluster");
    const json& counts = d["counts"];
    CHECK(counts["gpus"] == 8192);
    CHECK(counts["leaves"] == 256);
    CHECK(counts["spines"] == 32);
    CHECK(counts["cores"] == 0);
    CHECK(counts["links"]["nvlink"] == 8192 * 9);
    const std::set<std::string> switchTiers{"leaf", "spine", "core"};
    const std::set<std::string> linkTiers{"nvlink", "nic", "leaf-spine", "spine-core"};
    std::set<std::string> names;
    std::map<std::string, int> perTier;
    for (const json& s : d["switches"]) {
        REQUIRE(s["name"].is_string());
        REQUIRE(switchTiers.count(s["tier"].get<std::string>()) == 1);
        names.insert(s["name"].get<std::string>());
        ++perTier[s["tier"].get<std::string>()];
    }
    for (const json& l : d["links"]) {
        REQUIRE(l["name"].is_string());
        REQUIRE(linkTiers.count(l["tier"].get<std::string>()) == 1);
        names.insert(l["name"].get<std::string>());
        ++perTier[l["tier"].get<std::string>()];
    }
    CHECK(names.size() == d["switches"].size() + d["links"].size());
    CHECK(perTier["leaf"] == 256);
    CHECK(perTier["spine"] == 32);
    CHECK(perTier["nic"] == counts["links"]["nic"]);
    CHECK(perTier["leaf-spine"] == counts["links"]["leaf-spine"]);
    CHECK(d["nvswitches"].size() == counts["nvswitches"]);

    SECTION("the names it lists are the names failures accept")
    {
        json cluster = json::parse(std::ifstream(kFairwater));
        cluster["failures"] = {
            {"switches",
             {d["switches"][3]["name"], d["switches"][260]["name"], d["nvswitches"][20]["name"]}},
            {"links",
             {d["links"][0]["name"], d["links"][74000]["name"], d["links"].back()["name"]}}};
        const std::string path = written("named.cluster.json", cluster);
        const CliRun checked = runCli({"check", path});
        INFO(checked.out);
        CHECK(checked.status == cli::kExitOk);
        // ...and describe marks them out of service.
        const json again = parsed(runCli({"describe", path, "--json"}));
        CHECK(again["switches"][3]["out_of_service"] == true);
        CHECK(again["links"][74000]["out_of_service"] == true);
        CHECK_FALSE(again["switches"][4].contains("out_of_service"));
    }
    SECTION("several files: an array")
    {
        const json both = parsed(
            runCli({"describe", kFairwater, samplePath("ndv5-h100-1344.cluster.json"), "--json"}));
        REQUIRE(both.is_array());
        REQUIRE(both.size() == 2);
        CHECK(both[1]["counts"]["cores"] == 256);
        CHECK(both[1]["links"].back()["tier"] == "spine-core");
    }
}

TEST_CASE("links --json: every link's step traffic and each tier's", "[fabric][cli]")
{
    const json j = parsed(runCli({"links", kFairwater, kFairwaterRun, "--json"}));
    CHECK(j["step_time_s"].get<double>() > 1.0);
    const json& links = j["links"];
    CHECK(links.size() == 8192 * 9 + 8192 + 8192);
    const std::set<std::string> dims{"tp", "cp", "pp", "dp", "ep"};
    double previous = 1.0;
    for (const json& l : links) {
        REQUIRE(l["name"].is_string());
        REQUIRE(l["tier"].is_string());
        REQUIRE(l["bytes"].get<double>() >= 0);
        REQUIRE(l["busy_s"].get<double>() >= 0);
        const double u = l["utilization"].get<double>();
        REQUIRE(u >= 0);
        REQUIRE(u <= previous); // busiest first
        previous = u;
        for (const json& d : l["dims"])
            REQUIRE(dims.count(d.get<std::string>()) == 1);
    }
    // Fairwater: data parallelism is all the fabric carries; NVLink carries TP, CP and PP.
    CHECK(links[0]["tier"] == "nic");
    CHECK(links[0]["dims"] == json::array({"dp"}));
    for (const char* tier : {"nvlink", "nic", "leaf-spine"}) {
        const json& t = j["tiers"][tier];
        CHECK(t["links"].get<int>() > 0);
        CHECK(t["bytes"].get<double>() > 0);
        CHECK(t["max_utilization"].get<double>() > 0);
        CHECK(t["max_utilization"].get<double>() <= 1);
    }
    CHECK_FALSE(j["tiers"].contains("spine-core"));
    // What leaves the NICs crosses the spines only between leaves: half of the rings' hops.
    CHECK(j["tiers"]["leaf-spine"]["bytes"].get<double>() ==
          Approx(j["tiers"]["nic"]["bytes"].get<double>() / 2).epsilon(0.01));

    // The rest reuses the whole list above: Catch2 would run the case again for each section, and
    // under the sanitizers that list takes seconds.
    {
        INFO("--top N: the N busiest");
        const json top =
            parsed(runCli({"links", kFairwater, kFairwaterRun, "--json", "--top", "5"}));
        REQUIRE(top["links"].size() == 5);
        CHECK(top["links"][0] == links[0]);
        CHECK(top["tiers"] == j["tiers"]);
    }
    {
        INFO("text: the busiest and each tier");
        const CliRun text = runCli({"links", kFairwater, kFairwaterRun, "--top", "3"});
        REQUIRE(text.status == cli::kExitOk);
        CHECK(text.out.find("busiest 3 links:") != std::string::npos);
        CHECK(text.out.find("leaf-spine") != std::string::npos);
        CHECK(text.out.find("dims\n  nic") != std::string::npos); // the busiest a NIC
    }
    {
        INFO("bad usage");
        CHECK(runCli({"links", kFairwater, kFairwaterRun, "--top", "0"}).status == cli::kExitUsage);
        CHECK(runCli({"links", kFairwater}).status == cli::kExitUsage);
    }
}

TEST_CASE("check and evaluate refuse unknown names and runs left without a path", "[fabric][cli]")
{
    json cluster = json::parse(std::ifstream(kFairwater));
    cluster["failures"] = {{"switches", {"leaf0", "spine1", "leaf1", "leaf256"}}};
    const std::string unknown = written("unknown.cluster.json", cluster);
    const CliRun checked = runCli({"check", unknown});
    CHECK(checked.status == cli::kExitBadInput);
    CHECK(checked.out.find(unknown + ": /failures/switches/3: no switch is named \"leaf256\"") ==
          0);

    json run405 = json::parse(std::ifstream(kFairwaterRun));
    run405.erase("cluster");
    const std::string runPath = written("405b.run.json", run405);
    cluster["failures"] = {{"switches", json::array()}};
    for (int s = 0; s < 32; ++s)
        cluster["failures"]["switches"].push_back("spine" + std::to_string(s));
    const std::string noSpine = written("nospine.cluster.json", cluster);
    const CliRun evaluated = runCli({"evaluate", noSpine, runPath});
    CHECK(evaluated.status == cli::kExitBadInput);
    CHECK(evaluated.err.find(noSpine + ": /failures: the run") == 0);
    CHECK(evaluated.err.find("has no path: no spine that leaf") != std::string::npos);
    CHECK(runCli({"links", noSpine, runPath}).status == cli::kExitBadInput);
    CHECK(runCli({"trace", noSpine, runPath, "-o", "/dev/null"}).status == cli::kExitBadInput);
}
