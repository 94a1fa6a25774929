#include <algorithm>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "costmodel.h"
#include "loader.h"
#include "samplefiles.h"
#include "search.h"
#include "validation.h"

using namespace cs;

namespace {

cs::PerDim<int> sizes(int tp, int cp, int pp, int dp)
{
    cs::PerDim<int> s;
    s[Dim::TP] = tp;
    s[Dim::CP] = cp;
    s[Dim::PP] = pp;
    s[Dim::DP] = dp;
    s[Dim::EP] = 1;
    return s;
}

const LoadedFile& fairwater()
{
    static const LoadedFile loaded = loadSample("fairwater-gb200-128-llama405b.run.json");
    return loaded;
}

const SearchOutcome& fairwaterSearch()
{
    static const SearchOutcome outcome = searchParallelism(*fairwater().cluster, *fairwater().run);
    return outcome;
}

// The same search keeping the fastest 100: all of its bounding and placing, a sixth of its
// evaluations (a test that re-evaluates every result runs under the sanitizers).
const SearchOutcome& fairwaterSearchTop100()
{
    static const SearchOutcome outcome = [] {
        SearchOptions options;
        options.keep = 100;
        return searchParallelism(*fairwater().cluster, *fairwater().run, options);
    }();
    return outcome;
}

bool sameResults(const std::vector<SearchResult>& a, const std::vector<SearchResult>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const SearchResult& x, const SearchResult& y) {
                          return x.layout == y.layout && x.stepTimeS == y.stepTimeS;
                      });
}

} // namespace

TEST_CASE("dimensions of size 1 do not multiply the placements")
{
    // tp 8 and dp 16 on domains of 4: tp innermost or dp innermost, nothing else differs.
    const auto placements = distinctPlacements(sizes(8, 1, 1, 16), 4);
    REQUIRE(placements.size() == 2);
    const auto tpFirst = [](const cs::PlacementOrder& p) {
        return std::find(p.begin(), p.end(), Dim::TP) < std::find(p.begin(), p.end(), Dim::DP);
    };
    CHECK(tpFirst(placements[0]) != tpFirst(placements[1]));
}

TEST_CASE("placements differ in which dimensions share an NVLink domain")
{
    // Four dimensions of 2 on domains of 4: two of them fit a domain together.
    const auto placements = distinctPlacements(sizes(2, 2, 2, 2), 4);
    REQUIRE(placements.size() == 6);
    std::set<std::set<Dim>> innerPairs;
    for (const auto& p : placements)
        innerPairs.insert({p[0], p[1]});
    CHECK(innerPairs.size() == 6);
    CHECK(placements.front() == cs::kPlacedDims);
}

TEST_CASE("orderings left out evaluate exactly like one that is kept")
{
    const ClusterDesc& cluster = *fairwater().cluster;
    RunDesc run = *fairwater().run;
    const Parallelism& p = run.parallelism;
    const auto kept = distinctPlacements(sizes(p.tp, p.cp, p.pp, p.dp), cluster.domainSize());
    REQUIRE(kept.size() < 24);
    std::set<double> keptTimes;
    for (const auto& placement : kept) {
        run.placement = placement;
        keptTimes.insert(cs::estimate(cluster, run).stepTimeS);
    }
    cs::PlacementOrder order = cs::kPlacedDims;
    do {
        run.placement = order;
        const double t = cs::estimate(cluster, run).stepTimeS;
        INFO(toString(order[0]) << toString(order[1]) << toString(order[2]) << toString(order[3]));
        CHECK(keptTimes.count(t) == 1);
    } while (std::next_permutation(order.begin(), order.end()));
}

TEST_CASE("memory does not depend on placement, so the search may skip placements")
{
    const ClusterDesc& cluster = *fairwater().cluster;
    RunDesc run = *fairwater().run;
    const double memory = cs::estimate(cluster, run).memoryGiBPerGpu;
    run.placement = {Dim::DP, Dim::PP, Dim::CP, Dim::TP};
    CHECK(cs::estimate(cluster, run).memoryGiBPerGpu == memory);
}

