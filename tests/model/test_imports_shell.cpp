// Launch scripts read as a shell would build their command lines, without running anything.

#include <catch2/catch.hpp>

#include "importdata.h"
#include "shellscript.h"

using namespace cs;

namespace {

struct Read {
    ShellScript script;
    ImportReport report;
};

Read readScript(const std::string& text)
{
    Read r;
    r.script = readShellScripts({{"s.sh", text}}, r.report);
    return r;
}

std::vector<std::string> commandWords(const ShellCommand& c)
{
    std::vector<std::string> out;
    for (const ShellWord& w : c.words)
        out.push_back(w.text);
    return out;
}

const ShellCommand& commandNamed(const ShellScript& s, const std::string& first)
{
    for (const ShellCommand& c : s.commands) {
        if (!c.words.empty() && c.words.front().text == first)
            return c;
    }
    FAIL("no command " << first);
    return s.commands.front();
}

} // namespace

TEST_CASE("variables, defaults and arithmetic expand into a command's words", "[imports][shell]")
{
    const Read r = readScript("TP=8\n"
                              "PP=${PP:-4}\n"
                              "NODES=16; GPUS=8\n"
                              "WORLD=$(( NODES * $GPUS ))\n"
                              "run --tp $TP --pp ${PP} --world ${WORLD} --x \"${UNSET:-a b}\"\n");
    CHECK(
        commandWords(commandNamed(r.script, "run")) ==
        std::vector<std::string>{"run", "--tp", "8", "--pp", "4", "--world", "128", "--x", "a b"});
}

TEST_CASE("arrays spread over lines, with comments, expand element by element", "[imports][shell]")
{
    const Read r = readScript("ARGS=(\n"
                              "    --num-layers 96   # comment (with parentheses)\n"
                              "    \"--fp8-format hybrid\"\n"
                              ")\n"
                              "ARGS+=(--bf16)\n"
                              "python train.py \"${ARGS[@]}\" ${ARGS[@]}\n");
    const ShellCommand& c = commandNamed(r.script, "python");
    CHECK(commandWords(c) == std::vector<std::string>{"python", "train.py", "--num-layers", "96",
                                                      "--fp8-format hybrid", "--bf16",
                                                      "--num-layers", "96", "--fp8-format",
                                                      "hybrid", "--bf16"});
    // A word from an array points at the line that wrote it, not at the command.
    CHECK(c.words[2].place.line == 2);
    CHECK(c.words[2].place.column == 5);
    CHECK(c.words[5].place.line == 5);
    CHECK(c.place.line == 6);
}

TEST_CASE("continuation lines make one command, pipes and redirections end it", "[imports][shell]")
{
    const Read r = readScript("torchrun --nnodes 2 \\\n"
                              "    train.py --a 1 \\\n"
                              "    --b 2 2>&1 | tee log.txt\n");
    REQUIRE(r.script.commands.size() == 2);
    CHECK(commandWords(r.script.commands[0]) == std::vector<std::string>{"torchrun", "--nnodes",
                                                                         "2", "train.py", "--a",
                                                                         "1", "--b", "2"});
    CHECK(r.script.commands[0].words.back().place.line == 3);
    CHECK(commandWords(r.script.commands[1]) == std::vector<std::string>{"tee", "log.txt"});
}

TEST_CASE("if/elif/else takes the branch its test selects", "[imports][shell]")
{
    const Read r = readScript("MODE=${MODE:-fp8}\n"
                              "if [[ \"$MODE\" == \"bf16\" ]]; then\n"
                              "  P=(--bf16)\n"
                              "elif [ \"$MODE\" = fp8 ] && [ 1 -lt 2 ]; then\n"
                              "  P=(--fp8-format hybrid)\n"
                              "else\n"
                              "  P=(--fp16)\n"
                              "fi\n"
                              "run ${P[@]}\n");
    CHECK(commandWords(commandNamed(r.script, "run")) ==
          std::vector<std::string>{"run", "--fp8-format", "hybrid"});
    CHECK(r.report.notes.empty());
}

TEST_CASE("a test that needs the script to run takes its branch, with a note", "[imports][shell]")
{
    const Read r = readScript("if [ -f /etc/cluster.env ]; then\n"
                              "  X=1\n"
                              "fi\n"
                              "run $X\n");
    CHECK(commandWords(commandNamed(r.script, "run")) == std::vector<std::string>{"run", "1"});
    CHECK(hasLine(r.report.notes, {"s.sh:1:1:", "-f /etc/cluster.env", "read as if true"}));
}

TEST_CASE("what is not known without running stays as written", "[imports][shell]")
{
    const Read r = readScript("HOST=$(scontrol show hostnames \"$LIST\" | head -n 1)\n"
                              "OLD=`hostname -s`\n"
                              "run --addr $HOST:29500 --n $SLURM_NNODES --p $1 --o $OLD\n");
    CHECK(commandWords(commandNamed(r.script, "run")) ==
          std::vector<std::string>{"run", "--addr", "$(...):29500", "--n", "$SLURM_NNODES", "--p",
                                   "$1", "--o", "$(...)"});
}

TEST_CASE("bash -c strings and #SBATCH directives are read as commands", "[imports][shell]")
{
    const Read r = readScript("#!/bin/bash\n"
                              "#SBATCH --nodes=4\n"
                              "#SBATCH -N 4 # a comment\n"
                              "ARGS=\"--tp 2\"\n"
                              "srun -n 4 bash -c \"cd /w && python train.py $ARGS\"\n");
    REQUIRE(r.script.commands.size() == 4);
    CHECK(r.script.commands[0].sbatchDirective);
    CHECK(commandWords(r.script.commands[0]) == std::vector<std::string>{"--nodes=4"});
    CHECK(commandWords(r.script.commands[1]) == std::vector<std::string>{"-N", "4"});
    CHECK(commandWords(r.script.commands[2]) ==
          std::vector<std::string>{"srun", "-n", "4", "cd", "/w"});
    CHECK(commandWords(r.script.commands[3]) ==
          std::vector<std::string>{"srun", "-n", "4", "python", "train.py", "--tp", "2"});
}

TEST_CASE("later scripts see the variables of earlier ones", "[imports][shell]")
{
    ImportReport report;
    const ShellScript s = readShellScripts(
        {{"config.sh", "export DGXNNODES=8\n"}, {"run.sh", "go $DGXNNODES\n"}}, report);
    REQUIRE(s.commands.size() == 1);
    CHECK(commandWords(s.commands[0]) == std::vector<std::string>{"go", "8"});
    REQUIRE(s.variables.size() == 1);
    CHECK(s.variables[0].name == "DGXNNODES");
    CHECK(s.variables[0].place.file == "config.sh");
}
