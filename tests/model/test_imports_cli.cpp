// clusterscope-cli import: what it writes, prints and returns.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "../helpers/datasafety.h"
#include "clirun.h"
#include "importdata.h"
#include "loader.h"
#include "text.h"

using namespace cs;
using nlohmann::json;

namespace {

CliRun runImport(const cli::Args& args)
{
    cli::Args all{"import"};
    all.insert(all.end(), args.begin(), args.end());
    return runCli(all);
}

} // namespace

TEST_CASE("import megatron -o writes a run that loads, notes on standard error", "[imports][cli]")
{
    const std::string out = testing::tempPath("cs-import-gpt3.run.json");
    std::filesystem::remove(out);
    const CliRun r = runImport({"megatron", importPath("gpt3-175b-ndv5.sbatch"), "--log",
                                importPath("gpt3-175b-ndv5.log"), "-o", out});
    INFO(r.err);
    CHECK(r.status == cli::kExitOk);
    CHECK(r.out.find("wrote " + out) == 0);
    CHECK(r.err.find("note: " + importPath("gpt3-175b-ndv5.sbatch") + ":57:5: --lr ignored\n") !=
          std::string::npos);
    Diagnostics diags;
    const auto loaded = loadFile(out, diags);
    INFO(diags.formatAll());
    REQUIRE(loaded);
    REQUIRE(loaded->run->measured);
    CHECK(loaded->run->measured->stepTimeS == Approx(0.945));
    std::filesystem::remove(out);
}

TEST_CASE("bytes that are not UTF-8 in an imported file are written as U+FFFD", "[imports][cli]")
{
    std::ifstream in(importPath("gpt3-175b-ndv5.sbatch"), std::ios::binary);
    std::string script((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = script.find("GPT2BPETokenizer");
    REQUIRE(at != std::string::npos);
    script.insert(at + 7, "\xFF\xC3");
    const std::string path = testing::tempPath("cs-import-not-utf8.sbatch");
    std::ofstream(path, std::ios::binary) << script;
    const CliRun r = runImport({"megatron", path});
    INFO(r.err);
    CHECK(r.status == cli::kExitOk);
    const json printed = json::parse(r.out);
    CHECK(printed["notes"].get<std::string>().find("GPT2BPE\xEF\xBF\xBD\xEF\xBF\xBDTokenizer") !=
          std::string::npos);
    std::filesystem::remove(path);
}

TEST_CASE("validUtf8 keeps well-formed UTF-8 and replaces each stray byte", "[imports]")
{
    const std::string fffd = "\xEF\xBF\xBD";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"plain", "plain"},
        {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
        {"a\xFF"
         "b",
         "a" + fffd + "b"},
        {"\xC3", fffd},                                  // cut short
        {"\xC0\xAF", fffd + fffd},                       // overlong
        {"\xED\xA0\x80", fffd + fffd + fffd},            // a surrogate
        {"\xF4\x90\x80\x80", fffd + fffd + fffd + fffd}, // past U+10FFFF
    };
    for (const auto& [text, expected] : cases) {
        INFO(printable(text));
        CHECK(validUtf8(text) == expected);
        CHECK_NOTHROW(json(validUtf8(text)).dump());
    }
}

TEST_CASE("import without -o prints the description", "[imports][cli]")
{
    const CliRun r = runImport({"nemo", importPath("llama31-405b-nemo2.yaml")});
    CHECK(r.status == cli::kExitOk);
    const json printed = json::parse(r.out);
    CHECK(printed["parallelism"]["dp"] == 128);
}

TEST_CASE("import mllog --json prints the measured result", "[imports][cli]")
{
    const CliRun r = runImport({"mllog", importPath("fairwater-llama31-405b.mllog.txt"), "--system",
                                importPath("fairwater-system.json"), "--json"});
    INFO(r.err);
    REQUIRE(r.status == cli::kExitOk);
    const json j = json::parse(r.out);
    CHECK(j["step_time_s"].get<double>() == Approx(1.2712).epsilon(0.005));
    CHECK(j["global_batch"] == 1152);
    CHECK(j["seq_len"] == 8192);
    CHECK(j["steps"] == 320);
    CHECK(j["run_time_s"].get<double>() == Approx(492.655));
    CHECK(j["cluster"]["racks"] == 128);
}

TEST_CASE("import refuses bad input with 1 and bad usage with 2", "[imports][cli]")
{
    CHECK(runImport({}).status == cli::kExitUsage);
    CHECK(runImport({"pytorch", "x"}).status == cli::kExitUsage);
    CHECK(runImport({"megatron"}).status == cli::kExitUsage);
    CHECK(runImport({"slurm", importPath("h100-128nodes-topology.conf")}).status ==
          cli::kExitUsage);
    CHECK(runImport({"slurm", importPath("h100-128nodes-topology.conf"), "--gpu", "H100",
                     "--gpus-per-node", "eight"})
              .status == cli::kExitUsage);
    CHECK(runImport({"nemo", "a.yaml", "b.yaml"}).status == cli::kExitUsage);
    CHECK(runImport({"mllog", "r.txt", "-o", "c.json"}).status == cli::kExitUsage);
    CHECK(runImport({"megatron", "x.sh", "--frobnicate"}).status == cli::kExitUsage);
    const CliRun missing = runImport({"megatron", importPath("does-not-exist.sh")});
    CHECK(missing.status == cli::kExitBadInput);
    CHECK(missing.err.find("does-not-exist.sh") != std::string::npos);
    const CliRun wrongKind = runImport(
        {"slurm", importPath("gpt3-175b-ndv5.sbatch"), "--gpu", "H100", "--gpus-per-node", "8"});
    CHECK(wrongKind.status == cli::kExitBadInput);
    CHECK(wrongKind.err.find("not a Slurm topology.conf") != std::string::npos);
    CHECK(runImport({"--help"}).status == cli::kExitOk);
}

TEST_CASE("evaluate prints the measured step of an imported log and the signed error",
          "[imports][cli]")
{
    const std::string out = testing::tempPath("cs-import-measured.run.json");
    REQUIRE(runImport({"megatron", importPath("gpt3-175b-ndv5.sbatch"), "--log",
                       importPath("gpt3-175b-ndv5.log"), "-o", out})
                .status == 0);
    const CliRun e =
        runCli({"evaluate", std::string(CS_SAMPLES_DIR) + "/ndv5-h100-1344.cluster.json", out});
    std::filesystem::remove(out);
    INFO(e.err);
    REQUIRE(e.status == 0);
    const size_t at = e.out.find("measured           0.9450 s (error ");
    REQUIRE(at != std::string::npos);
    const char sign = e.out[at + std::string("measured           0.9450 s (error ").size()];
    CHECK((sign == '+' || sign == '-'));
    CHECK(e.out.find(" %)\n", at) != std::string::npos);
}
