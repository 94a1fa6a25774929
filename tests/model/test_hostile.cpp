// Hostile inputs of issue 20 ("hangs, memory and aborts"), each through the command line in a
// child process under an address-space limit and a time limit (helpers/bounded.h): every one
// ends with exit 0 or 1 and a message, and leaves the files it was given as they were.

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "../helpers/bounded.h"
#include "clicommands.h"
#include "clirun.h"
#include "costmodel.h"
#include "loader.h"
#include "measuredruns.h"
#include "samplefiles.h"
#include "validation.h"

using nlohmann::json;
using testing::BoundedRun;
using testing::contentOf;
using testing::ScratchDir;
using testing::writeContent;

namespace {

// Generous: the limits catch a blow-up (gigabytes) or a hang, not a slow machine.
constexpr long kHostileMemoryMiB = 1024;
constexpr unsigned kHostileSeconds = 300;

json cluster(int racks, int nodesPerRack, int gpusPerNode, const std::string& gpu = "H100")
{
    return {{"format", cs::kClusterFormat},
            {"name", "hostile"},
            {"gpu", gpu},
            {"racks", racks},
            {"nodes_per_rack", nodesPerRack},
            {"gpus_per_node", gpusPerNode},
            {"scale_up", {{"domain", "node"}, {"GBps_per_gpu", 900}}},
            {"scale_out", {{"Gbps_per_gpu", 400}}}};
}

json run(int layers, int pp, int global)
{
    return {{"format", cs::kRunFormat},
            {"name", "hostile"},
            {"model",
             {{"layers", layers},
              {"hidden", 4096},
              {"ffn_hidden", 16384},
              {"heads", 32},
              {"vocab", 32000},
              {"seq_len", 2048}}},
            {"precision", "bf16"},
            {"batch", {{"global", global}, {"micro", 1}}},
            {"parallelism", {{"tp", 1}, {"pp", pp}}}};
}

struct Files {
    ScratchDir dir;
    std::string cluster, run;

    Files(const json& c, const json& r)
        : cluster(dir.path("c.cluster.json"))
        , run(dir.path("r.run.json"))
    {
        writeContent(cluster, c.dump());
        writeContent(run, r.dump());
    }
    // What the command was given, byte for byte.
    bool intact(const json& c, const json& r) const
    {
        return contentOf(cluster) == c.dump() && contentOf(run) == r.dump();
    }
};

// A measured-runs row on `gpus` A100s.
json row(const std::string& id, int gpus, int pp, int vp, int global, double measuredS)
{
    json r = json::parse(R"({"cluster":{"gpu":"A100","gpus_per_node":1,"nvlink_domain_gpus":1,
        "gpus_used_per_nvlink_domain":1,"nvlink_GBps_bidir":600,"scale_out_Gbps_per_gpu":200},
        "model":{"name":"m","layers":32,"hidden":4096,"ffn_hidden":16384,"heads":32,
        "vocab":32000,"seq_len":2048},"precision":"bf16"})");
    r["id"] = id;
    r["cluster"]["gpus"] = gpus;
    r["parallelism"] = {{"tp", 1}, {"cp", 1}, {"pp", pp}, {"vp", vp}, {"dp", gpus / pp}};
    r["batch"] = {{"micro", 1}, {"global", global}};
    r["measured"] = {{"step_time_s", measuredS}};
    return r;
}

} // namespace

TEST_CASE("16,777,216 micro-batches on one GPU are refused by name before any work", "[hostile]")
{
    const json c = cluster(1, 1, 1), r = run(32, 1, 1 << 24);
    const Files f(c, r);
    const BoundedRun e = runCliBounded({"evaluate", f.cluster, f.run}, 256, kHostileSeconds);
    INFO(e.describe());
    CHECK(e.clean());
    CHECK(e.status == 1);
    CHECK_THAT(e.err, Catch::Contains("/batch/global: global / (dp x micro) = 16,777,216 "
                                      "micro-batches per pipeline") &&
                          Catch::Contains("ClusterScope simulates at most 2,097,152"));
    CHECK(f.intact(c, r));
}

