#pragma once
// A clusterscope-cli command run inside a test: its exit status and what it printed.

#include <sstream>
#include <string>

#include "../helpers/bounded.h"
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

// The command run in a child process whose address space may grow by `memoryMiB` and that has
// `seconds` of wall time (helpers/bounded.h): the way the hostile-input tests run it.
inline testing::BoundedRun runCliBounded(const cs::cli::Args& args, long memoryMiB,
                                         unsigned seconds)
{
    return testing::runBounded(
        [&](std::ostream& out, std::ostream& err) {
            return cs::cli::run(args, {out, err});
        },
        memoryMiB, seconds);
}
