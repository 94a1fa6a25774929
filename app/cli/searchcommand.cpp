// search: the best parallel layouts of a run's model and batch on a cluster, ranked.

#include <algorithm>
#include <chrono>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "common.h"
#include "costmodel.h"
#include "options.h"
#include "search.h"
#include "text.h"
#include "uncertainty.h"
#include "validation.h"
#include "writer.h"

namespace cs::cli {

constexpr int kDefaultTop = 20;
constexpr double kDefaultMaxSeconds = 300;

const CommandSpec kSearchSpec{
    "search",
    "CLUSTER RUN",
    2,
    2,
    {{"--top", "N", "show the N fastest (default 20)"},
     {"--max-seconds", "N", "stop after about N seconds with the fastest found (default 300)"},
     {"--json", "",
      "one JSON object: layouts, estimated, evaluated, fitting, cut_short, current, results"},
     kCalibrationOption},
    "the best parallel layouts, ranked",
    "Tries every valid tp, cp, pp, vp, micro-batch, recompute setting and placement for RUN's\n"
    "model, global batch and precision on CLUSTER, and ranks those that fit in memory by\n"
    "predicted step time, with each one's breakdown (seconds) and memory per GPU. The closed\n"
    "form of the cost model chooses a shortlist; every layout listed is evaluated by the cost\n"
    "model itself, so its step time is what `evaluate` gives once it is applied. The run's own\n"
    "layout is shown with its rank. Sequence parallelism and the distributed optimizer stay as\n"
    "RUN has them. A search that runs out of time says so and lists the fastest it found."};

namespace {

using nlohmann::json;

json layoutJson(const Layout& l)
{
    json placement = json::array();
    for (Dim d : l.placement)
        placement.push_back(toString(d));
    return {{"parallelism", toJson(l.parallelism)},
            {"placement", placement},
            {"micro_batch", l.microBatch}};
}

json breakdownJson(const Breakdown& b)
{
    json j = json::object();
    for (const Breakdown::Part& part : b.parts())
        j[std::string(part.key)] = part.seconds;
    return j;
}

// The run's own layout: how it does on this cluster, and where it would rank.
struct Current {
    Layout layout;
    std::string invalidReason; // empty when the run is valid on the cluster
    std::optional<Evaluation> evaluation;
    std::optional<int64_t> rank; // 1-based among the results, when it fits

    static Current of(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal)
    {
        Current c;
        c.layout = {run.parallelism, run.placement, run.batch.micro};
        c.layout.parallelism.dp = run.dpFor(cluster.healthyGpuCount());
        Diagnostics diags;
        checkRunOnCluster(run, cluster, "", "", diags);
        if (!diags.empty()) {
            c.invalidReason = diags.items().front().message;
            return c;
        }
        c.evaluation = evaluate(cluster, run, {&cal});
        return c;
    }

    bool fits() const { return evaluation && evaluation->fitsMemory; }

    // The search must return every configuration faster than this one for the rank to be exact.
    void rankAmong(const std::vector<SearchResult>& results)
    {
        if (!fits())
            return;
        const double t = evaluation->stepTimeS;
        rank = 1 + std::count_if(results.begin(), results.end(),
                                 [t](const SearchResult& r) { return r.stepTimeS < t; });
    }
};

// Each listed layout's range, from the same evaluation as its step time; a layout whose range
// overlaps the best's is a tie with it.
struct Ranges {
    std::vector<Uncertainty> of; // per listed result

