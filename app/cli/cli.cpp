#include <ostream>

#include "clicommands.h"
#include "options.h"
#include "text.h"

namespace cs::cli {

namespace {

struct Command {
    const CommandSpec& spec;
    int (*run)(const Args&, Io);
};

// In the order of the help text.
const std::vector<Command>& commands()
{
    static const std::vector<Command> table{
        {kCheckSpec, runCheck},
        {kDescribeSpec, runDescribe},
        {kEvaluateSpec, runEvaluate},
        {kCompareSpec, runCompare},
        {kLinksSpec, runLinks},
        {kPlaceSpec, runPlace},
        {kValidateRunsSpec, runValidateRuns},
        {kSearchSpec, runSearch},
        {kImportSpec, runImport},
        {kTraceSpec, runTrace},
        {kCalibrateSpec, runCalibrate},
    };
    return table;
}

void printHelp(std::ostream& out)
{
    out << "Usage: clusterscope-cli COMMAND [ARGS...]\n\n"
           "See a GPU training cluster and predict where a training step's time goes.\n\n"
           "Commands:\n";
    for (const Command& c : commands())
        out << "  " << c.spec.synopsis() << "\n      " << c.spec.summary << "\n";
    out << "\nRun 'clusterscope-cli COMMAND --help' for a command's options.\n"
           "Exit status: 0 success, 1 bad input, 2 bad usage.\n";
}

} // namespace

int run(const Args& argv, Io io)
{
    if (argv.empty()) {
        printHelp(io.err);
        return kExitUsage;
    }
    const std::string& name = argv.front();
    if (name == "--help" || name == "-h" || name == "help") {
        printHelp(io.out);
        return kExitOk;
    }
    if (name == "--version") {
        io.out << "clusterscope-cli " << CLUSTERSCOPE_VERSION << "\n";
        return kExitOk;
    }
    for (const Command& c : commands())
        if (c.spec.name == name)
            return c.run(Args(argv.begin() + 1, argv.end()), io);
    io.err << "clusterscope-cli: unknown command " << inQuotes(name) << "\n";
    printHelp(io.err);
    return kExitUsage;
}

} // namespace cs::cli
