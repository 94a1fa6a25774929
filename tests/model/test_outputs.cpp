// No command writes over its own input (issue 35): an output that is one of the files a
// command reads, however it is spelled, is a usage error that names both and changes nothing.

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include <unistd.h>

#include "../helpers/datasafety.h"
#include "clirun.h"
#include "fileio.h"
#include "text.h"

using testing::contentOf;
using testing::ScratchDir;

namespace {

namespace fs = std::filesystem;

// A command whose output names one of its inputs. Words starting with '@' are the inputs,
// copied into a scratch folder; `target` is the input the output names.
struct OverwriteCase {
    const char* what;
    std::vector<std::string> words; // the output goes last, after "-o"
    std::string target;
};

const std::map<std::string, std::string>& sourceOf()
{
    static const std::map<std::string, std::string> sources{
        {"small.cluster.json", std::string(CS_TEST_DATA_DIR) + "/good/small.cluster.json"},
        {"small.run.json", std::string(CS_TEST_DATA_DIR) + "/good/small.run.json"},
        {"rows.jsonl", std::string(CS_SOURCE_DIR) + "/fuzz/seeds/measured.jsonl"},
        {"topo.conf", std::string(CS_TEST_DATA_DIR) + "/imports/h100-128nodes-topology.conf"},
        {"train.sh", std::string(CS_TEST_DATA_DIR) + "/imports/gpt3-175b-ndv5.sbatch"},
        {"train.log", std::string(CS_TEST_DATA_DIR) + "/imports/gpt3-175b-ndv5.log"},
        {"x.yaml", std::string(CS_TEST_DATA_DIR) + "/imports/llama31-405b-nemo2.yaml"},
        {"ml.txt", std::string(CS_TEST_DATA_DIR) + "/imports/fairwater-llama31-405b.mllog.txt"},
        {"sys.json", std::string(CS_TEST_DATA_DIR) + "/imports/fairwater-system.json"},
        {"start.json", ""}, // written by the test: the calibrate --start input
    };
    return sources;
}

// How the output names the input: the same words, another spelling, a link to it.
enum class Spelling { Same, DotSegments, SymbolicLink, HardLink };

std::string spell(const ScratchDir& dir, const std::string& name, Spelling spelling)
{
    switch (spelling) {
    case Spelling::Same:
        return dir.path(name);
    case Spelling::DotSegments:
        return dir.path() + "/./sub/../" + name;
    case Spelling::SymbolicLink:
        fs::create_symlink(dir.path(name), dir.path("link-to-" + name));
        return dir.path("link-to-" + name);
    case Spelling::HardLink:
        fs::create_hard_link(dir.path(name), dir.path("hard-" + name));
        return dir.path("hard-" + name);
    }
    return {};
}

} // namespace

TEST_CASE("no command writes over one of its inputs, however the output is spelled",
          "[cli][datasafety]")
{
    const OverwriteCase c = GENERATE(
        OverwriteCase{"trace over its run",
                      {"trace", "@small.cluster.json", "@small.run.json"},
                      "small.run.json"},
        OverwriteCase{"trace over its cluster",
                      {"trace", "@small.cluster.json", "@small.run.json"},
                      "small.cluster.json"},
        OverwriteCase{"import slurm over the topology",
                      {"import", "slurm", "@topo.conf", "--gpu", "H100", "--gpus-per-node", "8"},
                      "topo.conf"},
        OverwriteCase{"import megatron over its log",
                      {"import", "megatron", "@train.sh", "--log", "@train.log"},
                      "train.log"},
        OverwriteCase{"import megatron over its script",
                      {"import", "megatron", "@train.sh", "--log", "@train.log"},
                      "train.sh"},
        OverwriteCase{"import nemo over its config", {"import", "nemo", "@x.yaml"}, "x.yaml"},
        OverwriteCase{"import mllog over the system description",
                      {"import", "mllog", "@ml.txt", "--system", "@sys.json"},
                      "sys.json"},
        OverwriteCase{"calibrate over its rows", {"calibrate", "@rows.jsonl"}, "rows.jsonl"},
        OverwriteCase{"calibrate over its start",
                      {"calibrate", "@rows.jsonl", "--start", "@start.json"},
                      "start.json"});
    const Spelling spelling =
        GENERATE(Spelling::Same, Spelling::DotSegments, Spelling::SymbolicLink, Spelling::HardLink);
    INFO(c.what << ", spelling " << int(spelling));

    ScratchDir dir;
    fs::create_directory(dir.path("sub"));
    cs::cli::Args args;
    std::map<std::string, std::string> before;
    for (const std::string& word : c.words) {
        if (word.front() != '@') {
            args.push_back(word);
            continue;
        }
        const std::string name = word.substr(1), path = dir.path(name);
        if (sourceOf().at(name).empty())
            testing::writeContent(path, "{}\n");
        else
            fs::copy_file(sourceOf().at(name), path);
        before[path] = contentOf(path);
        args.push_back(path);
    }
    const std::string output = spell(dir, c.target, spelling);
    args.insert(args.end(), {"-o", output});

    const CliRun r = runCli(args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("never writes over its own input") &&
                          Catch::Contains(cs::printable(output, cs::kNoLimit)));
    if (spelling != Spelling::Same)
        CHECK_THAT(r.err, Catch::Contains(dir.path(c.target)));
    for (const auto& [path, content] : before)
        CHECK(contentOf(path) == content);
}

TEST_CASE("an output that is another file, or does not exist yet, is written as before",
          "[cli][datasafety]")
{
    ScratchDir dir;
    const std::string cluster = std::string(CS_TEST_DATA_DIR) + "/good/small.cluster.json";
    const std::string run = std::string(CS_TEST_DATA_DIR) + "/good/small.run.json";
    const std::string output = dir.path("step.trace.json");
    CHECK(runCli({"trace", cluster, run, "-o", output}).status == 0);
    // Written once, the output exists; a second trace replaces it: it is no input.
    const CliRun again = runCli({"trace", cluster, run, "-o", output});
    INFO(again.err);
    CHECK(again.status == 0);
}

TEST_CASE("inputWrittenBy compares files by identity, not by the words naming them",
          "[fileio][datasafety]")
{
    ScratchDir dir;
    testing::writeContent(dir.path("a"), "a");
    testing::writeContent(dir.path("b"), "a"); // the same bytes, another file
    fs::create_symlink("a", dir.path("to-a"));
    CHECK(cs::inputWrittenBy(dir.path("a"), {dir.path("b")}) == std::nullopt);
    CHECK(cs::inputWrittenBy(dir.path("missing"), {dir.path("missing")}) == std::nullopt);
    CHECK(cs::inputWrittenBy(dir.path("to-a"), {dir.path("b"), dir.path("a")}) == dir.path("a"));
    CHECK(cs::inputWrittenBy(dir.path("a"), {dir.path("to-a")}) == dir.path("to-a"));
}
