// search: the best parallel layouts of a run's model and batch on a cluster, ranked.

#include <algorithm>
#include <chrono>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "costmodel.h"
#include "format.h"
#include "loader.h"
#include "search.h"

namespace cs::cli {
namespace {

using nlohmann::json;

constexpr const char* kSynopsis = "search CLUSTER RUN [--top N] [--json]";
constexpr int kDefaultTop = 20;

struct SearchArgs {
    std::string clusterPath;
    std::string runPath;
    int top = kDefaultTop;
    bool json = false;
};

int usage(const std::string& problem, Io io)
{
    io.err << "clusterscope-cli search: " << problem << "\nUsage: clusterscope-cli " << kSynopsis
           << "\n";
    return kExitUsage;
}

std::optional<int> positiveInt(const std::string& word)
{
    size_t used = 0;
    try {
        const int n = std::stoi(word, &used);
        if (used == word.size() && n > 0)
            return n;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

// Parses the words after `search`; on a usage problem returns nothing and sets `problem`.
std::optional<SearchArgs> parseSearchArgs(const Args& args, std::string& problem)
{
    SearchArgs parsed;
    std::vector<std::string> positional;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") {
            parsed.json = true;
        } else if (a == "--top") {
            const std::optional<int> n =
                i + 1 < args.size() ? positiveInt(args[i + 1]) : std::nullopt;
            if (!n) {
                problem = "--top needs a positive number";
                return std::nullopt;
            }
            parsed.top = *n;
            ++i;
        } else if (a.size() > 1 && a[0] == '-') {
            problem = "unknown option '" + a + "'";
            return std::nullopt;
        } else {
            positional.push_back(a);
        }
    }
    if (positional.size() != 2) {
        problem = "expected CLUSTER and RUN";
        return std::nullopt;
    }
    parsed.clusterPath = positional[0];
    parsed.runPath = positional[1];
    return parsed;
}

// Loads both files. Unlike evaluate, the run's own parallelism need not suit the cluster: the
// search is how one finds a layout that does.
std::optional<ClusterRun> loadInputs(const SearchArgs& a, Io io)
{
    Diagnostics diags;
    const std::optional<LoadedFile> c = loadFile(a.clusterPath, diags);
    const std::optional<LoadedFile> r = loadFile(a.runPath, diags);
    if (c && c->kind != FileKind::Cluster)
        diags.atPointer(a.clusterPath, "/format",
                        std::string("is not a cluster (\"") + kClusterFormat + "\")");
    if (r && r->kind != FileKind::Run)
        diags.atPointer(a.runPath, "/format", std::string("is not a run (\"") + kRunFormat + "\")");
    if (diags.empty() && c && r && c->cluster && r->run)
        return ClusterRun{*c->cluster, *r->run};
    if (diags.empty())
        diags.atPointer(a.runPath, "", "could not be loaded");
    for (const Diagnostic& d : diags.items())
        io.err << d.format() << "\n";
    return std::nullopt;
}

std::string placementText(const std::array<Dim, 4>& placement)
{
    std::string text;
    for (Dim d : placement)
        text += std::string(text.empty() ? "" : ",") + toString(d);
    return text;
}

json layoutJson(const Layout& l)
{
    const Parallelism& p = l.parallelism;
    json placement = json::array();
    for (Dim d : l.placement)
        placement.push_back(toString(d));
    return {{"parallelism",
             {{"tp", p.tp},
              {"cp", p.cp},
              {"pp", p.pp},
              {"vp", p.vp},
              {"dp", p.dp},
              {"sequence_parallel", p.sequenceParallel},
              {"distributed_optimizer", p.distributedOptimizer},
              {"recompute", toString(p.recompute)}}},
            {"placement", placement},
            {"micro_batch", l.microBatch}};
}

json breakdownJson(const Breakdown& b)
{
    json j = json::object();
    for (const auto& [name, seconds] : b.named())
        j[name] = seconds;
    return j;
}

// The run's own layout: how it does on this cluster, and where it would rank.
struct Current {
    Layout layout;
    std::string invalidReason; // empty when the run is valid on the cluster
    std::optional<Evaluation> evaluation;
    std::optional<int64_t> rank; // 1-based among the results, when it fits