TEST_CASE("the layouts include the Fairwater sample's own and are all valid")
{
    const ClusterDesc& cluster = *fairwater().cluster;
    const RunDesc& run = *fairwater().run;
    const std::vector<Layout> layouts = enumerateLayouts(cluster, run);
    const Parallelism& own = run.parallelism;
    const bool hasOwn = std::any_of(layouts.begin(), layouts.end(), [&](const Layout& l) {
        const Parallelism& p = l.parallelism;
        return p.tp == own.tp && p.cp == own.cp && p.pp == own.pp && p.vp == own.vp &&
               l.microBatch == run.batch.micro;
    });
    CHECK(hasOwn);
    for (const Layout& l : layouts) {
        Diagnostics diags;
        const RunDesc candidate = withLayout(run, l);
        checkRunShape(candidate, "", "", diags);
        checkRunOnCluster(candidate, cluster, "", "", diags);
        INFO(diags.formatAll());
        REQUIRE(diags.empty());
    }
}

TEST_CASE("the best layout on Fairwater is no slower than the sample's own", "[slow]")
{
    const SearchOutcome& outcome = fairwaterSearch();
    REQUIRE_FALSE(outcome.results.empty());
    CHECK_FALSE(outcome.cancelled);
    const Evaluation own = evaluate(*fairwater().cluster, *fairwater().run);
    CHECK(outcome.results.front().stepTimeS <= own.stepTimeS);
}

TEST_CASE("every reported configuration is valid, fits memory and is ranked by step time")
{
    const ClusterDesc& cluster = *fairwater().cluster;
    const RunDesc& run = *fairwater().run;
    const std::vector<SearchResult>& results = fairwaterSearchTop100().results;
    REQUIRE(results.size() == 100);
    CHECK(std::is_sorted(
        results.begin(), results.end(),
        [](const SearchResult& a, const SearchResult& b) { return a.stepTimeS < b.stepTimeS; }));
    for (const SearchResult& r : results) {
        const RunDesc candidate = withLayout(run, r.layout);
        Diagnostics diags;
        checkRunShape(candidate, "", "", diags);
        checkRunOnCluster(candidate, cluster, "", "", diags);
        INFO(diags.formatAll());
        REQUIRE(diags.empty());
        const Evaluation e = evaluate(cluster, candidate);
        REQUIRE(e.fitsMemory);
        REQUIRE(e.stepTimeS == r.stepTimeS);
        REQUIRE(r.memoryGiBPerGpu <= cluster.gpu.hbmGiB);
    }
}

TEST_CASE("the search skips no layout that fits at some recompute setting", "[slow]")
{
    // Every layout at every recompute setting, against the search's shortcuts through each
    // run of micro-batch sizes.
    auto fittingByHand = [](const ClusterDesc& cluster, const RunDesc& run) {
        int64_t fitting = 0;
        for (const Layout& layout : enumerateLayouts(cluster, run)) {
            RunDesc probe = withLayout(run, layout);
            for (RecomputeMode mode :
                 {RecomputeMode::None, RecomputeMode::Selective, RecomputeMode::Full}) {
                probe.parallelism.recompute = Recompute::of(mode);
                if (estimate(cluster, probe).fitsMemory) {
                    PerDim<int> dims;
                    for (Dim d : kAllDims)
                        dims[d] = layout.parallelism.size(d);
                    fitting += int64_t(distinctPlacements(dims, cluster.domainSize()).size());
                    break;
                }
            }
        }
        return fitting;
    };
    // Llama 3 405B on two racks with 72 sequences a step: micro-batch counts that group
    // unevenly in interleaved schedules, where a larger micro-batch can keep fewer activations.
    ClusterDesc twoRacks = *fairwater().cluster;
    twoRacks.racks = 2;
    RunDesc llama = *fairwater().run;
    llama.batch.global = 72;
    llama.parallelism.dp = 0;
    const auto [moeCluster, moeRun] = smallDeepSeekV3();
    for (const auto& [cluster, run] : {std::pair{twoRacks, llama}, std::pair{moeCluster, moeRun}}) {
        INFO(run.model.name);
        const int64_t expected = fittingByHand(cluster, run);
        CHECK(expected > 0);
        CHECK(searchParallelism(cluster, run).fitting == expected);
    }
}

