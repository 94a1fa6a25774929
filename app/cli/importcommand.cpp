// import: what engineers already have (Megatron launch scripts and logs, NeMo configs, MLPerf
// result logs, Slurm topologies) turned into the descriptions of formats.md, and the PyTorch
// profiler traces of a run read as its measurement (import trace).

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <ostream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "common.h"
#include "fileio.h"
#include "importrequest.h"
#include "loader.h"
#include "mllog.h"
#include "options.h"
#include "profilejson.h"
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
     {"--cluster", "CLUSTER", "(trace) the cluster the run ran on", {}, FileRole::Input},
     {"--run",
      "RUN",
      "(trace) the run the profile measures: compared with its prediction",
      {},
      FileRole::Input},
     {"--json", "", "(mllog, trace) print the figures as JSON"}},
    "Megatron, NeMo, MLPerf and Slurm files to descriptions",
    "Turns what a training run already has into ClusterScope descriptions:\n"
    "  megatron SCRIPT... [--log LOG]  a Megatron-LM launch script or command line (and the\n"
    "                                  scripts it needs, in order) -> a run; the log's 'elapsed\n"
    "                                  time per iteration' lines -> the measured step time\n"
    "  nemo CONFIG                     a NeMo / Megatron-Bridge YAML or JSON config -> a run\n"
    "  mllog RESULT [--system SYS]     an MLPerf Training result log -> step time, steps, time\n"
    "                                  to train; the system description -> a cluster\n"
    "  slurm TOPOLOGY --gpu NAME --gpus-per-node N [--down FILE]\n"
    "                                  a Slurm topology.conf -> a cluster\n"
    "  trace FILE|FOLDER... [--cluster CLUSTER --run RUN]\n"
    "                                  PyTorch profiler traces (one per rank, .json or\n"
    "                                  .json.gz) -> per rank and step: kernel time by kind,\n"
    "                                  exposed communication, idle; with a cluster and run,\n"
    "                                  the measured breakdown beside the predicted one\n\n"
    "The description goes to OUT (-o) or to standard output. What was assumed or ignored is\n"
    "printed on standard error as 'note: FILE:LINE:COLUMN: ...'.",
    1}; // KIND is a word, the files follow it