    static Current of(const ClusterDesc& cluster, const RunDesc& run)
    {
        Current c;
        c.layout = {run.parallelism, run.placement, run.batch.micro};
        c.layout.parallelism.dp = run.dpFor(cluster.gpuCount());
        Diagnostics diags;
        checkRunOnCluster(run, cluster, "", "", diags);
        if (!diags.empty()) {
            c.invalidReason = diags.items().front().message;
            return c;
        }
        EvalOptions fast;
        fast.withEvents = false;
        c.evaluation = evaluate(cluster, run, fast);
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

json resultsJson(const SearchOutcome& outcome, const Current& current, int top)
{
    json results = json::array();
    const size_t shown = std::min(outcome.results.size(), size_t(top));
    for (size_t i = 0; i < shown; ++i) {
        const SearchResult& r = outcome.results[i];
        json row = layoutJson(r.layout);
        row["rank"] = i + 1;
        row["step_time_s"] = r.stepTimeS;
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
            {"evaluated", outcome.evaluated},
            {"fitting", outcome.fitting},
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

void printHeader(std::ostream& out)
{
    out << cell("rank", 4) << cell("tp", 5) << cell("cp", 5) << cell("pp", 5) << cell("vp", 5)
        << cell("dp", 7) << cell("micro", 7) << left("recompute", 9) << left("placement", 11)
        << cell("step_s", 8);
    for (const char* name :
         {"compute", "recomp", "tp_exp", "cp_exp", "pp_exp", "bubble", "dp_exp", "optim", "overhd"})
        out << cell(name, 8);
    out << cell("GiB/GPU", 9) << "\n";
}

void printRow(const std::string& rank, const Layout& l, double stepTimeS, const Breakdown& b,
              double memoryGiB, std::ostream& out)
{
    const Parallelism& p = l.parallelism;
    out << cell(rank, 4) << cell(std::to_string(p.tp), 5) << cell(std::to_string(p.cp), 5)
        << cell(std::to_string(p.pp), 5) << cell(std::to_string(p.vp), 5)
        << cell(withCommas(p.dp), 7) << cell(std::to_string(l.microBatch), 7)
        << left(toString(p.recompute), 9) << left(placementText(l.placement), 11)
        << cell(fixed(stepTimeS, 4), 8);
    for (const auto& [name, seconds] : b.named())
        out << cell(fixed(seconds, 4), 8);
    out << cell(fixed(memoryGiB, 1), 9) << "\n";
}

void printCurrent(const Current& c, int64_t fitting, std::ostream& out)
{
    out << "\nThe run's own layout:\n";
    if (!c.invalidReason.empty()) {
        out << "  not valid on this cluster: " << c.invalidReason << "\n";
        return;
    }
    const Evaluation& e = *c.evaluation;
    printHeader(out);
    printRow(c.rank ? withCommas(*c.rank) : "-", c.layout, e.stepTimeS, e.breakdown,
             e.memoryGiBPerGpu, out);
    if (c.rank)
        out << "  rank " << withCommas(*c.rank) << " of " << withCommas(fitting) << "\n";
    else
        out << "  does not fit in memory (" << fixed(e.memoryGiBPerGpu, 1) << " GiB per GPU)\n";
}

void printText(const ClusterRun& in, const SearchOutcome& outcome, const Current& current,
               double seconds, int top, std::ostream& out)
{
    const ClusterDesc& c = in.cluster;
    const RunDesc& r = in.run;
    out << "Search: " << quoted(r.model.name) << " on " << quoted(c.name) << " ("
        << withCommas(c.gpuCount()) << " " << c.gpu.name << ", " << toString(r.precision)
        << ", global batch " << withCommas(r.batch.global) << ")\n"
        << withCommas(outcome.layouts) << " layouts (tp, cp, pp, vp, micro-batch), "
        << withCommas(outcome.evaluated) << " configurations evaluated in " << fixed(seconds, 2)
        << " s; " << withCommas(outcome.fitting) << " fit in memory\n\n";
    if (outcome.results.empty()) {
        out << "No configuration fits in memory.\n";
    } else {
        printHeader(out);
        const size_t shown = std::min(outcome.results.size(), size_t(top));
        for (size_t i = 0; i < shown; ++i) {
            const SearchResult& res = outcome.results[i];
            printRow(std::to_string(i + 1), res.layout, res.stepTimeS, res.breakdown,
                     res.memoryGiBPerGpu, out);
        }
    }
    printCurrent(current, outcome.fitting, out);
}

void printHelp(std::ostream& out)
{
    out << "Usage: clusterscope-cli " << kSynopsis
        << "\n\nTries every valid tp, cp, pp, vp, micro-batch, recompute setting and placement "
           "for RUN's model,\nglobal batch and precision on CLUSTER, and ranks those that fit "
           "in memory by predicted step\ntime, with each one's breakdown (seconds) and memory "
           "per GPU. The run's own layout is shown\nwith its rank. Sequence parallelism and the "
           "distributed optimizer stay as RUN has them.\n\n"
           "  --top N   show the N fastest (default "
        << kDefaultTop
        << ")\n  --json    one JSON object: layouts, evaluated, fitting, current, results\n";
}

} // namespace

int runSearch(const Args& args, Io io)
{
    if (std::find(args.begin(), args.end(), "--help") != args.end() ||
        std::find(args.begin(), args.end(), "-h") != args.end()) {
        printHelp(io.out);
        return kExitOk;
    }
    std::string problem;
    const std::optional<SearchArgs> a = parseSearchArgs(args, problem);
    if (!a)
        return usage(problem, io);
    const std::optional<ClusterRun> in = loadInputs(*a, io);
    if (!in)
        return kExitBadInput;
    Current current = Current::of(in->cluster, in->run);
    SearchOptions options;
    options.keep = size_t(a->top);
    if (current.fits())
        options.alsoKeepFasterThanS = current.evaluation->stepTimeS;
    const auto start = std::chrono::steady_clock::now();
    const SearchOutcome outcome = searchParallelism(in->cluster, in->run, options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    current.rankAmong(outcome.results);
    if (a->json)
        io.out << resultsJson(outcome, current, a->top).dump(2) << "\n";
    else
        printText(*in, outcome, current, seconds, a->top, io.out);
    return kExitOk;
}

} // namespace cs::cli