TEST_CASE("1,048,576 micro-batches on one GPU evaluate and trace in bounded memory",
          "[hostile][slow]")
{
    const json c = cluster(1, 1, 1), r = run(32, 1, 1 << 20);
    const Files f(c, r);
    const BoundedRun e =
        runCliBounded({"evaluate", f.cluster, f.run, "--json"}, kHostileMemoryMiB, kHostileSeconds);
    INFO(e.describe());
    REQUIRE(e.clean());
    REQUIRE(e.status == 0);
    const json answer = json::parse(e.out);
    // A million forward and backward passes of 32 layers: about 2 ms of compute per layer pass.
    CHECK(answer.at("step_time_s").get<double>() > 1e5);
    CHECK(answer.at("step_time_s").get<double>() < 1e7);

    const std::string trace = f.dir.path("step.trace.json");
    const BoundedRun t =
        runCliBounded({"trace", f.cluster, f.run, "-o", trace}, kHostileMemoryMiB, kHostileSeconds);
    INFO(t.describe());
    REQUIRE(t.clean());
    REQUIRE(t.status == 0);
    // Whole repeats of the steady state fit or not: the trace fills the limit up to one of them.
    std::smatch wrote;
    REQUIRE(std::regex_search(t.out, wrote, std::regex("wrote ([0-9,]+) events")));
    const long written = std::stol(std::regex_replace(wrote[1].str(), std::regex(","), ""));
    CHECK(written <= 1'048'576);
    CHECK(written > 1'000'000);
    CHECK_THAT(t.out, Catch::Contains("the trace leaves out about"));
    // The start and the end of the step are in it; what is between is named.
    const std::string text = contentOf(trace);
    CHECK(text.size() < 300u << 20);
    CHECK_THAT(text, Catch::Contains("\"events_left_out\":") &&
                         Catch::Contains("\"name\":\"optimizer\",\"cat\":\"optimizer\""));
    CHECK(f.intact(c, r));
}

TEST_CASE("a trace refused leaves the old trace as it was", "[hostile]")
{
    const json c = cluster(1, 1, 1), r = run(32, 1, 1 << 24);
    const Files f(c, r);
    const std::string trace = f.dir.path("step.trace.json");
    writeContent(trace, "old trace");
    const BoundedRun t =
        runCliBounded({"trace", f.cluster, f.run, "-o", trace}, 256, kHostileSeconds);
    INFO(t.describe());
    CHECK(t.clean());
    CHECK(t.status == 1);
    CHECK(contentOf(trace) == "old trace");
}

TEST_CASE("4,096 pipeline stages: 4,096 micro-batches refused, 512 evaluated", "[hostile]")
{
    const json c = cluster(512, 1, 8);
    {
        const json r = run(4096, 4096, 4096);
        const Files f(c, r);
        const BoundedRun e = runCliBounded({"evaluate", f.cluster, f.run}, 256, kHostileSeconds);
        INFO(e.describe());
        CHECK(e.clean());
        CHECK(e.status == 1);
        CHECK_THAT(e.err, Catch::Contains("x pp 4096 x vp 1 = 16,777,216 passes"));
        CHECK(f.intact(c, r));
    }
    // At the limit: 512 x 4,096 = 2,097,152 passes, every op simulated (the pipeline never
    // fills, so there is no steady state to repeat).
    const json r = run(4096, 4096, 512);
    const Files f(c, r);
    const BoundedRun e =
        runCliBounded({"evaluate", f.cluster, f.run, "--json"}, kHostileMemoryMiB, kHostileSeconds);
    INFO(e.describe());
    REQUIRE(e.clean());
    CHECK(e.status == 0);
    CHECK(json::parse(e.out).at("step_time_s").get<double>() > 0);
}

TEST_CASE("validate-runs prints slow measured rows and predictions past a million seconds",
          "[hostile]")
{
    ScratchDir dir;
    const std::string file = dir.path("runs.jsonl");
    // Measured 100,000 s; predicted about 10^6 s (2,097,152 micro-batches on one GPU).
    const std::string text = row("slow", 8, 1, 1, 64, 100000).dump() + "\n" +
                             row("long", 1, 1, 1, 1 << 21, 1).dump() + "\n";
    writeContent(file, text);
    const BoundedRun v = runCliBounded({"validate-runs", file}, kHostileMemoryMiB, kHostileSeconds);
    INFO(v.describe());
    REQUIRE(v.clean());
    CHECK(v.status == 0);
    CHECK_THAT(v.out, Catch::Contains("slow  ") && Catch::Contains("100000.0000") &&
                          Catch::Contains("long  ") && Catch::Contains("MAPE"));
    const BoundedRun j =
        runCliBounded({"validate-runs", file, "--json"}, kHostileMemoryMiB, kHostileSeconds);
    INFO(j.describe());
    REQUIRE(j.clean());
    CHECK(json::parse(j.out).at("rows").at(1).at("predicted_s").get<double>() > 1e6);
    CHECK(contentOf(file) == text);
}

