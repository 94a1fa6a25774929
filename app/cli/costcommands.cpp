// evaluate, validate-runs and trace: the cost model on the command line.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "common.h"
#include "costmodel.h"
#include "errorpatterns.h"
#include "evaluationjson.h"
#include "fileio.h"
#include "importreport.h"
#include "jobcommands.h"
#include "measuredruns.h"
#include "options.h"
#include "text.h"
#include "trace.h"
#include "uncertainty.h"

namespace cs::cli {

const CommandSpec kEvaluateSpec{
    "evaluate",
    "CLUSTER RUN [RUN...]",
    2,
    SIZE_MAX,
    {{"--json", "", "print one JSON object"}, kCalibrationOption},
    "the cost model's answer for one step",
    "Predicts one training step of RUN on CLUSTER: step time, its breakdown on the critical\n"
    "path, communication per dimension, MFU, memory per GPU; and the run around it: goodput\n"
    "with checkpoints, failures and restarts, and the wait for the slowest GPU of each step.\n\n"
    "With several RUNs, several jobs on one cluster, each on its `allocation` (which must not\n"
    "overlap): each job's step alone and with the others running, and the seconds of it each\n"
    "other job's traffic costs; --json prints {jobs: [...]}, each job as for one RUN with its\n"
    "name, allocation, step_time_alone_s and slowed_by."};

const CommandSpec kValidateRunsSpec{
    "validate-runs",
    "FILE.jsonl",
    1,
    1,
    {{"--json", "",
      "print {rows: [{id, predicted_s, measured_s, error}], mape, range_coverage, groups, "
      "large_errors}"},
     kCalibrationOption},
    "predicted vs measured for published runs, and the MAPE",
    "Predicts every measured run of FILE.jsonl and prints predicted, measured and error per\n"
    "row, then the mean absolute percentage error; errors as fractions in --json. Then the\n"
    "errors by GPU, precision and kind of model (dense or with experts): a group of 3 rows or\n"
    "more off the same way by 5 % or more on average is a pattern; and each row off by 20 %\n"
    "or more beside the other rows of its group: alone, it is an outlier. Rows with problems\n"
    "are reported by line and id and left out, and the exit status is then 1."};

const CommandSpec kTraceSpec{
    "trace",
    "CLUSTER RUN",
    2,
    2,
    {{"--output", "OUT.json", "where to write the trace (required)", "-o", FileRole::Output}},
    "the predicted step as Chrome trace events",
    "Writes the predicted step as Chrome trace events (open OUT.json in Perfetto or\n"
    "chrome://tracing): one process per pipeline stage, a row for compute and one for each\n"
    "parallel dimension's traffic."};

namespace {

using nlohmann::json;

std::string minutes(double seconds)
{
    return std::isfinite(seconds) ? fixed(seconds / 60, 2) + " min" : "never (failures outpace it)";
}

void printGoodput(const Goodput& g, const StepVariance& v, std::ostream& out)
{
    out << "goodput            " << percent(g.goodput()) << " (checkpoint every "
        << withThousands(g.intervalSteps()) << " steps" << (g.intervalAuto ? ", the optimum" : "")
        << "; " << fixed(g.failures.perDay(), 1) << " failures a day)\n";
    out << "checkpoint         " << fixed(g.checkpoint.bytes / 1e12, 2) << " TB, written in "
        << fixed(g.checkpoint.writeS, 2) << " s ("
        << (g.checkpoint.async ? "asynchronous: stalls " + fixed(g.checkpoint.hostCopyS * 1e3, 1) +
                                     " ms for the host copy"
                               : std::string("synchronous"))
        << "), read in " << fixed(g.checkpoint.readS, 2) << " s\n";
    out << "stragglers         +" << fixed(v.stragglerS * 1e3, 1) << " ms a step (step std "
        << fixed(v.stepStddevS * 1e3, 2) << " ms)\n";
    if (const auto t = g.timeToTrainS())
        out << "with failures      " << minutes(*t)
            << " to train (restarts, lost work, checkpoints, stragglers)\n";
    const std::vector<std::string> assumed = g.assumed();
    if (!assumed.empty())
        out << "assumed            " << wordList(assumed, ", ")
            << " (the defaults of docs/cost-model.md, \"Goodput\")\n";
}

void printEvaluation(const Evaluation& e, const Uncertainty& u, const RunDesc& run,
                     std::ostream& out)
{
    out << "step time          " << fixed(e.stepTimeS, 4) << " s (" << rangeText(u) << ")\n";
    if (run.measured) {
        const double error = e.stepTimeS / run.measured->stepTimeS - 1;
        out << "measured           " << fixed(run.measured->stepTimeS, 4) << " s (error "
            << signedPercentText(error) << ")\n";
    }
    out << "breakdown (critical path):\n";
    for (const Breakdown::Part& part : e.breakdown.parts()) {
        if (part.dim && !usesDim(run, *part.dim))
            continue;
        out << "  " << part.key << std::string(12 - part.key.size(), ' ') << fixed(part.seconds, 4)
            << " s  " << percent(part.seconds / e.stepTimeS) << "\n";
    }
    out << "communication per GPU (total / exposed):\n";
    for (Dim d : kAllDims) {
        if (!usesDim(run, d))
            continue;
        out << "  " << toString(d) << "  " << fixed(e.commTotalS[d], 4) << " s / "
            << fixed(e.commExposedS[d], 4) << " s\n";
    }
    out << "exposed scale-out  " << fixed(e.exposedScaleOutS * 1e3, 1) << " ms ("
        << percent(e.exposedScaleOutS / e.stepTimeS) << ")\n";
    out << "MFU                " << percent(e.mfu) << "\n";
    out << "tokens/s           " << withThousands(int64_t(std::llround(e.tokensPerS))) << "\n";
    out << "memory per GPU     " << fixed(e.memoryGiBPerGpu, 1) << " GiB ("
        << (e.fitsMemory ? "fits" : "does NOT fit") << ")";
    const char* separator = ": ";
    for (const MemoryPart& p : kMemoryParts) {
        out << separator << p.key << " " << fixed(e.memory.*p.gib, 1);
        separator = ", ";
    }
    out << "\n";
    if (e.gpusIdle > 0 || e.gpusFailed > 0)
        out << "GPUs               " << withThousands(e.gpusUsed) << " used, "
            << withThousands(e.gpusIdle) << " idle, " << withThousands(e.gpusFailed)
            << " out of service\n";
    if (e.timeToTrainS)
        out << "time to train      " << fixed(*e.timeToTrainS / 60, 2) << " min\n";
    if (e.goodput && e.variance)
        printGoodput(*e.goodput, *e.variance, out);
}

json coverageJson(const RangeCoverage& c)
{
    return {{"rows_with_range", c.withRange()},
            {"inside", c.inside()},
            {"median_half_width", c.medianHalfWidth()},
            {"rows_without_range", c.withoutRange()}};
}

json errorPatternsJson(const std::vector<ErrorGroup>& groups,
                       const std::vector<LargeRowError>& large,
                       const std::vector<MeasuredRun>& runs)
{
    json g = json::array();
    for (const ErrorGroup& group : groups)
        g.push_back({{"gpu", group.gpu},
                     {"precision", toString(group.precision)},
                     {"experts", group.experts},
                     {"rows", group.rows.size()},
                     {"mean_error", group.meanError},
                     {"mape", group.mape},
                     {"families", group.families},
                     {"pattern", group.pattern()}});
    json l = json::array();
    for (const LargeRowError& e : large)
        l.push_back({{"id", runs[e.row].id},
                     {"error", e.error},
                     {"others", e.others},
                     {"others_mean_error", e.othersMean},
                     {"model_others", e.modelOthers},
                     {"model_others_mean_error", e.modelMean},
                     {"shared_by_others", e.sharedByOthers}});
    return {{"groups", g}, {"large_errors", l}};
}

// "the 2 others of the same model -20.1 % on average".
std::string othersText(int others, const char* which, double mean)
{
    return "the " + std::to_string(others) + " other" + (others == 1 ? "" : "s") + which + " " +
           signedPercentText(mean) + " on average";
}

void printErrorPatterns(const std::vector<ErrorGroup>& groups,
                        const std::vector<LargeRowError>& large,
                        const std::vector<std::string>& ids, std::ostream& out)
{
    if (groups.empty())
        return;
    out << "\nerrors by GPU, precision and kind of model (a pattern: " << kPatternMinRows
        << " rows or more off the same way by " << percent(kPatternMeanError, 0)
        << " or more on average):\n";
    size_t width = 0;
    for (const ErrorGroup& g : groups)
        width = std::max(width, groupName(g).size());
    for (const ErrorGroup& g : groups) {
        std::string families;
        for (const std::string& f : g.families)
            families += (families.empty() ? "" : ", ") + printable(f);
        out << "  " << padRight(groupName(g), width) << "  "
            << padLeft(std::to_string(g.rows.size()), 3)
            << (g.rows.size() == 1 ? " row   mean " : " rows  mean ")
            << padLeft(signedPercentText(g.meanError), 8) << "  MAPE "
            << padLeft(percent(g.mape), 6) << "  " << families << (g.pattern() ? "  pattern" : "")
            << "\n";
    }
    if (large.empty())
        return;
    out << "rows off by " << percent(kLargeRowError, 0) << " or more, beside their group:\n";
    for (const LargeRowError& e : large) {
        out << "  " << ids[e.row] << "  " << signedPercentText(e.error) << ": ";
        if (e.others == 0)
            out << "alone in its group";
        else
            out << othersText(e.others, "", e.othersMean);
        if (e.modelOthers > 0 && e.modelOthers < e.others)
            out << "; " << othersText(e.modelOthers, " of the same model", e.modelMean);
        out << (e.sharedByOthers ? " (a pattern)" : " (an outlier)") << "\n";
    }
}

} // namespace

int runEvaluate(const Args& args, Io io)
{
    auto parsed = parseCommand(kEvaluateSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const std::optional<Calibration> cal = calibrationOf(p, io);
    if (cal && p.positional.size() > 2)
        return evaluateJobsCommand(p, *cal, io);
    const std::optional<ClusterRun> l =
        loadClusterAndRun(p.positional[0], p.positional[1], true, io);
    if (!l || !cal)
        return kExitBadInput;
    const Evaluation e = evaluate(l->cluster, l->run, {&*cal});
    const Uncertainty u =
        uncertaintyOf(e.stepTimeS, likenessOf(l->cluster, l->run), shippedReferenceRuns(*cal));
    if (p.has("--json")) {
        json j = evaluationJson(e, l->run);
        j["uncertainty"] = uncertaintyJson(u);
        io.out << j.dump(2) << "\n";
    } else {
        printEvaluation(e, u, l->run, io.out);
    }
    return kExitOk;
}

int runValidateRuns(const Args& args, Io io)
{
    auto parsed = parseCommand(kValidateRunsSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const bool asJson = p.has("--json");
    const std::optional<Calibration> cal = calibrationOf(p, io);
    if (!cal)
        return kExitBadInput;
    Diagnostics diags;
    const std::vector<MeasuredRun> runs = readMeasuredRuns(p.positional[0], diags);
    printDiagnostics(diags, io.err);
    if (runs.empty() && !diags.empty())
        return kExitBadInput;

    json rows = json::array();
    double sumAbs = 0;
    RangeCoverage coverage;
    std::vector<double> errors;
    const std::vector<ReferenceRun>& references = shippedReferenceRuns(*cal);
    std::vector<std::string> ids; // as the table shows them
    size_t width = 2;
    for (const MeasuredRun& r : runs) {
        ids.push_back(printable(r.id));
        width = std::max(width, characters(ids.back()));
    }
    if (!asJson)
        io.out << "id" << std::string(width - 2, ' ') << "  predicted_s  measured_s    error\n";
    for (size_t i = 0; i < runs.size(); ++i) {
        const MeasuredRun& r = runs[i];
        const Evaluation e = evaluate(r.cluster, r.run, {&*cal, false});
        const double measured = r.run.measured->stepTimeS;
        const double error = e.stepTimeS / measured - 1;
        sumAbs += std::abs(error);
        errors.push_back(error);
        // The row's range never draws on the row itself.
        const Uncertainty u =
            uncertaintyOf(e.stepTimeS, likenessOf(r.cluster, r.run), references, r.id);
        coverage.add(u, measured);
        json row = {
            {"id", r.id}, {"predicted_s", e.stepTimeS}, {"measured_s", measured}, {"error", error}};
        if (u.known()) {
            row["low_s"] = u.lowS;
            row["high_s"] = u.highS;
        }
        rows.push_back(std::move(row));
        if (!asJson)
            io.out << padRight(ids[i], width) << "  " << padLeft(fixed(e.stepTimeS, 4), 11) << "  "
                   << padLeft(fixed(measured, 4), 10) << "  " << signedPercentText(error) << "\n";
    }
    const double mape = runs.empty() ? 0 : sumAbs / double(runs.size());
    const std::vector<ErrorGroup> groups = errorGroups(runs, errors);
    const std::vector<LargeRowError> large = largeRowErrors(groups, runs, errors);
    if (asJson) {
        json j{{"rows", rows}, {"mape", mape}, {"range_coverage", coverageJson(coverage)}};
        j.update(errorPatternsJson(groups, large, runs));
        io.out << j.dump(2) << "\n";
    } else {
        io.out << "MAPE " << percent(mape, 2) << " over " << runs.size() << " runs\n";
        io.out << "range (without the row): " << coverageText(coverage) << "\n";
        printErrorPatterns(groups, large, ids, io.out);
    }
    return diags.empty() ? kExitOk : kExitBadInput;
}

int runTrace(const Args& args, Io io)
{
    auto parsed = parseCommand(kTraceSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const std::optional<std::string> output = p.value("--output");
    if (!output)
        return usageProblem(kTraceSpec, "-o OUT.json is required", io);
    const std::optional<ClusterRun> l =
        loadClusterAndRun(p.positional[0], p.positional[1], true, io);
    if (!l)
        return kExitBadInput;
    const Evaluation e = evaluate(l->cluster, l->run);
    const ChromeTrace trace = chromeTrace(e, l->run);
    Diagnostics diags;
    if (!writeFileAtomically(*output, trace.text, diags)) {
        printDiagnostics(diags, io.err);
        return kExitBadInput;
    }
    io.out << "wrote " << withThousands(int64_t(trace.events)) << " events ("
           << fixed(e.stepTimeS, 4) << " s step) to " << printablePath(*output) << "\n";
    if (!trace.leftOutNote.empty())
        io.out << trace.leftOutNote << "\n";
    return kExitOk;
}

} // namespace cs::cli