    static Ranges listed(const ClusterRun& in, const SearchOutcome& outcome, size_t shown,
                         const Calibration& cal)
    {
        Ranges r;
        const std::vector<ReferenceRun>& refs = shippedReferenceRuns(cal);
        for (size_t i = 0; i < shown; ++i) {
            const SearchResult& res = outcome.results[i];
            r.of.push_back(uncertaintyOf(
                res.stepTimeS, likenessOf(in.cluster, withLayout(in.run, res.layout)), refs));
        }
        return r;
    }
    bool tiesBest(size_t i) const { return i > 0 && tied(of[i], of[0]); }
};

json resultsJson(const SearchOutcome& outcome, const Current& current, const Ranges& ranges)
{
    json results = json::array();
    for (size_t i = 0; i < ranges.of.size(); ++i) {
        const SearchResult& r = outcome.results[i];
        json row = layoutJson(r.layout);
        row["rank"] = i + 1;
        row["step_time_s"] = r.stepTimeS;
        if (ranges.of[i].known()) {
            row["low_s"] = ranges.of[i].lowS;
            row["high_s"] = ranges.of[i].highS;
        }
        row["tie_with_best"] = ranges.tiesBest(i);
        row["breakdown"] = breakdownJson(r.breakdown);
        row["memory_gib_per_gpu"] = r.memoryGiBPerGpu;
        row["mfu"] = r.mfu;
        results.push_back(std::move(row));
    }
    json own = layoutJson(current.layout);
    own["valid"] = current.invalidReason.empty();
    if (!current.invalidReason.empty())
        own["problem"] = current.invalidReason;
    if (const auto& e = current.evaluation) {
        own["step_time_s"] = e->stepTimeS;
        own["breakdown"] = breakdownJson(e->breakdown);
        own["memory_gib_per_gpu"] = e->memoryGiBPerGpu;
        own["fits_memory"] = e->fitsMemory;
    }
    own["rank"] = current.rank ? json(*current.rank) : json(nullptr);
    return {{"layouts", outcome.layouts},
            {"estimated", outcome.estimated},
            {"evaluated", outcome.evaluated},
            {"fitting", outcome.fitting},
            {"cut_short", outcome.outOfTime || outcome.cancelled},
            {"current", own},
            {"results", results}};
}

std::string cell(const std::string& text, int width)
{
    return std::string(size_t(std::max(0, width - int(text.size()))), ' ') + text;
}

std::string left(const std::string& text, int width)
{
    return "  " + text + std::string(size_t(std::max(0, width - int(text.size()))), ' ');
}

// The table's columns: a size column per dimension the run uses (kDims), VP, ETP where the run
// has experts, and the recompute column as wide as its widest entry.
struct TableShape {
    bool experts = false;
    int recomputeWidth = 9;