TEST_CASE("measured rows with a huge vp or 8,388,608 micro-batches are refused by the run rules",
          "[hostile]")
{
    ScratchDir dir;
    const std::string file = dir.path("runs.jsonl");
    const std::string text = row("vp", 8, 2, 1 << 30, 64, 1).dump() + "\n" +
                             row("global", 1, 1, 1, 1 << 23, 1).dump() + "\n";
    writeContent(file, text);
    const BoundedRun v = runCliBounded({"validate-runs", file}, 256, kHostileSeconds);
    INFO(v.describe());
    CHECK(v.clean());
    CHECK(v.status == 1);
    CHECK_THAT(v.err, Catch::Contains("runs.jsonl:1: /parallelism/vp: must be between 1 and "
                                      "1024, got 1073741824 (row \"vp\")"));
    CHECK_THAT(v.err, Catch::Contains("runs.jsonl:2: /batch/global: global / (dp x micro) = "
                                      "8,388,608 micro-batches") &&
                          Catch::Contains("(row \"global\")"));
    CHECK(contentOf(file) == text);
}

TEST_CASE("63 MB of nested empty arrays under an x- key are refused past a million values",
          "[hostile]")
{
    ScratchDir dir;
    const std::string file = dir.path("nested.cluster.json");
    std::string blob = cluster(1, 1, 1).dump();
    blob.pop_back();
    blob += ",\"x-blob\":[";
    const std::string unit = "[[[[]]]],";
    blob.reserve(63u << 20);
    while (blob.size() + unit.size() + 8 < 63u << 20)
        blob += unit;
    blob += "[]]}";
    writeContent(file, blob);
    const BoundedRun c = runCliBounded({"check", file}, 512, kHostileSeconds);
    INFO(c.describe().substr(0, 3000));
    CHECK(c.clean());
    CHECK(c.status == 1);
    CHECK_THAT(c.out, Catch::Contains("nested.cluster.json: /x-blob/") &&
                          Catch::Contains("more than 1,048,576 JSON values"));
    CHECK(contentOf(file).size() == blob.size());
}

TEST_CASE("YAML configs: a million values, 20 million empty sequences, a line nested 30 million "
          "deep, a million keys, each refused in bounded memory",
          "[hostile][imports]")
{
    ScratchDir dir;
    const std::string keys = dir.path("keys.yaml"), flow = dir.path("flow.yaml"),
                      deep = dir.path("deep.yaml");
    std::string text;
    for (int i = 0; i <= cs::kMaxJsonValues; ++i)
        text += "k" + std::to_string(i) + ": 1\n";
    writeContent(keys, text);
    std::string sequences = "a: [";
    sequences.reserve(61'000'000);
    for (int i = 0; i < 20'000'000; ++i)
        sequences += "[],";
    writeContent(flow, sequences + "[]]\n");
    std::string nested;
    nested.reserve(60'000'000);
    for (int i = 0; i < 30'000'000; ++i)
        nested += "- ";
    writeContent(deep, nested + "1\n");
    for (const auto& [file, message] :
         {std::pair{keys, "keys.yaml:1048577:1: more than 1,048,576 values in one file"},
          std::pair{flow, "flow.yaml:1:"}, std::pair{deep, "deep.yaml:1:131: nested deeper"}}) {
        INFO(file);
        const BoundedRun r = runCliBounded({"import", "nemo", file}, 768, kHostileSeconds);
        INFO(r.describe());
        CHECK(r.clean());
        CHECK(r.status == 1);
        CHECK_THAT(r.err, Catch::Contains(message));
    }
}

TEST_CASE("a search of 131,072 GPUs and 4,096 layers stops at its time limit with the fastest "
          "found, and says so",
          "[hostile][search]")
{
    json c = cluster(2048, 16, 4, "GB200");
    c["scale_up"]["domain"] = "rack";
    const json r = run(4096, 1, 131072 * 4);
    const Files f(c, r);
    const BoundedRun s = runCliBounded(
        {"search", f.cluster, f.run, "--max-seconds", "2", "--top", "1"}, 2048, kHostileSeconds);
    INFO(s.describe());
    REQUIRE(s.clean());
    CHECK(s.status == 0);
    // Enumerating its 2,654,238 layouts alone takes longer than that: the enumeration stops too.
    CHECK_THAT(s.out, Catch::Contains(" layouts (tp, cp, pp, vp, micro-batch)") &&
                          Catch::Contains("Cut short after 2 s (--max-seconds)"));
    CHECK(f.intact(c, r));
}

TEST_CASE("options with values that are not finite numbers are usage errors", "[hostile][cli]")
{
    const json c = cluster(1, 1, 8), r = run(32, 1, 64);
    const Files f(c, r);
    for (const char* bad : {"nan", "inf", "-inf", "1e999", "-1", "0", "1s", ""}) {
        INFO(bad);
        std::ostringstream out, err;
        CHECK(cs::cli::run({"search", f.cluster, f.run, "--max-seconds", bad}, {out, err}) ==
              cs::cli::kExitUsage);
        CHECK_THAT(err.str(), Catch::Contains("--max-seconds needs a positive number"));
        std::ostringstream out2, err2;
        CHECK(cs::cli::run({"search", f.cluster, f.run, "--top", bad}, {out2, err2}) ==
              cs::cli::kExitUsage);
    }
}

