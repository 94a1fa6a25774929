// import: what engineers already have (Megatron launch scripts and logs, NeMo configs, MLPerf
// result logs, Slurm topologies) turned into the descriptions of formats.md.

#include <algorithm>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "fileio.h"
#include "format.h"
#include "megatron.h"
#include "mllog.h"
#include "nemo.h"
#include "slurmtopology.h"

namespace cs::cli {
namespace {

using nlohmann::json;

constexpr const char* kSynopsis =
    "import KIND FILE... [-o OUT] [--log LOG] [--system SYS] [--gpu NAME --gpus-per-node N] "
    "[--down FILE] [--json]";

struct ImportArgs {
    std::string kind;
    std::vector<std::string> files;
    std::string output;
    std::string log;
    std::string system;
    std::string gpu;
    int gpusPerNode = 0;
    std::string down;
    bool json = false;
    bool help = false;
};

// The words after "import"; nothing, with the problem, on bad usage.
std::optional<ImportArgs> parseImportArgs(const Args& args, std::string& problem)
{
    ImportArgs a;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& w = args[i];
        auto value = [&]() -> std::optional<std::string> {
            if (i + 1 < args.size())
                return args[++i];
            problem = w + " needs a value";
            return std::nullopt;
        };
        std::string* target = w == "-o" || w == "--output" ? &a.output
                              : w == "--log"               ? &a.log
                              : w == "--system"            ? &a.system
                              : w == "--gpu"               ? &a.gpu
                              : w == "--down"              ? &a.down
                                                           : nullptr;
        if (w == "--help" || w == "-h") {
            a.help = true;
        } else if (w == "--json") {
            a.json = true;
        } else if (target) {
            const auto v = value();
            if (!v)
                return std::nullopt;
            *target = *v;
        } else if (w == "--gpus-per-node") {
            const auto v = value();
            if (!v)
                return std::nullopt;
            try {
                size_t used = 0;
                a.gpusPerNode = std::stoi(*v, &used);
                if (used != v->size() || a.gpusPerNode < 1)
                    throw std::invalid_argument(*v);
            } catch (const std::exception&) {
                problem = "--gpus-per-node needs a positive number, got '" + *v + "'";
                return std::nullopt;
            }
        } else if (w.size() > 1 && w[0] == '-') {
            problem = "unknown option '" + w + "'";
            return std::nullopt;
        } else if (a.kind.empty()) {
            a.kind = w;
        } else {
            a.files.push_back(w);
        }
    }
    if (a.help)
        return a;
    static const std::vector<std::string> kKinds{"megatron", "nemo", "mllog", "slurm"};
    if (std::find(kKinds.begin(), kKinds.end(), a.kind) == kKinds.end()) {
        problem = a.kind.empty() ? "expected KIND: megatron, nemo, mllog or slurm"
                                 : "unknown KIND '" + a.kind + "': megatron, nemo, mllog or slurm";
        return std::nullopt;
    }
    auto refuse = [&](bool wrong, const std::string& why) {
        if (wrong && problem.empty())
            problem = why;
    };
    refuse(a.files.empty(), "no FILE given");
    refuse(a.kind != "megatron" && a.files.size() > 1, "import " + a.kind + " reads one FILE");
    refuse(!a.log.empty() && a.kind != "megatron", "--log is for 'import megatron'");
    refuse(!a.system.empty() && a.kind != "mllog", "--system is for 'import mllog'");
    refuse(a.kind != "slurm" && (!a.gpu.empty() || a.gpusPerNode || !a.down.empty()),
           "--gpu, --gpus-per-node and --down are for 'import slurm'");
    refuse(a.kind == "slurm" && (a.gpu.empty() || !a.gpusPerNode),
           "import slurm needs --gpu NAME and --gpus-per-node N");
    refuse(a.kind == "mllog" && !a.output.empty() && a.system.empty(),
           "-o writes the cluster of --system SYSTEM.json: give it");
    if (!problem.empty())
        return std::nullopt;
    return a;
}

void printHelp(std::ostream& out)
{
    out << "Usage: clusterscope-cli " << kSynopsis
        << "\n\nTurns what a training run already has into ClusterScope descriptions:\n"
           "  megatron SCRIPT... [--log LOG]  a Megatron-LM launch script or command line (and\n"
           "                                  the scripts it needs, in order) -> a run; the\n"
           "                                  log's 'elapsed time per iteration' lines -> the\n"
           "                                  measured step time\n"
           "  nemo CONFIG                     a NeMo / Megatron-Bridge YAML or JSON config -> a "
           "run\n"
           "  mllog RESULT [--system SYS]     an MLPerf Training result log -> step time, steps,\n"
           "                                  time to train; the system description -> a cluster\n"
           "  slurm TOPOLOGY --gpu NAME --gpus-per-node N [--down FILE]\n"
           "                                  a Slurm topology.conf -> a cluster (the nodes FILE\n"
           "                                  lists out of service)\n\n"
           "The description goes to OUT (-o) or to standard output. What was assumed or ignored\n"
           "is printed on standard error as 'note: FILE:LINE:COLUMN: ...'.\n"
           "  --json   (mllog) print step_time_s, global_batch, seq_len, steps and run_time_s as\n"
           "           JSON\n"
           "Exit status: 0 success, 1 bad input, 2 bad usage.\n";
}

void printReport(const ImportReport& report, Io io)
{
    for (const Diagnostic& d : report.notes.items())
        io.err << "note: " << d.format() << "\n";
    for (const Diagnostic& d : report.errors.items())
        io.err << d.format() << "\n";
}

std::optional<SourceText> read(const std::string& path, ImportReport& report)
{
    return path.empty() ? std::nullopt : readSource(path, report);
}

// The description, written to -o OUT or printed.
int emit(const json& document, const std::string& output, Io io)
{
    const std::string text = document.dump(2) + "\n";
    if (output.empty()) {
        io.out << text;
        return kExitOk;
    }
    Diagnostics diags;
    if (!writeFileAtomically(output, text, diags)) {
        for (const Diagnostic& d : diags.items())
            io.err << d.format() << "\n";
        return kExitBadInput;
    }
    io.out << "wrote " << output << " (" << document.value("name", std::string()) << ")\n";
    return kExitOk;
}

void printMlperf(const MlperfResult& r, const std::string& file, std::ostream& out)
{
    out << file << ": " << (r.benchmark.empty() ? "MLPerf Training result" : r.benchmark)
        << ", global batch " << withCommas(r.globalBatch);
    if (r.seqLen)
        out << ", sequence " << withCommas(*r.seqLen);
    out << "\n  step time      " << fixed(r.stepTimeS, 4) << " s (" << r.stepSource << ")\n";
    if (r.steps)
        out << "  steps          " << withCommas(*r.steps) << "\n";
    if (r.runTimeS)
        out << "  time to train  " << fixed(*r.runTimeS, 1) << " s (" << fixed(*r.runTimeS / 60, 2)
            << " min, run_start to run_stop" << (r.status.empty() ? "" : ", " + r.status) << ")\n";
}

int importMllog(const ImportArgs& a, ImportReport& report, Io io)
{
    const auto log = read(a.files.front(), report);
    const auto system = read(a.system, report);
    std::optional<MlperfResult> result;
    std::optional<json> cluster;
    if (log)
        result = readMllog(*log, report);
    if (system)
        cluster = clusterFromSystemDescription(*system, report);
    printReport(report, io);
    if (!result || (!a.system.empty() && !cluster))
        return kExitBadInput;
    if (a.json) {
        json j = mlperfResultJson(*result);
        if (cluster)
            j["cluster"] = *cluster;
        io.out << j.dump(2) << "\n";
    } else {
        printMlperf(*result, a.files.front(), io.out);
    }
    if (!a.output.empty())
        return emit(*cluster, a.output, io);
    if (cluster && !a.json)
        io.out << "  cluster        " << cluster->value("name", std::string()) << ": "
               << withCommas(cluster->value("racks", 0)) << " racks x "
               << cluster->value("nodes_per_rack", 0) << " nodes x "
               << cluster->value("gpus_per_node", 0) << " " << cluster->value("gpu", std::string())
               << " (write it with -o CLUSTER.json)\n";
    return kExitOk;
}

std::optional<json> importDescription(const ImportArgs& a, ImportReport& report)
{
    if (a.kind == "megatron") {
        std::vector<SourceText> scripts;
        for (const std::string& f : a.files) {
            if (auto s = read(f, report))
                scripts.push_back(std::move(*s));
        }
        const auto log = read(a.log, report);
        if (scripts.size() != a.files.size() || (!a.log.empty() && !log))
            return std::nullopt;
        return importMegatron(scripts, log ? &*log : nullptr, report);
    }
    const auto file = read(a.files.front(), report);
    if (!file)
        return std::nullopt;
    if (a.kind == "nemo")
        return importNemo(*file, report);
    const auto down = read(a.down, report);
    if (!a.down.empty() && !down)
        return std::nullopt;
    return importSlurmTopology(*file, {a.gpu, a.gpusPerNode, down ? &*down : nullptr}, report);
}

} // namespace

int runImport(const Args& args, Io io)
{
    std::string problem;
    const std::optional<ImportArgs> a = parseImportArgs(args, problem);
    if (!a) {
        io.err << "clusterscope-cli import: " << problem << "\nUsage: clusterscope-cli "
               << kSynopsis << "\n";
        return kExitUsage;
    }
    if (a->help) {
        printHelp(io.out);
        return kExitOk;
    }
    ImportReport report;
    if (a->kind == "mllog")
        return importMllog(*a, report, io);
    const std::optional<json> document = importDescription(*a, report);
    printReport(report, io);
    if (!document || !report.errors.empty())
        return kExitBadInput;
    return emit(*document, a->output, io);
}

} // namespace cs::cli