    static TableShape of(const RunDesc& run, const std::vector<const Layout*>& rows)
    {
        TableShape t;
        t.experts = usesDim(run, Dim::EP);
        for (const Layout* l : rows)
            t.recomputeWidth =
                std::max(t.recomputeWidth, int(toString(l->parallelism.recompute).size()));
        return t;
    }
};

int sizeWidth(Dim d)
{
    return d == Dim::DP ? 7 : 5;
}

void printHeader(const TableShape& t, std::ostream& out)
{
    out << cell("rank", 4);
    for (const DimInfo& d : kDims)
        if (d.placed || t.experts)
            out << cell(std::string(d.key), sizeWidth(d.dim));
    out << cell("vp", 5);
    if (t.experts)
        out << cell("etp", 5);
    out << cell("micro", 7) << left("recompute", t.recomputeWidth) << left("placement", 14)
        << cell("step_s", 8);
    for (const Breakdown::Part& part : Breakdown{}.parts())
        out << cell(std::string(part.key.substr(0, 7)), 8);
    out << cell("GiB/GPU", 9) << "\n";
}

void printRow(const TableShape& t, const std::string& rank, const Layout& l, double stepTimeS,
              const Breakdown& b, double memoryGiB, std::ostream& out)
{
    const Parallelism& p = l.parallelism;
    out << cell(rank, 4);
    for (const DimInfo& d : kDims)
        if (d.placed || t.experts)
            out << cell(withThousands(p.size(d.dim)), sizeWidth(d.dim));
    out << cell(std::to_string(p.vp), 5);
    if (t.experts)
        out << cell(std::to_string(p.etp), 5);
    out << cell(std::to_string(l.microBatch), 7) << left(toString(p.recompute), t.recomputeWidth)
        << left(placementText(l.placement), 14) << cell(fixed(stepTimeS, 4), 8);
    for (const Breakdown::Part& part : b.parts())
        out << cell(fixed(part.seconds, 4), 8);
    out << cell(fixed(memoryGiB, 1), 9) << "\n";
}

void printCurrent(const TableShape& t, const Current& c, int64_t fitting, std::ostream& out)
{
    out << "\nThe run's own layout:\n";
    if (!c.invalidReason.empty()) {
        out << "  not valid on this cluster: " << printable(c.invalidReason, kNoLimit) << "\n";
        return;
    }
    const Evaluation& e = *c.evaluation;
    printHeader(t, out);
    printRow(t, c.rank ? withThousands(*c.rank) : "-", c.layout, e.stepTimeS, e.breakdown,
             e.memoryGiBPerGpu, out);
    if (c.rank)
        out << "  rank " << withThousands(*c.rank) << " of " << withThousands(fitting) << "\n";
    else
        out << "  does not fit in memory (" << fixed(e.memoryGiBPerGpu, 1) << " GiB per GPU)\n";
}

void printRangeNote(const Ranges& ranges, std::ostream& out)
{
    const Uncertainty& best = ranges.of.front();
    if (!best.known()) {
        out << "No measured run is like this one: the step times carry no range.\n\n";
        return;
    }
    out << "The fastest: " << fixed(best.lowS, 3) << "-" << fixed(best.highS, 3) << " s measured, "
        << "from " << best.basis() << " measured runs like it; ~ marks a layout whose range "
        << "overlaps it (a tie).\n\n";
}

void printText(const ClusterRun& in, const SearchOutcome& outcome, const Current& current,
               const Ranges& ranges, double seconds, double maxSeconds, std::ostream& out)
{
    const ClusterDesc& c = in.cluster;
    const RunDesc& r = in.run;
    out << "Search: " << inQuotes(r.model.name) << " on " << inQuotes(c.name) << " ("
        << withThousands(c.healthyGpuCount()) << " " << printable(c.gpu.name) << ", "
        << toString(r.precision) << ", global batch " << withThousands(r.batch.global) << ")\n"
        << withThousands(outcome.layouts) << " layouts (tp, cp, pp, vp, micro-batch), "
        << withThousands(outcome.estimated) << " configurations estimated and the "
        << withThousands(outcome.evaluated) << " fastest evaluated in " << fixed(seconds, 2)
        << " s; " << withThousands(outcome.fitting) << " fit in memory\n\n";
    if (outcome.outOfTime)
        out << "Cut short after " << numberText(maxSeconds)
            << " s (--max-seconds): the fastest of the layouts tried so far, not of all of "
               "them.\n\n";
    const size_t shown = ranges.of.size();
    std::vector<const Layout*> rows{&current.layout};
    for (size_t i = 0; i < shown; ++i)
        rows.push_back(&outcome.results[i].layout);
    const TableShape t = TableShape::of(r, rows);
    if (outcome.results.empty()) {
        out << (outcome.outOfTime ? "No configuration that fits in memory was found in the time.\n"
                                  : "No configuration fits in memory.\n");
    } else {
        printRangeNote(ranges, out);
        printHeader(t, out);
        for (size_t i = 0; i < shown; ++i) {
            const SearchResult& res = outcome.results[i];
            printRow(t, (ranges.tiesBest(i) ? "~" : "") + std::to_string(i + 1), res.layout,
                     res.stepTimeS, res.breakdown, res.memoryGiBPerGpu, out);
        }
    }
    printCurrent(t, current, outcome.fitting, out);
}

} // namespace

int runSearch(const Args& args, Io io)
{
    const auto start = std::chrono::steady_clock::now(); // --max-seconds counts everything
    auto parsed = parseCommand(kSearchSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const std::optional<int> top = p.positiveInt("--top", kDefaultTop, io);
    const std::optional<double> maxSeconds =
        p.positiveNumber("--max-seconds", kDefaultMaxSeconds, io);
    if (!top || !maxSeconds)
        return kExitUsage;
    const std::optional<Calibration> cal = calibrationOf(p, io);
    const std::optional<ClusterRun> in =
        loadClusterAndRun(p.positional[0], p.positional[1], false, io);
    if (!in || !cal)
        return kExitBadInput;
    Current current = Current::of(in->cluster, in->run, *cal);
    SearchOptions options;
    options.calibration = &*cal;
    options.keep = size_t(*top);
    if (current.fits())
        options.alsoKeepFasterThanS = current.evaluation->stepTimeS;
    options.deadline = deadlineAfter(start, *maxSeconds);
    const SearchOutcome outcome = searchParallelism(in->cluster, in->run, options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    current.rankAmong(outcome.results);
    const Ranges ranges =
        Ranges::listed(*in, outcome, std::min(outcome.results.size(), size_t(*top)), *cal);
    if (p.has("--json"))
        io.out << resultsJson(outcome, current, ranges).dump(2) << "\n";
    else
        printText(*in, outcome, current, ranges, seconds, *maxSeconds, io.out);
    return kExitOk;
}

} // namespace cs::cli
