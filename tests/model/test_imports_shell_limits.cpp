// Launch scripts that would make the reader's work or memory grow without bound, and arithmetic
// that is wrong: refused with the line, in little time, whatever the script does.

#include <catch2/catch.hpp>

#include "importdata.h"
#include "shelllimits.h"
#include "shellscript.h"

using namespace cs;

namespace {

std::vector<std::string> wordsOf(const ShellCommand& c)
{
    std::vector<std::string> out;
    for (const ShellWord& w : c.words)
        out.push_back(w.text);
    return out;
}

} // namespace

TEST_CASE("scripts whose expansions grow without bound are refused at the line that grows them",
          "[imports][shell][limits]")
{
    struct Case {
        std::string name;
        std::string script;
        std::string place;
        std::string says;
    };
    const std::string value60k = "A=" + std::string(60000, 'x') + "\n";
    const std::vector<Case> cases{
        {"a value doubled 24 times", "A=x\n" + repeated("A=\"$A $A\"\n", 24) + "run $A\n",
         "s.sh:17:1:", "a word expands to more than 65,536 bytes"},
        {"a value appended to itself", "A=x\n" + repeated("A+=$A\n", 24), "s.sh:18:1:",
         "the value of A would be 131,072 bytes: more than the 65,536 bytes a variable may hold"},
        {"an array appended to itself 24 times",
         "ARGS=(--a 1)\n" + repeated("ARGS+=(\"${ARGS[@]}\")\n", 24) + "run \"${ARGS[@]}\"\n",
         "s.sh:13:1:", "ARGS would hold 8,192 elements: more than the 4,096 an array may hold"},
        {"${A:- nested 1,000 deep",
         "run " + repeated("${A:-", 1000) + "x" + std::string(1000, '}') + "\n",
         "s.sh:1:1:", "brackets nested more than 16 deep"},
        {"${A:- nested 1,000 deep in double quotes",
         "run \"" + repeated("${A:-", 1000) + "x" + std::string(1000, '}') + "\"\n",
         "s.sh:1:1:", "expansions nested more than 16 deep"},
        {"a word as written longer than a value", "run " + std::string(70000, 'x') + "\n",
         "s.sh:1:1:", "a word longer than 65,536 bytes"},
        {"a command of many large words", value60k + "run $A $A $A $A $A\n",
         "s.sh:2:1:", "a command of more than 262,144 bytes"},
        {"a large value copied many times", value60k + repeated("B=$A\n", 300),
         "s.sh:281:1:", "the script's expansions add up to more than 16,777,216 bytes"},
        {"a script of more commands than a launch runs", repeated("a\n", 10001),
         "s.sh:10001:1:", "more than 10,000 commands"},
        {"bash -c repeating its command",
         value60k + "srun $A $A $A $A bash -c \"" + repeated("a|", 100) + "\"\n",
         "s.sh:2:1:", "the script's expansions add up to more than 16,777,216 bytes"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        ImportReport report;
        readShellScripts({{"s.sh", c.script}}, report);
        INFO(report.errors.formatAll());
        CHECK(report.errors.size() == 1);
        CHECK(hasLine(report.errors, {c.place, c.says}));
    }
}

TEST_CASE("a script larger than a launch script is refused by its size, before any reading",
          "[imports][shell][limits]")
{
    ImportReport report;
    const ShellScript s = readShellScripts(
        {{"big.sh", std::string(shell::kMaxScriptBytes + 1, '\n')}, {"next.sh", "run\n"}}, report);
    CHECK(s.commands.empty()); // nor are the files after it read
    CHECK(hasLine(report.errors, {"big.sh:", "1,048,577 bytes: more than the 1,048,576 bytes "
                                             "(1 MiB) a launch script is read up to"}));
}

TEST_CASE("a command of thousands of continuation lines is read whole", "[imports][shell][limits]")
{
    std::string script = "run \\\n";
    while (script.size() + 20 < shell::kMaxScriptBytes / 8)
        script += "  --flag value \\\n";
    script += "  --last 1\n";
    ImportReport report;
    const ShellScript s = readShellScripts({{"s.sh", script}}, report);
    INFO(report.errors.formatAll());
    CHECK(report.errors.empty());
    REQUIRE(s.commands.size() == 1);
    CHECK(s.commands[0].words.back().text == "1");
}

TEST_CASE("wrong arithmetic is reported as what it is, with its place", "[imports][shell]")
{
    struct Case {
        std::string expression;
        std::string problem;
    };
    const std::vector<Case> cases{
        {"$((1/0))", "division by zero"},
        {"$(( 7 % (2-2) ))", "division by zero"},
        {"$((9223372036854775807+1))", "arithmetic overflow"},
        {"$((-9223372036854775807-2))", "arithmetic overflow"},
        {"$((3037000500*3037000500))", "arithmetic overflow"},
        {"$((2**64))", "arithmetic overflow"},
        {"$((99999999999999999999))", "arithmetic overflow"},
        {"$((2**-1))", "a negative exponent"},
    };
    for (const Case& c : cases) {
        INFO(c.expression);
        ImportReport report;
        readShellScripts({{"s.sh", "N=4\nX=" + c.expression + "\n"}}, report);
        CHECK(hasLine(report.errors, {"s.sh:2:3: \"" + c.expression + "\": " + c.problem}));
    }
}

TEST_CASE("arithmetic that is right is evaluated, even a power with a huge exponent",
          "[imports][shell]")
{
    ImportReport report;
    const ShellScript s = readShellScripts(
        {{"s.sh", "N=4\nrun $((1**9223372036854775807)) $((2**62)) $((-8/N)) $((N%3)) "
                  "$((UNSET/0))\n"}},
        report);
    INFO(report.errors.formatAll());
    CHECK(report.errors.empty()); // an unset variable is left to the run, not wrong
    REQUIRE(s.commands.size() == 1);
    CHECK(wordsOf(s.commands[0]) ==
          std::vector<std::string>{"run", "1", "4611686018427387904", "-2", "1", "$(...)"});
}

TEST_CASE("an array assigned from itself sees its old elements", "[imports][shell]")
{
    ImportReport report;
    const ShellScript s = readShellScripts(
        {{"s.sh", "ARGS=(--a 1)\nARGS=(\"${ARGS[@]}\" --b 2)\nrun \"${ARGS[@]}\"\n"}}, report);
    REQUIRE(s.commands.size() == 1);
    CHECK(wordsOf(s.commands[0]) == std::vector<std::string>{"run", "--a", "1", "--b", "2"});
}

TEST_CASE("a test with many negations is read without recursion", "[imports][shell]")
{
    ImportReport report;
    const ShellScript s =
        readShellScripts({{"s.sh", "if [ " + repeated("! ", 100001) +
                                       "x ]; then\n  A=1\nelse\n  A=2\nfi\nrun $A\n"}},
                         report);
    REQUIRE(s.commands.size() == 1);
    CHECK(wordsOf(s.commands[0]) == std::vector<std::string>{"run", "2"}); // odd: negated
}
