// The importers' hostile inputs of issue 35, as a user would give them to the command line: in a
// child process under an address-space limit and a time limit (helpers/bounded.h), each is
// refused with exit 1 and a message naming the line, and the file is left as it was.

#include <catch2/catch.hpp>

#include "../helpers/bounded.h"
#include "clicommands.h"
#include "clirun.h"
#include "importdata.h"

using testing::BoundedRun;
using testing::contentOf;
using testing::ScratchDir;
using testing::writeContent;

namespace {

// Far below what the inputs took before (5 to 12 GB, or a crash): a regression fails here.
constexpr long kHostileImportMemoryMiB = 512;
constexpr unsigned kHostileImportSeconds = 120;

} // namespace

TEST_CASE("runaway launch scripts and a deep switch chain are refused in bounded memory",
          "[hostile][imports]")
{
    const std::string launch = "torchrun pretrain_gpt.py --num-layers 4 --hidden-size 1024 "
                               "--num-attention-heads 16 --seq-length 2048 --micro-batch-size 1 "
                               "--global-batch-size 8 --padded-vocab-size 32000 ";
    std::string chain = "SwitchName=s0 Nodes=gpu[1-4]\n";
    for (int i = 1; i < 50000; ++i)
        chain += "SwitchName=s" + std::to_string(i) + " Switches=s" + std::to_string(i - 1) + "\n";
    struct Case {
        std::string name;
        std::vector<std::string> args; // FILE stands for the input
        std::string input;
        std::string says;
    };
    const std::vector<Case> cases{
        {"A=\"$A $A\" 40 times",
         {"import", "megatron", "FILE"},
         "A=--bf16\n" + repeated("A=\"$A $A\"\n", 40) + launch + "$A\n",
         "FILE:15:1: a word expands to more than 65,536 bytes"},
        {"ARGS+=(\"${ARGS[@]}\") 24 times",
         {"import", "megatron", "FILE"},
         "ARGS=(--bf16)\n" + repeated("ARGS+=(\"${ARGS[@]}\")\n", 24) + launch + "\"${ARGS[@]}\"\n",
         "FILE:14:1: ARGS would hold 8,192 elements"},
        {"${A:- nested 400,000 deep",
         {"import", "megatron", "FILE"},
         launch + repeated("${A:-", 400000) + "x" + std::string(400000, '}') + "\n",
         "FILE: 2,400,"},
        {"$((1/0))",
         {"import", "megatron", "FILE"},
         "TP=$((1/0))\n" + launch + "--tensor-model-parallel-size $TP\n",
         "FILE:1:4: \"$((1/0))\": division by zero"},
        {"a chain of 50,000 switches",
         {"import", "slurm", "FILE", "--gpu", "H100", "--gpus-per-node", "8"},
         chain,
         "FILE:65:1: switch \"s64\" has more than 64 tiers of switches below it"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        ScratchDir dir;
        const std::string file = dir.path("input");
        writeContent(file, c.input);
        cs::cli::Args args;
        for (const std::string& a : c.args)
            args.push_back(a == "FILE" ? file : a);
        const BoundedRun r = runCliBounded(args, kHostileImportMemoryMiB, kHostileImportSeconds);
        INFO(r.describe());
        CHECK(r.clean());
        CHECK(r.status == 1);
        std::string says = c.says;
        says.replace(0, 4, file);
        CHECK(r.err.find(says) != std::string::npos);
        CHECK(contentOf(file) == c.input);
    }
}
