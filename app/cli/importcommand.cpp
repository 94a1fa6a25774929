// import: what engineers already have (Megatron launch scripts and logs, NeMo configs, MLPerf
// result logs, Slurm topologies) turned into the descriptions of formats.md.

#include <algorithm>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "common.h"
#include "fileio.h"
#include "importrequest.h"
#include "loader.h"
#include "mllog.h"
#include "options.h"
#include "text.h"

namespace cs::cli {

const CommandSpec kImportSpec{
    "import",
    "KIND FILE...",
    2,
    SIZE_MAX,
    {{"--output", "OUT", "write the description to OUT (default: standard output)", "-o",
      FileRole::Output},
     {"--log", "LOG", "(megatron) the training log: its per-iteration times", {}, FileRole::Input},
     {"--system",
      "SYS",
      "(mllog) the submission's system description: a cluster",
      {},
      FileRole::Input},
     {"--gpu", "NAME", "(slurm) the GPU of every node"},
     {"--gpus-per-node", "N", "(slurm) GPUs per node"},
     {"--down",
      "FILE",
      "(slurm) nodes out of service, one hostname or hostlist a line",
      {},
      FileRole::Input},
     {"--json", "", "(mllog) print step_time_s, global_batch, seq_len, steps and run_time_s"}},
    "Megatron, NeMo, MLPerf and Slurm files to descriptions",
    "Turns what a training run already has into ClusterScope descriptions:\n"
    "  megatron SCRIPT... [--log LOG]  a Megatron-LM launch script or command line (and the\n"
    "                                  scripts it needs, in order) -> a run; the log's 'elapsed\n"
    "                                  time per iteration' lines -> the measured step time\n"
    "  nemo CONFIG                     a NeMo / Megatron-Bridge YAML or JSON config -> a run\n"
    "  mllog RESULT [--system SYS]     an MLPerf Training result log -> step time, steps, time\n"
    "                                  to train; the system description -> a cluster\n"
    "  slurm TOPOLOGY --gpu NAME --gpus-per-node N [--down FILE]\n"
    "                                  a Slurm topology.conf -> a cluster\n\n"
    "The description goes to OUT (-o) or to standard output. What was assumed or ignored is\n"
    "printed on standard error as 'note: FILE:LINE:COLUMN: ...'.",
    1}; // KIND is a word, the files follow it

namespace {

using nlohmann::json;

struct ImportArgs : ImportRequest {
    std::string output;
    bool json = false;
};

// What the options say, checked against the KIND they go with; nothing, with the problem, on
// bad usage.
std::optional<ImportArgs> importArgsOf(const ParsedArgs& p, std::string& problem, Io io)
{
    ImportArgs a;
    a.kind = p.positional.front();
    a.files.assign(p.positional.begin() + 1, p.positional.end());
    a.output = p.value("--output").value_or("");
    a.log = p.value("--log").value_or("");
    a.system = p.value("--system").value_or("");
    a.gpu = p.value("--gpu").value_or("");
    a.down = p.value("--down").value_or("");
    a.json = p.has("--json");
    if (p.has("--gpus-per-node")) {
        const std::optional<int> n = p.positiveInt("--gpus-per-node", 0, io);
        if (!n)
            return std::nullopt;
        a.gpusPerNode = *n;
    }
    if (std::find(kImportKinds.begin(), kImportKinds.end(), a.kind) == kImportKinds.end()) {
        problem = "unknown KIND " + inQuotes(a.kind) + ": megatron, nemo, mllog or slurm";
        return std::nullopt;
    }
    auto refuse = [&](bool wrong, const std::string& why) {
        if (wrong && problem.empty())
            problem = why;
    };
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

void printReport(const ImportReport& report, Io io)
{
    for (const Diagnostic& d : report.notes.items())
        io.err << "note: " << d.format() << "\n";
    for (const Diagnostic& d : report.errors.items())
        io.err << d.format() << "\n";
}

// The description, written to -o OUT or printed; never one that ClusterScope would not open.
int emit(const json& document, const std::string& output, Io io)
{
    const std::string text = document.dump(2) + "\n";
    Diagnostics diags;
    if (!checkReadsBack(text, output.empty() ? "(standard output)" : output, diags)) {
        printDiagnostics(diags, io.err);
        io.err << "nothing written: the description would not open again\n";
        return kExitBadInput;
    }
    if (output.empty()) {
        io.out << text;
        return kExitOk;
    }
    if (!writeFileAtomically(output, text, diags)) {
        printDiagnostics(diags, io.err);
        return kExitBadInput;
    }
    io.out << "wrote " << printablePath(output) << " ("
           << printable(document.value("name", std::string())) << ")\n";
    return kExitOk;
}

void printMlperf(const MlperfResult& r, const std::string& file, std::ostream& out)
{
    out << printablePath(file) << ": "
        << (r.benchmark.empty() ? "MLPerf Training result" : printable(r.benchmark))
        << ", global batch " << withThousands(r.globalBatch);
    if (r.seqLen)
        out << ", sequence " << withThousands(*r.seqLen);
    out << "\n  step time      " << fixed(r.stepTimeS, 4) << " s (" << printable(r.stepSource)
        << ")\n";
    if (r.steps)
        out << "  steps          " << withThousands(*r.steps) << "\n";
    if (r.runTimeS)
        out << "  time to train  " << fixed(*r.runTimeS, 1) << " s (" << fixed(*r.runTimeS / 60, 2)
            << " min, run_start to run_stop" << (r.status.empty() ? "" : ", " + printable(r.status))
            << ")\n";
}

int importMllog(const ImportArgs& a, ImportReport& report, Io io)
{
    const auto log = readGivenSource(a.files.front(), report);
    const auto system = readGivenSource(a.system, report);
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
        io.out << "  cluster        " << inQuotes(cluster->value("name", std::string())) << ": "
               << withThousands(cluster->value("racks", 0)) << " racks x "
               << cluster->value("nodes_per_rack", 0) << " nodes x "
               << cluster->value("gpus_per_node", 0) << " "
               << printable(cluster->value("gpu", std::string()))
               << " (write it with -o CLUSTER.json)\n";
    return kExitOk;
}

} // namespace

int runImport(const Args& args, Io io)
{
    auto parsed = parseCommand(kImportSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    std::string problem;
    const std::optional<ImportArgs> a = importArgsOf(std::get<ParsedArgs>(parsed), problem, io);
    if (!a)
        return problem.empty() ? kExitUsage : usageProblem(kImportSpec, problem, io);
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