TEST_CASE("recompute is reported only where the lighter setting does not fit", "[slow]")
{
    const ClusterDesc& cluster = *fairwater().cluster;
    const RunDesc& run = *fairwater().run;
    for (const SearchResult& r : fairwaterSearch().results) {
        if (r.layout.parallelism.recompute == Recompute::of(cs::RecomputeMode::None))
            continue;
        Layout lighter = r.layout;
        lighter.parallelism.recompute =
            Recompute::of(r.layout.parallelism.recompute.mode == cs::RecomputeMode::Full
                              ? cs::RecomputeMode::Selective
                              : cs::RecomputeMode::None);
        REQUIRE_FALSE(evaluate(cluster, withLayout(run, lighter)).fitsMemory);
    }
}

TEST_CASE("the thread count does not change the results", "[slow]")
{
    const LoadedFile h100 = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    SearchOptions one;
    one.threads = 1;
    SearchOptions three;
    three.threads = 3;
    const SearchOutcome a = searchParallelism(*h100.cluster, *h100.run, one);
    const SearchOutcome b = searchParallelism(*h100.cluster, *h100.run, three);
    REQUIRE_FALSE(a.results.empty());
    CHECK(a.fitting == b.fitting);
    CHECK(sameResults(a.results, b.results));
}

TEST_CASE("cancelling stops the search early and keeps what was found")
{
    const LoadedFile h100 = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    std::atomic<bool> cancel{false};
    int64_t reportedTotal = 0;
    SearchOptions options;
    // One thread: with two, how far the other gets before it sees the cancel depends on the
    // machine's load (on a loaded machine it bounded past half of the layouts).
    options.threads = 1;
    options.cancel = &cancel;
    options.progress = [&](int64_t, int64_t total) {
        reportedTotal = total;
        cancel = true;
    };
    const SearchOutcome outcome = searchParallelism(*h100.cluster, *h100.run, options);
    CHECK(outcome.cancelled);
    CHECK(reportedTotal == 2 * outcome.layouts);
    const SearchOutcome full = searchParallelism(*h100.cluster, *h100.run);
    CHECK(outcome.evaluated < full.evaluated / 2);
}

TEST_CASE("a search stopped while bounding places and evaluates the best bounded so far")
{
    const LoadedFile h100 = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    std::atomic<bool> cancel{false};
    SearchOptions options;
    options.threads = 2;
    options.keep = 10;
    options.cancel = &cancel;
    options.progress = [&](int64_t done, int64_t total) {
        if (done >= total / 8) // in the first pass, which bounds every layout
            cancel = true;
    };
    const SearchOutcome outcome = searchParallelism(*h100.cluster, *h100.run, options);
    CHECK(outcome.cancelled);
    CHECK_FALSE(outcome.outOfTime);
    REQUIRE_FALSE(outcome.results.empty());
    CHECK(outcome.results.size() <= 10);
    for (size_t i = 0; i < outcome.results.size(); ++i) {
        const SearchResult& r = outcome.results[i];
        CHECK(r.stepTimeS == evaluate(*h100.cluster, withLayout(*h100.run, r.layout)).stepTimeS);
        if (i > 0)
            CHECK(r.stepTimeS >= outcome.results[i - 1].stepTimeS);
    }
}

