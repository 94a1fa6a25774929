#pragma once
// The part of a shell script that launch scripts use to build a command line: variables and
// arrays and their expansion ($X, ${X}, ${X:-default}, "${ARGS[@]}"), arithmetic ($((A*B))),
// if/elif/else on simple tests, continuation lines, comments and "#SBATCH" directives. Nothing
// is run: what cannot be known without running (command substitution, the environment,
// positional arguments without a default) stays as written.

#include <string>
#include <vector>

#include "importreport.h"

namespace cs {

struct ShellWord {
    std::string text;
    SourcePlace place; // where the word's first character was written
};

struct ShellCommand {
    // Expanded and split as the shell would; the string of "bash -c STRING" (or sh) is read as
    // words of the same command, so that "srun ... bash -c 'python train.py ...'" is one.
    std::vector<ShellWord> words;
    SourcePlace place;            // where the command starts
    bool sbatchDirective = false; // an "#SBATCH ..." line
};

struct ShellVariable {
    std::string name;
    std::string value; // the last value set; an array's elements joined by blanks
    SourcePlace place; // where the value's first character was written
};

struct ShellScript {
    std::vector<ShellCommand> commands; // in the order a run would meet them
    std::vector<ShellVariable> variables;
};

// Reads the scripts in order, as if sourced one after the other: later ones see the variables
// of earlier ones. Branches whose test cannot be evaluated are taken, with a note. A script past
// one of the limits of shelllimits.h, or with wrong arithmetic ($((1/0))), gets an error naming
// the line; reading stops at a limit.
ShellScript readShellScripts(const std::vector<SourceText>& sources, ImportReport& report);

} // namespace cs
