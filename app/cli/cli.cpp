#include <functional>
#include <map>
#include <ostream>

#include "clicommands.h"

namespace cs::cli {

namespace {

struct Command {
    int (*run)(const Args&, Io);
    const char* synopsis;
};

const std::map<std::string, Command>& commands()
{
    static const std::map<std::string, Command> table{
        {"check",
         {runCheck, "check FILE...                   validate cluster, run and session files"}},
        {"describe",
         {runDescribe,
          "describe FILE...                counts, bandwidths, what crosses the fabric"}},
        {"evaluate",
         {runEvaluate, "evaluate CLUSTER RUN [--json]   the cost model's answer for one step"}},
        {"validate-runs",
         {runValidateRuns, "validate-runs FILE.jsonl [--json] predicted vs measured, MAPE"}},
        {"search",
         {runSearch, "search CLUSTER RUN [--top N] [--json] the best parallel layouts, ranked"}},
        {"import",
         {runImport,
          "import KIND FILE... [-o OUT]     Megatron, NeMo, MLPerf, Slurm files to descriptions"}},
        {"trace",
         {runTrace, "trace CLUSTER RUN -o OUT.json   the predicted step as Chrome trace events"}},
    };
    return table;
}

void printHelp(std::ostream& out)
{
    out << "Usage: clusterscope-cli COMMAND [ARGS...]\n\n"
           "See a GPU training cluster and predict where a training step's time goes.\n\n"
           "Commands:\n";
    for (const auto& [name, command] : commands())
        out << "  " << command.synopsis << "\n";
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
    const auto it = commands().find(name);
    if (it == commands().end()) {
        io.err << "clusterscope-cli: unknown command '" << name << "'\n";
        printHelp(io.err);
        return kExitUsage;
    }
    return it->second.run(Args(argv.begin() + 1, argv.end()), io);
}

} // namespace cs::cli
