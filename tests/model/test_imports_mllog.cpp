// MLPerf Training result logs and system descriptions.

#include <catch2/catch.hpp>

#include "importdata.h"
#include "loader.h"
#include "mllog.h"
#include "steptimes.h"
#include "text.h"

using namespace cs;
using nlohmann::json;

namespace {

std::string event(long timeMs, const std::string& key, const std::string& value,
                  const std::string& metadata = "")
{
    return ":::MLLOG {\"namespace\": \"\", \"time_ms\": " + std::to_string(timeMs) +
           ", \"event_type\": \"POINT_IN_TIME\", \"key\": \"" + key + "\", \"value\": " + value +
           ", \"metadata\": {\"file\": \"train.py\", \"lineno\": 1" +
           (metadata.empty() ? "" : ", " + metadata) + "}}\n";
}

} // namespace

TEST_CASE("the Fairwater result log gives 1.2712 s per step", "[imports][mllog]")
{
    ImportReport report;
    const auto r = readMllog(importSource("fairwater-llama31-405b.mllog.txt"), report);
    INFO(report.errors.formatAll());
    REQUIRE(r);
    CHECK(r->stepTimeS == Approx(1.2712).epsilon(0.005));
    CHECK(r->stepTimesS.size() == 7); // eight blocks, the first left out as warm-up
    CHECK(r->globalBatch == 1152);
    CHECK(r->seqLen == 8192);
    CHECK(r->steps == 320);
    REQUIRE(r->runTimeS);
    CHECK(*r->runTimeS == Approx(492.655));
    CHECK(r->benchmark == "llama31_405b");
    CHECK(r->status == "success");
    const json j = mlperfResultJson(*r);
    for (const char* key : {"step_time_s", "global_batch", "seq_len", "steps", "run_time_s"})
        CHECK(j.contains(key));
}

TEST_CASE("train_step_time events are preferred, after the warm-up steps", "[imports][mllog]")
{
    std::string log =
        "0: " + event(1000, "global_batch_size", "64") + event(1000, "run_start", "null");
    for (int step = 1; step <= 30; ++step)
        log +=
            "0: " + event(1000 + step * 2000, "tracked_stats",
                          "{\"train_step_time\": " + std::string(step <= 10 ? "9.5" : "2.0") + "}",
                          "\"step\": " + std::to_string(step));
    log += event(70000, "run_stop", "null", "\"status\": \"aborted\"");
    ImportReport report;
    const auto r = readMllog({"steps.txt", log}, report);
    REQUIRE(r);
    CHECK(r->stepTimeS == Approx(2.0));
    CHECK(r->stepTimesS.size() == 20);
    CHECK(r->steps == std::nullopt); // no train_samples or samples_count
    CHECK(*r->runTimeS == Approx(69.0));
    CHECK(hasLine(report.notes, {"steps.txt", "no max_sequence_length"}));
}

TEST_CASE("a run_stop whose status is not a string is noted, not thrown", "[imports][mllog]")
{
    // Found by fuzz_imports: nlohmann's typed value() threw from the import.
    for (const char* status : {"1", "null", "[\"success\"]", "{}"}) {
        INFO(status);
        const std::string log = event(1, "global_batch_size", "8") + event(2, "run_start", "null") +
                                event(3, "train_step_time", "1.5") +
                                event(4, "run_stop", "null", std::string("\"status\": ") + status);
        ImportReport report;
        const auto r = readMllog({"status.txt", log}, report);
        REQUIRE(r);
        CHECK(r->status.empty());
        CHECK(hasLine(report.notes, {"status.txt:4:1:", "status is not a string"}));
    }
}

TEST_CASE("a result log without a global batch is refused, broken lines are noted",
          "[imports][mllog]")
{
    ImportReport report;
    const std::string log =
        event(1, "run_start", "null") + ":::MLLOG {not json\n" + event(2, "train_step_time", "1.5");
    CHECK_FALSE(readMllog({"bad.txt", log}, report));
    CHECK(hasLine(report.errors, {"bad.txt", "no global_batch_size"}));
    CHECK(hasLine(report.notes, {"bad.txt:2:1:", "skipped"}));
}

