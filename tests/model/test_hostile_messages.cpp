// Hostile input of issue 35 that went wrong in the messages: a syntax error after megabytes of
// whitespace (item 7), megabytes of one value, key or path quoted whole (item 8), floods of
// repeated problems (item 9). Each through the command line in a bounded child process
// (helpers/bounded.h), as tests/model/test_hostile.cpp does.

#include <catch2/catch.hpp>

#include <algorithm>

#include "../helpers/bounded.h"
#include "clicommands.h"
#include "clirun.h"

using testing::BoundedRun;
using testing::ScratchDir;
using testing::writeContent;

namespace {

constexpr unsigned kHostileMessageSeconds = 120;

size_t longestLine(const std::string& text)
{
    size_t longest = 0, start = 0;
    for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
        longest = std::max(longest, end - start);
        start = end + 1;
    }
    return std::max(longest, text.size() - start);
}

} // namespace

// nlohmann kept every character since the last value and, on the error, spelled each newline
// as "<U+000A>" in several copies: 24 MB of newlines cost about 800 MB, 63 MB cost 2.15 GB.
TEST_CASE("a syntax error after 24 MB of whitespace is found in bounded memory, at its line",
          "[hostile][json]")
{
    struct Case {
        const char* name;
        std::string before, run, after;
        const char* where;
    };
    constexpr size_t kRun = 24u << 20;
    const Case cases[] = {
        {"newlines", "", "\n", "x", ":25165825:1:"},
        {"CR LF", "", "\r\n", "x", ":12582913:1:"},
        {"tabs inside an object", "{\"a\": ", "\t", "x}", ":1:25165831:"},
        {"spaces, then a number too large", "[", " ", "1e999]", ":1:25165826:"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        ScratchDir dir;
        const std::string path = dir.path("ws.json");
        std::string text = c.before;
        while (text.size() < c.before.size() + kRun)
            text += c.run;
        writeContent(path, text + c.after);
        text.clear();
        text.shrink_to_fit();
        const BoundedRun r = runCliBounded({"check", path}, 256, kHostileMessageSeconds);
        INFO(r.describe());
        CHECK(r.clean());
        CHECK(r.status == 1);
        CHECK_THAT(r.out + r.err, Catch::Contains(path + c.where));
        CHECK(r.out.size() + r.err.size() < 1000);
    }
}

namespace {

std::string clusterText(const std::string& extra)
{
    return R"({"format": "clusterscope/cluster@1", "name": "c", "gpu": "H100", "racks": 1,
        "nodes_per_rack": 1, "gpus_per_node": 8, "scale_up": {"domain": "node",
        "GBps_per_gpu": 900}, "scale_out": {"Gbps_per_gpu": 400})" +
           extra + "}";
}

} // namespace