TEST_CASE("a search past its deadline stops as if cancelled and says it ran out of time")
{
    const LoadedFile h100 = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    SearchOptions options;
    options.deadline = std::chrono::steady_clock::now();
    const SearchOutcome outcome = searchParallelism(*h100.cluster, *h100.run, options);
    CHECK(outcome.outOfTime);
    CHECK_FALSE(outcome.cancelled);
    // Each pass does its first item only (test_deadlines.cpp): one family bounded.
    CHECK(outcome.layouts > outcome.estimated);
    CHECK(outcome.results.size() <= 1);
    const SearchOutcome full = searchParallelism(*h100.cluster, *h100.run);
    CHECK_FALSE(full.outOfTime);
    CHECK_FALSE(full.cancelled);
}

TEST_CASE("progress reaches the total exactly once the search is done")
{
    const LoadedFile h100 = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    int64_t lastDone = -1, lastTotal = 0;
    bool monotonic = true;
    SearchOptions options;
    options.progress = [&](int64_t done, int64_t total) {
        monotonic = monotonic && done >= lastDone;
        lastDone = done;
        lastTotal = total;
    };
    const SearchOutcome outcome = searchParallelism(*h100.cluster, *h100.run, options);
    CHECK(monotonic);
    CHECK(lastTotal == 2 * outcome.layouts); // bounded, then placed
    CHECK(lastDone == lastTotal);
}

TEST_CASE("keeping fewer results returns exactly the head of a longer ranking")
{
    const LoadedFile h100 = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    SearchOptions everything;
    everything.keep = 200;
    const SearchOutcome all = searchParallelism(*h100.cluster, *h100.run, everything);
    CHECK(all.results.size() == 200);
    SearchOptions few;
    few.keep = 10;
    const SearchOutcome head = searchParallelism(*h100.cluster, *h100.run, few);
    CHECK(head.fitting == all.fitting);
    CHECK(head.evaluated < all.evaluated);
    REQUIRE(head.results.size() == 10);
    CHECK(sameResults(head.results, {all.results.begin(), all.results.begin() + 10}));
}

TEST_CASE("configurations faster than a reference are all kept")
{
    const LoadedFile h100 = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    SearchOptions everything;
    everything.keep = 200;
    const SearchOutcome all = searchParallelism(*h100.cluster, *h100.run, everything);
    REQUIRE(all.results.size() > 60);
    SearchOptions options;
    options.keep = 5;
    options.alsoKeepFasterThanS = all.results[50].stepTimeS;
    const SearchOutcome kept = searchParallelism(*h100.cluster, *h100.run, options);
    const auto faster = std::count_if(all.results.begin(), all.results.end(), [&](const auto& r) {
        return r.stepTimeS < options.alsoKeepFasterThanS;
    });
    CHECK(int64_t(kept.results.size()) == std::max<int64_t>(faster, 5));
}

TEST_CASE("the run's own rank does not depend on how many results are kept", "[slow]")
{
    // DeepSeek-V3's own layout simulates faster than its closed-form estimate puts it: ranked
    // against estimates alone, a short list missed a layout that a long one found (24 vs 25).
    const LoadedFile moe = loadSample("gb200-16-deepseek-v3.run.json");
    const double own = evaluate(*moe.cluster, *moe.run).stepTimeS;
    auto rankWith = [&](size_t keep) {
        SearchOptions options;
        options.keep = keep;
        options.alsoKeepFasterThanS = own;
        const SearchOutcome outcome = searchParallelism(*moe.cluster, *moe.run, options);
        return 1 + std::count_if(outcome.results.begin(), outcome.results.end(),
                                 [&](const SearchResult& r) { return r.stepTimeS < own; });
    };
    const auto rank = rankWith(500);
    CHECK(rank > 1);
    CHECK(rankWith(5) == rank);
}