TEST_CASE("a system description gives the cluster it describes", "[imports][mllog]")
{
    ImportReport report;
    const auto cluster =
        clusterFromSystemDescription(importSource("fairwater-system.json"), report);
    INFO(report.errors.formatAll());
    REQUIRE(cluster);
    Diagnostics diags;
    const auto c = clusterFromJson(*cluster, "imported.cluster.json", "", diags);
    INFO(diags.formatAll() << cluster->dump(2));
    REQUIRE(c);
    CHECK(c->gpu.name == "GB200");
    CHECK(c->gpuCount() == 8192);
    CHECK(c->racks == 128); // 2,048 trays in racks of 16, as MLPerf GB200 systems use them
    CHECK(c->nodesPerRack == 16);
    CHECK(c->scaleUp.domain == DomainKind::Rack);
    CHECK(c->scaleUp.GBpsPerGpu == 1800);
    CHECK(c->scaleOut.GbpsPerGpu == 800); // four 800 Gb/s NICs for four GPUs, not the front end
    CHECK(c->scaleOut.topology.kind == FabricKind::RailOptimized);
    CHECK(c->scaleOut.topology.tiers == 2); // "Rail-optimized, 2-tier"
}

TEST_CASE("a system description of 8-GPU nodes, with counts as numbers", "[imports][mllog]")
{
    ImportReport report;
    const json system = {{"system_name", "ND H100 v5 x1344"},
                         {"number_of_nodes", 1344},
                         {"accelerators_per_node", "8"},
                         {"accelerator_model_name", "NVIDIA H100-SXM-80GB"},
                         {"accelerator_interconnect", "NVLINK 4.0"},
                         {"host_networking", "1x Ethernet 100Gb/Sec, 8x NVIDIA Quantum-2 CX7 "
                                             "InfiniBand (400Gb/s)"},
                         {"host_networking_topology", "Fat Tree"}};
    const auto cluster = clusterFromSystemDescription({"nd.json", system.dump()}, report);
    REQUIRE(cluster);
    CHECK((*cluster)["gpu"] == "H100");
    CHECK((*cluster)["racks"] == 336);
    CHECK((*cluster)["nodes_per_rack"] == 4);
    CHECK((*cluster)["scale_up"]["GBps_per_gpu"] == 900); // the catalog's, the text gives none
    CHECK((*cluster)["scale_out"]["Gbps_per_gpu"] == 400);
    CHECK((*cluster)["scale_out"]["topology"] == json{{"kind", "fat-tree"}, {"tiers", 3}});
}

TEST_CASE("rates too large for a double are no rates: the catalog's NVLink, the next NIC",
          "[imports][mllog]")
{
    const std::string huge(400, '9');
    ImportReport report;
    const json system = {{"number_of_nodes", 2},
                         {"accelerators_per_node", 8},
                         {"accelerator_model_name", "NVIDIA H100-SXM-80GB"},
                         {"accelerator_interconnect", "NVLink, " + huge + " TB/s"},
                         {"host_networking", "8x Hyper NIC (" + huge + "Gb/s), 8x CX7 (400Gb/s)"}};
    const auto cluster = clusterFromSystemDescription({"nd.json", system.dump()}, report);
    INFO(report.errors.formatAll());
    REQUIRE(cluster);
    CHECK((*cluster)["scale_up"]["GBps_per_gpu"] == 900);
    CHECK((*cluster)["scale_out"]["Gbps_per_gpu"] == 400);
}

TEST_CASE("decimalOf reads whole decimals in any locale and refuses the rest", "[imports]")
{
    struct Case {
        std::string text;
        std::optional<double> value;
    };
    const std::vector<Case> cases{{"1.8", 1.8},
                                  {"400", 400.0},
                                  {"1e3", 1000.0},
                                  {"", std::nullopt},
                                  {"1.8x", std::nullopt},
                                  {"1e999", std::nullopt},
                                  {std::string(400, '9'), std::nullopt}};
    for (const Case& c : cases) {
        INFO(c.text);
        CHECK(decimalOf(c.text) == c.value);
    }
}

TEST_CASE("a system description missing what a cluster needs is refused, key by key",
          "[imports][mllog]")
{
    ImportReport report;
    const json system = {
        {"number_of_nodes", "two"}, {"accelerator_model_name", "Gaudi 3"}, {"host_networking", ""}};
    CHECK_FALSE(clusterFromSystemDescription({"sys.json", system.dump()}, report));
    CHECK(hasLine(report.errors, {"sys.json: /number_of_nodes:", "expected the number of nodes"}));
    CHECK(hasLine(report.errors, {"sys.json: /accelerators_per_node:", "missing"}));
    CHECK(hasLine(report.errors, {"sys.json: /accelerator_model_name:", "names no catalog GPU"}));
}