TEST_CASE("names from files are printed escaped and cut at 80 characters", "[hostile][cli]")
{
    json c = cluster(1, 1, 8);
    c["name"] = "evil\x1b]0;owned\x07\x1b[31m" + std::string(200, 'x');
    json r = run(32, 1, 64);
    r["name"] = "run\x1b[2J";
    r["model"]["name"] = "model\r\n";
    const Files f(c, r);
    for (const cs::cli::Args& args :
         {cs::cli::Args{"describe", f.cluster, f.run}, cs::cli::Args{"check", f.cluster, f.run},
          cs::cli::Args{"search", f.cluster, f.run, "--top", "1"}}) {
        INFO(args.front());
        std::ostringstream out, err;
        CHECK(cs::cli::run(args, {out, err}) == cs::cli::kExitOk);
        const std::string all = out.str() + err.str();
        CHECK(all.find('\x1b') == std::string::npos);
        CHECK(all.find('\x07') == std::string::npos);
        CHECK(all.find('\r') == std::string::npos);
        if (args.front() != "check")
            CHECK_THAT(all, Catch::Contains("evil\\x1b]0;owned\\x07\\x1b[31mxxx") &&
                                Catch::Contains("xxx...\""));
    }
    ScratchDir dir;
    const std::string runs = dir.path("runs.jsonl");
    writeContent(runs, row("id\x1b[31m" + std::string(300, 'y'), 8, 1, 1, 64, 1).dump() + "\n");
    std::ostringstream out, err;
    CHECK(cs::cli::run({"validate-runs", runs}, {out, err}) == cs::cli::kExitOk);
    CHECK(out.str().find('\x1b') == std::string::npos);
    CHECK_THAT(out.str(), Catch::Contains("id\\x1b[31myyy") && Catch::Contains("yyy...  "));
}

TEST_CASE("a file of measured runs holds at most 10,000 rows", "[hostile][measured]")
{
    std::string text;
    for (int i = 0; i <= cs::kMaxMeasuredRuns; ++i)
        text += "{}\n";
    cs::Diagnostics diags;
    CHECK(cs::parseMeasuredRuns(text, "many.jsonl", diags).empty());
    REQUIRE_FALSE(diags.empty());
    CHECK(diags.items().back().format() ==
          "many.jsonl:10001:1: more than 10,000 measured runs in one file; ClusterScope reads "
          "at most that many (the rows from here on are left out)");
}

TEST_CASE("a JSON file holds at most 1,048,576 values", "[hostile][json]")
{
    auto arrayOf = [](int64_t elements) {
        std::string text = "[";
        for (int64_t i = 0; i < elements; ++i)
            text += i ? ",0" : "0";
        return text + "]";
    };
    cs::Diagnostics ok;
    CHECK(cs::parseJson(arrayOf(cs::kMaxJsonValues - 1), "f.json", ok)); // and the array
    CHECK(ok.empty());
    cs::Diagnostics refused;
    CHECK_FALSE(cs::parseJson(arrayOf(cs::kMaxJsonValues), "f.json", refused));
    REQUIRE(refused.size() == 1);
    CHECK(refused.items()[0].format() ==
          "f.json: more than 1,048,576 JSON values (numbers, strings, arrays, objects ...) in "
          "one file; ClusterScope reads at most that many");
}

TEST_CASE("an evaluation holds at most kMaxStepEvents events, the rest said", "[hostile]")
{
    Files f(cluster(1, 1, 1), run(32, 1, 1 << 20));
    cs::Diagnostics diags;
    const auto c = cs::loadFile(f.cluster, diags);
    const auto r = cs::loadFile(f.run, diags);
    REQUIRE(diags.empty());
    const cs::Evaluation e = cs::evaluate(*c->cluster, *r->run);
    CHECK(e.events.size() <= cs::kMaxStepEvents + 1); // and the optimizer
    CHECK(e.eventsLeftOut > 1'000'000);
    CHECK(e.leftOutFromS > 0);
    CHECK(e.leftOutToS > e.leftOutFromS);
    CHECK(e.leftOutToS < e.stepTimeS);
    // No op's events in the hole (the data-parallel buckets of the last backward are kept
    // wherever it falls); events on each side of it.
    const auto inside = std::count_if(e.events.begin(), e.events.end(), [&](const cs::Event& ev) {
        return ev.microBatch >= 0 && ev.start > e.leftOutFromS && ev.end < e.leftOutToS;
    });
    // Times a day into the step are summed in different orders: equal to a part in 1e12.
    const double rounding = 1e-12 * e.stepTimeS;
    const auto after = std::count_if(e.events.begin(), e.events.end(), [&](const cs::Event& ev) {
        return ev.start >= e.leftOutToS - rounding;
    });
    CHECK(inside == 0);
    CHECK(after > 0);
}
