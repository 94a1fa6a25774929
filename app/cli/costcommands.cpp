// evaluate, validate-runs and trace: the cost model on the command line.

#include <algorithm>
#include <cmath>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "costmodel.h"
#include "format.h"
#include "loader.h"
#include "measuredruns.h"
#include "trace.h"

namespace cs::cli {
namespace {

using nlohmann::json;

// The words of a command: positional arguments, flags, and `-o FILE`.
struct Parsed {
    std::vector<std::string> positional;
    bool json = false;
    bool help = false;
    std::optional<std::string> output;
    std::string error; // a usage problem
};

Parsed parseArgs(const Args& args, bool acceptsJson, bool acceptsOutput)
{
    Parsed p;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            p.help = true;
        } else if (a == "--json" && acceptsJson) {
            p.json = true;
        } else if ((a == "-o" || a == "--output") && acceptsOutput) {
            if (i + 1 >= args.size()) {
                p.error = a + " needs a file name";
                return p;
            }
            p.output = args[++i];
        } else if (a.size() > 1 && a[0] == '-') {
            p.error = "unknown option '" + a + "'";
            return p;
        } else {
            p.positional.push_back(a);
        }
    }
    return p;
}

int usage(const char* synopsis, const std::string& problem, Io io)
{
    io.err << "clusterscope-cli: " << problem << "\nUsage: clusterscope-cli " << synopsis << "\n";
    return kExitUsage;
}

void printDiagnostics(const Diagnostics& diags, Io io)
{
    for (const Diagnostic& d : diags.items())
        io.err << d.format() << "\n";
}

struct Loaded {
    ClusterDesc cluster;
    RunDesc run;
};

// Loads CLUSTER and RUN and checks the run on that cluster; problems go to io.err.
std::optional<Loaded> loadClusterAndRun(const std::string& clusterPath, const std::string& runPath,
                                        Io io)
{
    Diagnostics diags;
    const std::optional<LoadedFile> c = loadFile(clusterPath, diags);
    const std::optional<LoadedFile> r = loadFile(runPath, diags);
    if (c && c->kind != FileKind::Cluster)
        diags.atPointer(clusterPath, "/format",
                        std::string("is not a cluster (\"") + kClusterFormat + "\")");
    if (r && r->kind != FileKind::Run)
        diags.atPointer(runPath, "/format", std::string("is not a run (\"") + kRunFormat + "\")");
    if (!diags.empty() || !c || !r || !c->cluster || !r->run) {
        if (diags.empty())
            diags.atPointer(runPath, "", "could not be loaded");
        printDiagnostics(diags, io);
        return std::nullopt;
    }
    checkRunOnCluster(*r->run, *c->cluster, runPath, "", diags);
    if (!diags.empty()) {
        printDiagnostics(diags, io);
        return std::nullopt;
    }
    return Loaded{*c->cluster, *r->run};
}

json perDimJson(const PerDim& v)
{
    json j = json::object();
    for (Dim d : kAllDims)
        j[toString(d)] = v[d];
    return j;
}

json evaluationJson(const Evaluation& e, const RunDesc& run)
{
    json j;
    j["step_time_s"] = e.stepTimeS;
    json bd = json::object();
    for (const auto& [name, seconds] : e.breakdown.named())
        bd[name] = seconds;
    j["breakdown"] = bd;
    j["comm_total_s"] = perDimJson(e.commTotalS);
    j["comm_exposed_s"] = perDimJson(e.commExposedS);
    j["exposed_scale_out_s"] = e.exposedScaleOutS;
    j["mfu"] = e.mfu;
    j["tokens_per_s"] = e.tokensPerS;
    j["memory_gib_per_gpu"] = e.memoryGiBPerGpu;
    j["memory_gib_per_stage"] = e.memoryGiBPerStage;
    j["fits_memory"] = e.fitsMemory;
    if (e.timeToTrainS)
        j["time_to_train_s"] = *e.timeToTrainS;
    if (run.measured) {
        j["measured_s"] = run.measured->stepTimeS;
        j["error"] = e.stepTimeS / run.measured->stepTimeS - 1;
    }
    return j;
}

std::string percent(double fraction, int decimals = 1)
{
    return fixed(100 * fraction, decimals) + " %";
}

void printEvaluation(const Evaluation& e, const RunDesc& run, std::ostream& out)
{
    out << "step time          " << fixed(e.stepTimeS, 4) << " s\n";
    if (run.measured) {
        out << "measured           " << fixed(run.measured->stepTimeS, 4) << " s (error "
            << percent(e.stepTimeS / run.measured->stepTimeS - 1) << ")\n";
    }
    out << "breakdown (critical path):\n";
    for (const auto& [name, seconds] : e.breakdown.named()) {
        out << "  " << name << std::string(12 - std::string(name).size(), ' ') << fixed(seconds, 4)
            << " s  " << percent(seconds / e.stepTimeS) << "\n";
    }
    out << "communication per GPU (total / exposed):\n";
    for (Dim d : kAllDims) {
        out << "  " << toString(d) << "  " << fixed(e.commTotalS[d], 4) << " s / "
            << fixed(e.commExposedS[d], 4) << " s\n";
    }
    out << "exposed scale-out  " << fixed(e.exposedScaleOutS * 1e3, 1) << " ms ("
        << percent(e.exposedScaleOutS / e.stepTimeS) << ")\n";
    out << "MFU                " << percent(e.mfu) << "\n";
    out << "tokens/s           " << withCommas(int64_t(std::llround(e.tokensPerS))) << "\n";
    out << "memory per GPU     " << fixed(e.memoryGiBPerGpu, 1) << " GiB ("
        << (e.fitsMemory ? "fits" : "does NOT fit") << ")\n";
    if (e.timeToTrainS)
        out << "time to train      " << fixed(*e.timeToTrainS / 60, 2) << " min\n";
}