TEST_CASE("withLayout changes only what the search chooses")
{
    const RunDesc& run = *fairwater().run;
    Layout layout;
    layout.parallelism = {.tp = 8,
                          .cp = 1,
                          .pp = 4,
                          .vp = 2,
                          .dp = 256,
                          .sequenceParallel = true,
                          .distributedOptimizer = true,
                          .recompute = Recompute::of(cs::RecomputeMode::Selective)};
    layout.placement = {Dim::PP, Dim::TP, Dim::CP, Dim::DP};
    layout.microBatch = 3;
    const RunDesc changed = withLayout(run, layout);
    CHECK(changed.parallelism == layout.parallelism);
    CHECK(changed.placement == layout.placement);
    CHECK(changed.batch.micro == 3);
    CHECK(changed.batch.global == run.batch.global);
    CHECK(changed.model == run.model);
    CHECK(changed.name == run.name);
}

TEST_CASE("search on the command line: ranked JSON, the run's own rank, exit codes")
{
    const std::string cluster = samplePath("ndv5-h200-64.cluster.json");
    const std::string run = samplePath("ndv5-h200-64-gpt3-175b.run.json");
    std::ostringstream out, err;
    const cli::Io io{out, err};
    REQUIRE(cli::run({"search", cluster, run, "--top", "5", "--json"}, io) == cli::kExitOk);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    const auto& results = j.at("results");
    REQUIRE(results.size() >= 5);
    for (size_t i = 1; i < results.size(); ++i)
        CHECK(results[i - 1].at("step_time_s") <= results[i].at("step_time_s"));
    const auto& current = j.at("current");
    REQUIRE(current.at("rank").is_number());
    const int rank = current.at("rank");
    CHECK(rank >= 1);
    if (rank <= int(results.size()))
        CHECK(results[size_t(rank - 1)].at("step_time_s") <= current.at("step_time_s"));
    CHECK(current.at("parallelism").at("tp") == 4);

    std::ostringstream text;
    CHECK(cli::run({"search", cluster, run, "--top", "3"}, {text, err}) == cli::kExitOk);
    CHECK(text.str().find("rank ") != std::string::npos);

    CHECK(cli::run({"search", cluster}, io) == cli::kExitUsage);
    CHECK(cli::run({"search", cluster, run, "--top", "0"}, io) == cli::kExitUsage);
    CHECK(cli::run({"search", cluster, run, "--fast"}, io) == cli::kExitUsage);
    CHECK(cli::run({"search", cluster, "missing.run.json"}, io) == cli::kExitBadInput);
    CHECK(cli::run({"search", run, run}, io) == cli::kExitBadInput);
    std::ostringstream help;
    CHECK(cli::run({"search", "--help"}, {help, err}) == cli::kExitOk);
    CHECK(help.str().find("--top N") != std::string::npos);
}