TEST_CASE("megabytes of one number, key, name or path are quoted cut, each line short",
          "[hostile][messages]")
{
    const std::string huge(5'000'000, '7');
    const std::string key(5'000'000, 'k');
    struct Case {
        const char* name;
        std::string text;
        const char* message;
    };
    const Case cases[] = {
        {"a number too large", clusterText(", \"x-n\": 1" + huge + "e999"), "number too large"},
        {"a duplicate key", "{\"" + key + "\": 1, \"" + key + "\": 2}", "duplicate key"},
        {"an unknown key", clusterText(", \"" + key + "\": 1"), "unknown key"},
        {"an unknown GPU", clusterText("").replace(clusterText("").find("H100"), 4, key),
         "unknown GPU"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        ScratchDir dir;
        const std::string path = dir.path("big.json");
        writeContent(path, c.text);
        const BoundedRun r = runCliBounded({"check", path}, 512, kHostileMessageSeconds);
        INFO(r.describe().substr(0, 3000));
        CHECK(r.clean());
        CHECK(r.status == 1);
        CHECK_THAT(r.out + r.err, Catch::Contains(c.message) && Catch::Contains("..."));
        CHECK(longestLine(r.out + r.err) < 600);
    }
}

TEST_CASE("a 5,000-character path is printed cut, and once", "[hostile][messages]")
{
    ScratchDir dir;
    std::string missing = dir.path("");
    while (missing.size() < 5000)
        missing += "deep/";
    missing += "c.cluster.json";
    const std::string run = dir.path("r.run.json");
    writeContent(run, "{}");
    const BoundedRun r = runCliBounded({"evaluate", missing, run}, 512, kHostileMessageSeconds);
    INFO(r.describe().substr(0, 3000));
    CHECK(r.clean());
    CHECK(r.status == 1);
    const std::string printed = r.out + r.err;
    CHECK(longestLine(printed) < 600);
    const std::string tail = "deep/deep/c.cluster.json";
    const size_t first = printed.find(tail);
    REQUIRE(first != std::string::npos);
    CHECK(printed.find(tail, first + 1) == std::string::npos);
}

TEST_CASE("evaluate prints each problem of a cluster once, also when the run names it",
          "[messages][cli]")
{
    ScratchDir dir;
    const std::string cluster = dir.path("c.cluster.json"), run = dir.path("r.run.json");
    std::string text = clusterText("");
    text.replace(text.find("\"racks\": 1"), 10, "\"racks\": 0");
    text.replace(text.find("\"gpus_per_node\": 8"), 18, "\"gpus_per_node\": 0");
    writeContent(cluster, text);
    writeContent(run, R"({"format": "clusterscope/run@1", "name": "r", "cluster": "c.cluster.json",
        "model": {"layers": 2, "hidden": 256, "ffn_hidden": 1024, "heads": 4, "vocab": 1000,
        "seq_len": 128}, "precision": "bf16", "batch": {"global": 8, "micro": 1}})");
    const BoundedRun r = runCliBounded({"evaluate", cluster, run}, 512, kHostileMessageSeconds);
    INFO(r.describe());
    CHECK(r.status == 1);
    for (const char* pointer : {"/racks:", "/gpus_per_node:"}) {
        INFO(pointer);
        const std::string printed = r.out + r.err;
        const size_t first = printed.find(pointer);
        REQUIRE(first != std::string::npos);
        CHECK(printed.find(pointer, first + 1) == std::string::npos);
    }
}

TEST_CASE("300,000 duplicate keys print five and one line for the rest", "[hostile][messages]")
{
    ScratchDir dir;
    const std::string path = dir.path("dup.json");
    std::string text = "{\"a\": 0";
    for (int i = 0; i < 300'000; ++i)
        text += ", \"a\": " + std::to_string(i);
    writeContent(path, text + "}");
    const BoundedRun r = runCliBounded({"check", path}, 512, kHostileMessageSeconds);
    INFO(r.describe());
    CHECK(r.clean());
    CHECK(r.status == 1);
    CHECK_THAT(r.out + r.err, Catch::Contains(path + ": /a: and 299,995 more like it"));
    CHECK(r.out.size() + r.err.size() < 1000);
}

TEST_CASE("check of a cluster and a run naming it prints each problem of the cluster once",
          "[messages][cli]")
{
    ScratchDir dir;
    const std::string cluster = dir.path("c.cluster.json"), run = dir.path("r.run.json");
    std::string text = clusterText("");
    text.replace(text.find("\"racks\": 1"), 10, "\"racks\": 0");
    writeContent(cluster, text);
    writeContent(run, R"({"format": "clusterscope/run@1", "name": "r", "cluster": "c.cluster.json",
        "model": {"layers": 2, "hidden": 256, "ffn_hidden": 1024, "heads": 4, "vocab": 1000,
        "seq_len": 128}, "precision": "bf16", "batch": {"global": 8, "micro": 1}})");
    const BoundedRun r = runCliBounded({"check", cluster, run}, 512, kHostileMessageSeconds);
    INFO(r.describe());
    CHECK(r.status == 1);
    const std::string printed = r.out + r.err;
    const size_t first = printed.find("/racks:");
    REQUIRE(first != std::string::npos);
    CHECK(printed.find("/racks:", first + 1) == std::string::npos);
}