namespace {

using nlohmann::json;

struct ImportArgs : ImportRequest {
    std::string output;
    std::string cluster; // import trace
    std::string run;
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
    a.cluster = p.value("--cluster").value_or("");
    a.run = p.value("--run").value_or("");
    a.json = p.has("--json");
    if (p.has("--gpus-per-node")) {
        const std::optional<int> n = p.positiveInt("--gpus-per-node", 0, io);
        if (!n)
            return std::nullopt;
        a.gpusPerNode = *n;
    }
    if (a.kind != "trace" &&
        std::find(kImportKinds.begin(), kImportKinds.end(), a.kind) == kImportKinds.end()) {
        problem = "unknown KIND " + inQuotes(a.kind) + ": megatron, nemo, mllog, slurm or trace";
        return std::nullopt;
    }
    auto refuse = [&](bool wrong, const std::string& why) {
        if (wrong && problem.empty())
            problem = why;
    };
    refuse(a.kind != "megatron" && a.kind != "trace" && a.files.size() > 1,
           "import " + a.kind + " reads one FILE");
    refuse(a.kind != "trace" && (!a.cluster.empty() || !a.run.empty()),
           "--cluster and --run are for 'import trace'");
    refuse(a.kind == "trace" && a.cluster.empty() != a.run.empty(),
           "import trace takes --cluster and --run together");
    refuse(a.kind == "trace" && !a.output.empty(),
           "import trace prints its figures; -o is not for it");
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

// import trace: the profile's figures, text or JSON, and with a cluster and run the measured
// breakdown beside the predicted one.
void printRanks(const MeasuredProfile& p, std::ostream& out)
{
    constexpr size_t kShownRanks = 64;
    out << "  rank  steps  step (median)  compute busy  exposed comm      idle  file\n";
    for (size_t i = 0; i < p.ranks.size() && i < kShownRanks; ++i) {
        const RankProfile& r = p.ranks[i];
        double busy = 0, exposed = 0, idle = 0;
        for (const StepFigures& s : r.steps) {
            busy += s.computeBusyS;
            exposed += s.exposedCommS;
            idle += s.idleS;
        }
        const double n = double(std::max<size_t>(1, r.steps.size()));
        char line[160];
        std::snprintf(line, sizeof line, "  %4d  %5zu  %13s  %12s  %12s  %8s  ", r.rank,
                      r.steps.size(), inStepTimeText(r.medianStepS()).c_str(),
                      inStepTimeText(busy / n).c_str(), inStepTimeText(exposed / n).c_str(),
                      inStepTimeText(idle / n).c_str());
        out << line << printablePath(r.file) << "\n";
    }
    if (p.ranks.size() > kShownRanks)
        out << "  ... and " << p.ranks.size() - kShownRanks << " more ranks (--json lists all)\n";
    out << "  (per step, the mean over the rank's steps)\n\nKernel time over the whole trace:\n";
    for (size_t i = 0; i < p.ranks.size() && i < kShownRanks; ++i) {
        const RankProfile& r = p.ranks[i];
        out << "  rank " << r.rank << ":";
        for (const KernelKindInfo& k : kKernelKinds)
            if (r.totalKernelS[k.kind] > 0)
                out << " " << k.key << " " << inStepTimeText(r.totalKernelS[k.kind]);
        out << "; compute busy " << inStepTimeText(r.totalComputeBusyS) << "\n";
    }
}

void printComparison(const ProfileComparison& m, std::ostream& out)
{
    out << "\nBeside the prediction (rank " << m.rank << ", pipeline stage " << m.stage
        << ", each GPU's own step):\n";
    out << "  part                measured   predicted  difference\n";
    for (const PartComparison& p : m.parts) {
        char line[160];
        std::snprintf(line, sizeof line, "  %-16s  %10s  %10s  %10s", p.label.c_str(),
                      inStepTimeText(p.measuredS).c_str(), inStepTimeText(p.predictedS).c_str(),
                      inStepTimeText(p.difference()).c_str());
        out << line;
        if (p.relative())
            out << "  " << signedPercentText(*p.relative());
        out << "\n";
    }
    out << "  step              " << stepTimeText(m.measuredStepS) << " measured, "
        << stepTimeText(m.predictedStepS) << " predicted\n  " << m.summary << "\n";
    // Groups alike (same label, size and description) on one line.
    std::map<std::tuple<std::string, size_t, std::string>, int> alike;
    for (const GroupMatch& g : m.groups)
        if (g.ranks.size() > 1)
            ++alike[{g.label, g.ranks.size(), g.description}];
    out << "Process groups:\n";
    for (const auto& [key, count] : alike) {
        const auto& [label, size, description] = key;
        out << "  " << label << ": " << count << (count == 1 ? " group" : " groups") << " of "
            << size << " ranks" << (description.empty() ? "" : " (" + printable(description) + ")")
            << "\n";
    }
}

json diagnosticsJson(const Diagnostics& d)
{
    json list = json::array();
    for (const Diagnostic& item : d.items())
        list.push_back(validUtf8(item.format()));
    return list;
}

int importTrace(const ImportArgs& a, Io io)
{
    std::optional<ClusterRun> cr;
    if (!a.cluster.empty()) {
        cr = loadClusterAndRun(a.cluster, a.run, true, io);
        if (!cr)
            return kExitBadInput;
    }
    ReadProfileOptions options;
    options.keepKernels = false;
    const MeasuredProfile p = readProfile(a.files, options);
    for (const Diagnostic& d : p.notes.items())
        io.err << "note: " << d.format() << "\n";
    printDiagnostics(p.errors, io.err);
    if (p.ranks.empty()) {
        io.err << "no trace could be read\n";
        return kExitBadInput;
    }
    std::optional<ProfileComparison> compared;
    std::optional<Evaluation> evaluation;
    if (cr) {
        evaluation = evaluate(cr->cluster, cr->run);
        compared = compareWithPrediction(p, cr->cluster, cr->run, *evaluation);
        for (const Diagnostic& d : compared->notes.items())
            io.err << "note: " << d.format() << "\n";
    }
    if (a.json) {
        json j = profileJson(p);
        if (compared)
            addComparisonJson(j, *compared, *evaluation);
        j["notes"] = diagnosticsJson(p.notes);
        j["refused"] = diagnosticsJson(p.errors);
        io.out << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    } else {
        io.out << "Measured profile: " << p.ranks.size() << " of " << withThousands(p.worldSize)
               << " ranks; step " << stepTimeText(p.stepTimeS) << " (median), slowest rank "
               << p.slowestRank << "\n  clocks: " << p.alignment.summary << "\n\n";
        printRanks(p, io.out);
        if (compared)
            printComparison(*compared, io.out);
    }
    return p.errors.empty() ? kExitOk : kExitBadInput;
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
    if (a->kind == "trace")
        return importTrace(*a, io);
    const std::optional<json> document = importDescription(*a, report);
    printReport(report, io);
    if (!document || !report.errors.empty())
        return kExitBadInput;
    return emit(*document, a->output, io);
}

} // namespace cs::cli