TEST_CASE("the search table on the command line has an EP and an ETP column for a run with "
          "experts, and a recompute column as wide as its entries",
          "[slow]")
{
    // The search's table as the command line prints it.
    auto searchText = [](const std::string& cluster, const std::string& run) {
        std::ostringstream out, err;
        REQUIRE(cli::run({"search", samplePath(cluster), samplePath(run), "--top", "3"},
                         {out, err}) == cli::kExitOk);
        return out.str();
    };
    // The header's words, and the columns of the rows under it.
    auto table = [](const std::string& text) {
        std::istringstream lines(text);
        std::string line;
        while (std::getline(lines, line) && line.rfind("rank ", 0) != 0) {
        }
        std::vector<std::string> header, row;
        std::istringstream words(line);
        for (std::string w; words >> w;)
            header.push_back(w);
        std::getline(lines, line);
        std::istringstream cells(line);
        for (std::string c; cells >> c;)
            row.push_back(c);
        return std::pair{header, row};
    };
    const std::string moeText =
        searchText("gb200-nvl72-16.cluster.json", "gb200-16-deepseek-v3.run.json");
    const auto [moe, moeRow] = table(moeText);
    const auto at = [](const std::vector<std::string>& words, const char* w) {
        return std::find(words.begin(), words.end(), w) - words.begin();
    };
    REQUIRE(at(moe, "ep") < int(moe.size()));
    REQUIRE(at(moe, "etp") < int(moe.size()));
    // "placement" spans four cells ("tp, cp, dp, pp"); the columns before it line up one to one,
    // under the best layout's degrees as --json gives them.
    std::ostringstream jsonOut, jsonErr;
    REQUIRE(cli::run({"search", samplePath("gb200-nvl72-16.cluster.json"),
                      samplePath("gb200-16-deepseek-v3.run.json"), "--top", "3", "--json"},
                     {jsonOut, jsonErr}) == cli::kExitOk);
    const nlohmann::json best = nlohmann::json::parse(jsonOut.str()).at("results").at(0);
    const nlohmann::json& par = best.at("parallelism");
    REQUIRE(par.at("ep").get<int>() != par.at("dp").get<int>());
    CHECK(moeRow[size_t(at(moe, "ep"))] == std::to_string(par.at("ep").get<int>()));
    CHECK(moeRow[size_t(at(moe, "dp"))] == std::to_string(par.at("dp").get<int>()));
    CHECK(moeRow[size_t(at(moe, "etp"))] == std::to_string(par.at("etp").get<int>()));
    {
        // The run's own row, whose recompute ("mla_up_proj") is wider than the word: its
        // placement still starts under the header's.
        const size_t own = moeText.find("The run's own layout:\n");
        REQUIRE(own != std::string::npos);
        std::istringstream lines(moeText.substr(own));
        std::string title, header, row;
        std::getline(lines, title);
        std::getline(lines, header);
        std::getline(lines, row);
        REQUIRE(row.find("mla_up_proj") != std::string::npos);
        CHECK(row.find("tp, cp") == header.find("placement"));
    }
    const auto [dense, denseRow] =
        table(searchText("ndv5-h100-128.cluster.json", "ndv5-h100-128-gpt3-175b.run.json"));
    CHECK(at(dense, "ep") == int(dense.size()));
    CHECK(at(dense, "etp") == int(dense.size()));
    CHECK(at(dense, "dp") < int(dense.size()));
}

TEST_CASE("constraints hold dimensions and keep memory free", "[search]")
{
    const LoadedFile h100 = loadSample("ndv5-h100-128-gpt3-175b.run.json");
    const ClusterDesc& cluster = *h100.cluster;
    SearchOptions free;
    free.keep = 200;
    const SearchOutcome unconstrained = searchParallelism(cluster, *h100.run, free);

    SearchOptions held = free;
    held.constraints.fixed[Dim::TP] = 8;
    held.constraints.fixedMicroBatch = 1;
    const SearchOutcome outcome = searchParallelism(cluster, *h100.run, held);
    REQUIRE_FALSE(outcome.results.empty());
    for (const SearchResult& r : outcome.results) {
        CHECK(r.layout.parallelism.tp == 8);
        CHECK(r.layout.microBatch == 1);
    }
    CHECK(outcome.layouts < unconstrained.layouts);

    SearchOptions headroom = free;
    headroom.constraints.memoryHeadroomGiB = 30;
    const SearchOutcome roomy = searchParallelism(cluster, *h100.run, headroom);
    REQUIRE_FALSE(roomy.results.empty());
    for (const SearchResult& r : roomy.results)
        CHECK(r.memoryGiBPerGpu + 30 <= cluster.gpu.hbmGiB);
    CHECK(roomy.fitting < unconstrained.fitting);
    // Some configuration the free search found needs more than 50 GiB: the headroom left it out.
    CHECK(std::any_of(unconstrained.results.begin(), unconstrained.results.end(),
                      [&](const SearchResult& r) { return r.memoryGiBPerGpu > 50; }));
}