constexpr const char* kEvaluateSynopsis = "evaluate CLUSTER RUN [--json]";
constexpr const char* kValidateSynopsis = "validate-runs FILE.jsonl [--json]";
constexpr const char* kTraceSynopsis = "trace CLUSTER RUN -o OUT.json";

} // namespace

int runEvaluate(const Args& args, Io io)
{
    const Parsed p = parseArgs(args, true, false);
    if (p.help) {
        io.out << "Usage: clusterscope-cli " << kEvaluateSynopsis
               << "\n\nPredicts one training step of RUN on CLUSTER: step time, its breakdown on "
                  "the critical path,\ncommunication per dimension, MFU, memory per GPU. --json "
                  "prints one JSON object.\n";
        return kExitOk;
    }
    if (!p.error.empty())
        return usage(kEvaluateSynopsis, p.error, io);
    if (p.positional.size() != 2)
        return usage(kEvaluateSynopsis, "expected CLUSTER and RUN", io);
    const std::optional<Loaded> l = loadClusterAndRun(p.positional[0], p.positional[1], io);
    if (!l)
        return kExitBadInput;
    const Evaluation e = evaluate(l->cluster, l->run, {.withEvents = true});
    if (p.json)
        io.out << evaluationJson(e, l->run).dump(2) << "\n";
    else
        printEvaluation(e, l->run, io.out);
    return kExitOk;
}

int runValidateRuns(const Args& args, Io io)
{
    const Parsed p = parseArgs(args, true, false);
    if (p.help) {
        io.out << "Usage: clusterscope-cli " << kValidateSynopsis
               << "\n\nPredicts every measured run of FILE.jsonl and prints predicted, measured "
                  "and error per row,\nthen the mean absolute percentage error. --json prints "
                  "{rows: [{id, predicted_s, measured_s, error}], mape}\nwith errors as "
                  "fractions. Rows with problems are reported and left out (exit 1).\n";
        return kExitOk;
    }
    if (!p.error.empty())
        return usage(kValidateSynopsis, p.error, io);
    if (p.positional.size() != 1)
        return usage(kValidateSynopsis, "expected one FILE.jsonl", io);
    Diagnostics diags;
    const std::vector<MeasuredRun> runs = readMeasuredRuns(p.positional[0], diags);
    printDiagnostics(diags, io);
    if (runs.empty() && !diags.empty())
        return kExitBadInput;

    json rows = json::array();
    double sumAbs = 0;
    size_t width = 2;
    for (const MeasuredRun& r : runs)
        width = std::max(width, r.id.size());
    if (!p.json) {
        io.out << "id" << std::string(width - 2, ' ') << "  predicted_s  measured_s    error\n";
    }
    for (const MeasuredRun& r : runs) {
        const Evaluation e = evaluate(r.cluster, r.run, {.withEvents = true});
        const double measured = r.run.measured->stepTimeS;
        const double error = e.stepTimeS / measured - 1;
        sumAbs += std::abs(error);
        rows.push_back({{"id", r.id},
                        {"predicted_s", e.stepTimeS},
                        {"measured_s", measured},
                        {"error", error}});
        if (!p.json) {
            io.out << r.id << std::string(width - r.id.size(), ' ') << "  "
                   << std::string(11 - fixed(e.stepTimeS, 4).size(), ' ') << fixed(e.stepTimeS, 4)
                   << "  " << std::string(10 - fixed(measured, 4).size(), ' ') << fixed(measured, 4)
                   << "  " << (error >= 0 ? "+" : "") << percent(error) << "\n";
        }
    }
    const double mape = runs.empty() ? 0 : sumAbs / double(runs.size());
    if (p.json)
        io.out << json{{"rows", rows}, {"mape", mape}}.dump(2) << "\n";
    else
        io.out << "MAPE " << percent(mape, 2) << " over " << runs.size() << " runs\n";
    return diags.empty() ? kExitOk : kExitBadInput;
}

int runTrace(const Args& args, Io io)
{
    const Parsed p = parseArgs(args, false, true);
    if (p.help) {
        io.out << "Usage: clusterscope-cli " << kTraceSynopsis
               << "\n\nWrites the predicted step as Chrome trace events (open OUT.json in "
                  "Perfetto or chrome://tracing):\none process per pipeline stage with rows for "
                  "compute, TP/CP collectives, PP sends and the DP fabric.\n";
        return kExitOk;
    }
    if (!p.error.empty())
        return usage(kTraceSynopsis, p.error, io);
    if (p.positional.size() != 2 || !p.output)
        return usage(kTraceSynopsis, "expected CLUSTER RUN -o OUT.json", io);
    const std::optional<Loaded> l = loadClusterAndRun(p.positional[0], p.positional[1], io);
    if (!l)
        return kExitBadInput;
    const Evaluation e = evaluate(l->cluster, l->run, {.withEvents = true});
    const json trace = chromeTrace(e, l->run);
    Diagnostics diags;
    if (!writeFileAtomically(*p.output, trace.dump() + "\n", diags)) {
        printDiagnostics(diags, io);
        return kExitBadInput;
    }
    io.out << "wrote " << e.events.size() << " events (" << fixed(e.stepTimeS, 4) << " s step) to "
           << *p.output << "\n";
    return kExitOk;
}

} // namespace cs::cli
