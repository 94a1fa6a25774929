#pragma once
// A clusterscope-cli command run inside a test: its exit status and what it printed.

#include <sstream>
#include <string>

#include "clicommands.h"

struct CliRun {
    int status = -1;
    std::string out;
    std::string err;
};

inline CliRun runCli(const cs::cli::Args& args)
{
    std::ostringstream out, err;
    CliRun r;
    r.status = cs::cli::run(args, {out, err});
    r.out = out.str();
    r.err = err.str();
    return r;
}