TEST_CASE("a result log whose step times are no times, or that runs backwards, is refused at the "
          "line that breaks it",
          "[imports][mllog]")
{
    const std::string head = event(1000, "global_batch_size", "64") + // line 1
                             event(1000, "run_start", "null");        // line 2
    auto step = [](long ms, const std::string& seconds) {
        return event(ms, "train_step_time", seconds);
    };
    auto block = [](long startMs, long stopMs, int from, int to) {
        return event(startMs, "block_start", "null", "\"samples_count\": " + std::to_string(from)) +
               event(stopMs, "block_stop", "null", "\"samples_count\": " + std::to_string(to));
    };
    struct Case {
        std::string name;
        std::string body; // from line 3
        std::string place;
        std::string says;
    };
    const std::vector<Case> cases{
        {"a step of 0 s", step(2000, "1.5") + step(3000, "0"),
         "log.txt:4:1:", "train_step_time 0 gives 0 s a step"},
        {"a step of -1 s", step(2000, "-1"), "log.txt:3:1:", "train_step_time -1 gives -1 s"},
        {"a step too long to be one", step(2000, "1e300"),
         "log.txt:3:1:", "train_step_time 1e+300 gives"},
        {"a step that is text", step(2000, "\"1.5\""),
         "log.txt:3:1:", "train_step_time \"1.5\" is not a number of seconds"},
        {"a step the microsecond rounding makes infinite", step(2000, "1.7e308"),
         "log.txt:3:1:", "train_step_time 1.7e+308 gives"},
        {"a throughput of 0", event(2000, "tracked_stats", "{\"throughput\": 0}"),
         "log.txt:3:1:", "tracked_stats throughput 0 is not a positive number"},
        {"a block that stops before it starts", block(5000, 4000, 0, 64), "log.txt:4:1:",
         "block_stop at time_ms 4000 is before its block_start (line 3, time_ms 5000): the log "
         "runs backwards"},
        {"a block that starts before the last stopped",
         block(5000, 6000, 0, 64) + block(5500, 7000, 64, 128), "log.txt:5:1:",
         "block_start at time_ms 5500 is before the block_stop of the block "
         "before (line 4, time_ms 6000)"},
        {"a block whose samples go back", block(5000, 6000, 64, 0), "log.txt:4:1:",
         "block_stop's samples_count 0 is not above its block_start's (line 3, 64)"},
        {"a block of 2e15 s a step",
         block(5000, 6000, 0, 64) + block(7000, 2000000000000000000, 64, 128),
         "log.txt:6:1:", "the block stopping here"},
        {"a run that stops before it starts", step(2000, "1.5") + event(500, "run_stop", "null"),
         "log.txt:4:1:",
         "run_stop at time_ms 500 is before run_start (line 2, time_ms 1000): the log runs "
         "backwards"},
        {"a block without time_ms",
         ":::MLLOG {\"key\": \"block_start\", \"value\": null, \"metadata\": {}}\n",
         "log.txt:3:1:", "block_start has no time_ms"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        ImportReport report;
        CHECK_FALSE(readMllog({"log.txt", head + c.body}, report));
        INFO(report.errors.formatAll());
        CHECK(report.errors.size() == 1);
        CHECK(hasLine(report.errors, {c.place, c.says}));
    }
}

TEST_CASE("a result log of more steps than a run may keep keeps an even sample, the median of all",
          "[imports][mllog]")
{
    std::string log = event(1000, "global_batch_size", "64");
    const size_t steps = kMaxKeptStepTimes + 20;
    for (size_t s = 0; s < steps; ++s)
        log += event(2000, "train_step_time", s % 2 ? "2.0" : "2.002");
    ImportReport report;
    const auto r = readMllog({"long.txt", log}, report);
    INFO(report.errors.formatAll());
    REQUIRE(r);
    CHECK(r->stepTimesS.size() == kMaxKeptStepTimes);
    CHECK(r->stepTimeS == Approx(2.001));
    CHECK(r->stepSource.find("the median of all 100,010 step times") != std::string::npos);
}
