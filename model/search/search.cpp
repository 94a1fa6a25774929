#include "search.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include "schedule.h"
#include "validation.h"

namespace cs {

namespace {

constexpr std::array<RecomputeMode, 3> kRecomputeLightestFirst{
    RecomputeMode::None, RecomputeMode::Selective, RecomputeMode::Full};
// The closed form chooses what the simulation ranks: the fastest `keep` estimates and those
// within this much of the keep-th, which the simulation may put ahead (docs/cost-model.md gives
// how far the two methods part), up to kShortlistFactor x `keep` in all, and kShortlistLeast at
// least: a small `keep` meets more near ties within the margin than its share holds.
constexpr double kEstimateMargin = 0.03;
constexpr size_t kShortlistFactor = 4;
constexpr size_t kShortlistLeast = 200;
// Progress reports per search, so that a GUI gets a smooth bar without a flood of signals.
constexpr int64_t kProgressSteps = 200;
constexpr int64_t kProgressBatch = 64;
// A deadline covers the whole search: enumerating the layouts may take the first share of the
// time from the start, bounding them up to the second, placing the best bounded up to the third,
// evaluating the shortlist the rest. Each pass
// always does its first item, so that a search out of time still answers.
constexpr double kEnumeratingShare = 0.3;
constexpr double kBoundingShare = 0.6;
constexpr double kPlacingShare = 0.8;

SearchResult resultOf(const RunDesc& probe, const Evaluation& e)
{
    SearchResult r;
    r.layout.parallelism = probe.parallelism;
    r.layout.placement = probe.placement;
    r.layout.microBatch = probe.batch.micro;
    r.stepTimeS = e.stepTimeS;
    r.breakdown = e.breakdown;
    r.memoryGiBPerGpu = e.memoryGiBPerGpu;
    r.mfu = e.mfu;
    return r;
}

// The cluster with a network that costs nothing. No placement on the real network is faster,
// and memory is the same, so one evaluation here bounds every placement of a layout.
ClusterDesc withFreeNetwork(ClusterDesc cluster)
{
    constexpr double kUnlimitedGBps = 1e12;
    cluster.scaleUp.GBpsPerGpu = kUnlimitedGBps;
    cluster.scaleUp.latencyUs = 0;
    cluster.scaleOut.GbpsPerGpu = kUnlimitedGBps;
    cluster.scaleOut.latencyUs = 0;
    cluster.scaleOut.topology.oversubscription = {1.0};
    return cluster;
}

// A result and its place in the enumeration, which orders equal step times so that the
// outcome does not depend on which thread found what.
struct Ranked {
    SearchResult result;
    uint64_t ordinal = 0;
};

bool faster(const Ranked& a, const Ranked& b)
{
    if (a.result.stepTimeS != b.result.stepTimeS)
        return a.result.stepTimeS < b.result.stepTimeS;
    return a.ordinal < b.ordinal;
}

// The estimates worth evaluating: the fastest `keep`, those within kEstimateMargin of the
// keep-th (the closed form and the simulation may order them either way), at most
// kShortlistFactor x `keep` of them (kShortlistLeast at least), and all faster than a reference.
// One for all threads, so that the cut-off tightens with every thread's finds (own lists, each cut
// off by half the finds, estimated a quarter more placements on two threads); an estimate it drops
// has `keep` faster ones in it, by more than the margin or up to the cap, so it would not make the
// cut.
class Shortlist {
public:
    // `reference` is a simulated step time; an estimate within kEstimateMargin above it may
    // simulate below it, so those are kept too.
    Shortlist(size_t keep, double reference)
        : m_keep(keep)
        , m_reference(reference * (1 + kEstimateMargin))
        , m_most(std::max(kShortlistFactor * keep, kShortlistLeast))
        , m_trimAt(2 * m_most)
    {
    }

    // Step times above this cannot make the cut.
    double cutoff() const { return m_cutoff; }

    void add(Ranked r)
    {
        if (r.result.stepTimeS > m_cutoff)
            return;
        m_items.push_back(std::move(r));
        if (m_keep > 0 && m_items.size() >= m_trimAt)
            trim();
    }

    std::vector<SearchResult> ranked()
    {
        std::sort(m_items.begin(), m_items.end(), faster);
        if (m_keep > 0)
            trim();
        std::vector<SearchResult> results;
        results.reserve(m_items.size());
        for (Ranked& r : m_items)
            results.push_back(std::move(r.result));
        return results;
    }

private:
    void trim()
    {
        std::sort(m_items.begin(), m_items.end(), faster);
        size_t cut = std::min(m_keep, m_items.size());
        const double close = cut == m_keep
                                 ? m_items[m_keep - 1].result.stepTimeS * (1 + kEstimateMargin)
                                 : std::numeric_limits<double>::infinity();
        while (cut < m_items.size() && cut < m_most && m_items[cut].result.stepTimeS <= close)
            ++cut;
        while (cut < m_items.size() && m_items[cut].result.stepTimeS < m_reference)
            ++cut;
        m_items.resize(cut);
        if (cut >= m_keep)
            m_cutoff =
                std::max(cut >= m_most ? std::min(close, m_items[cut - 1].result.stepTimeS) : close,
                         m_reference);
        m_trimAt = 2 * std::max(m_most, cut);
    }

    size_t m_keep;
    double m_reference;
    size_t m_most; // the most kept: kShortlistFactor x `keep`, kShortlistLeast at least
    size_t m_trimAt;
    double m_cutoff = std::numeric_limits<double>::infinity();
    std::vector<Ranked> m_items;
};

std::vector<Layout> allowedLayouts(const ClusterDesc& cluster, const RunDesc& run,
                                   const SearchConstraints& constraints, int threads,
                                   const std::function<bool()>& stop)
{
    std::vector<Layout> layouts = enumerateLayouts(cluster, run, threads, stop);
    std::erase_if(layouts, [&](const Layout& l) { return !constraints.allows(l); });
    return layouts;
}

// Ordinals leave room for every placement at every recompute setting of a layout.
constexpr uint64_t kOrdinalsPerRecompute = 24;
constexpr uint64_t kOrdinalsPerLayout = 128;
static_assert(kOrdinalsPerLayout >= kOrdinalsPerRecompute * kRecomputeLightestFirst.size());

// A layout at the lightest recompute setting that fits, and a step time none of its
// placements beats.
struct Bounded {
    size_t layout = 0;
    size_t recompute = 0; // index into kRecomputeLightestFirst
    size_t placements = 0;
    double boundS = 0;
};

// Consecutive layouts that differ only in their micro-batch.
struct Family {
    size_t begin = 0;
    size_t end = 0;
    size_t size() const { return end - begin; }
};

std::vector<Family> familiesOf(const std::vector<Layout>& layouts)
{
    std::vector<Family> families;
    for (size_t i = 0; i < layouts.size(); ++i) {
        if (families.empty() ||
            layouts[i].parallelism != layouts[families.back().begin].parallelism)
            families.push_back({i, i});
        families.back().end = i + 1;
    }
    return families;
}

// Whether each pipeline stage keeps at least as many activation bytes in flight with `larger`
// as with `smaller`, two layouts of a family. Nothing else in memory moves with the micro-batch
// (the pipeline split follows FLOPs), so a recompute setting that did not fit `smaller` does
// not fit `larger` either. Interleaved schedules can keep fewer in flight with more
// micro-batches per step, when the micro-batches group more evenly.
bool activationsGrow(const Layout& smaller, const Layout& larger, int64_t globalBatch)
{
    const Parallelism& par = smaller.parallelism;
    const int64_t perMicro = int64_t(par.dp);
    const int fewer = int(globalBatch / (perMicro * larger.microBatch));
    const int more = int(globalBatch / (perMicro * smaller.microBatch));
    for (int s = 0; s < par.pp; ++s)
        if (int64_t(inFlightLimit(par.pp, par.vp, fewer, s)) * larger.microBatch <
            int64_t(inFlightLimit(par.pp, par.vp, more, s)) * smaller.microBatch)
            return false;
    return true;
}

// A cache line of its own: each thread writes its worker for every layout.
struct alignas(64) Worker {
    RunDesc probe;
    std::vector<Ranked> found; // a layout's placements that beat the cut-off, to be shortlisted
    int64_t estimated = 0;
};

std::vector<PlacementOrder> placementsOf(const Layout& layout, const ClusterDesc& cluster)
{
    PerDim<int> sizes;
    for (Dim d : kPlacedDims)
        sizes[d] = layout.parallelism.size(d);
    return distinctPlacements(sizes, cluster.domainSize());
}

// Two passes over the layouts, both on every thread. The first bounds each layout on a free
// network, which also tells the lightest recompute setting that fits (memory depends neither
// on placement nor on the network). The second evaluates the placements of the layouts in
// order of their bounds, so that the cut-off tightens early and the rest are skipped.
// Progress counts two steps per layout, one in each pass.
class SearchRunner {
public:
    SearchRunner(const ClusterDesc& cluster, const RunDesc& run, const SearchOptions& options)
        : m_start(Clock::now())
        , m_cluster(cluster)
        , m_freeNetwork(withFreeNetwork(cluster))
        , m_options(options)
        , m_layouts(allowedLayouts(cluster, run, options.constraints, threadCount(),
                                   [this] { return stopping(passDeadline(kEnumeratingShare)); }))
        , m_families(familiesOf(m_layouts))
        , m_workers(size_t(threadCount()), Worker{probeRun(run), {}})
        , m_shortlist(options.keep, options.alsoKeepFasterThanS)
    {
    }

    SearchOutcome run()
    {
        SearchOutcome out;
        out.layouts = int64_t(m_layouts.size());
        std::vector<std::optional<Bounded>> bounds(m_layouts.size());
        parallelFor(
            m_families.size(),
            [&](Worker& w, size_t f) {
                boundFamily(w, m_families[f], bounds);
                return int64_t(m_families[f].size());
            },
            passDeadline(kBoundingShare));
        std::vector<Bounded> fitting;
        for (const std::optional<Bounded>& b : bounds) {
            if (b) {
                fitting.push_back(*b);
                out.fitting += int64_t(b->placements);
            }
        }
        std::sort(fitting.begin(), fitting.end(), [](const Bounded& a, const Bounded& b) {
            return a.boundS != b.boundS ? a.boundS < b.boundS : a.layout < b.layout;
        });
        m_done += totalSteps() / 2 - int64_t(fitting.size()); // those that fit nowhere are done
        // Stopped while bounding: the best bounded so far are still placed, best first, until the
        // placing pass's share of the time is gone.
        if (m_stopped)
            fitting.resize(std::min(fitting.size(), m_options.keep > 0 ? m_options.keep : 1000));
        parallelFor(
            fitting.size(),
            [&](Worker& w, size_t i) {
                place(w, fitting[i]);
                return int64_t(1);
            },
            passDeadline(kPlacingShare));
        report();

        for (const Worker& w : m_workers)
            out.estimated += w.estimated;
        out.results = m_shortlist.ranked();
        reevaluate(out.results);
        out.evaluated = int64_t(out.results.size());
        keepFastest(out.results);
        out.cancelled = m_stopped && cancelled();
        out.outOfTime = m_stopped && !out.cancelled;
        return out;
    }

private:
    int threadCount() const
    {
        const int wanted =
            m_options.threads > 0 ? m_options.threads : int(std::thread::hardware_concurrency());
        return std::max(1, wanted);
    }

    using Clock = std::chrono::steady_clock;

    bool cancelled() const { return m_options.cancel && m_options.cancel->load(); }
    bool stopRequested(Clock::time_point until) const
    {
        return cancelled() || Clock::now() >= until;
    }

    // Whether a pass is to stop now; the search then says it stopped early.
    bool stopping(Clock::time_point until)
    {
        if (!stopRequested(until))
            return false;
        m_stopped = true;
        return true;
    }

    // The end of a pass that may take this share of the time from the start to the deadline.
    Clock::time_point passDeadline(double share) const
    {
        if (m_options.deadline == Clock::time_point::max())
            return m_options.deadline;
        return m_start +
               std::chrono::duration_cast<Clock::duration>(share * (m_options.deadline - m_start));
    }

    int64_t totalSteps() const { return 2 * int64_t(m_layouts.size()); }

    void report() const
    {
        if (m_options.progress)
            m_options.progress(m_done.load(), totalSteps());
    }

    // Runs body(worker, i) for i in [0, count) on every worker, each returning the progress
    // steps it did, until a stop is requested or `until` passes (the first item is always
    // done); the calling thread is the first worker and the one that reports progress.
    template <typename Body> void parallelFor(size_t count, Body body, Clock::time_point until)
    {
        std::atomic<size_t> next{0};
        auto loop = [&](Worker& worker, bool reports) {
            int64_t nextReport = 0, pending = 0;
            for (size_t i = next++; i < count; i = next++) {
                if (i > 0 && stopping(until))
                    break;
                // Progress is shared in batches, so that the threads do not contend for it.
                pending += body(worker, i);
                if (pending < kProgressBatch)
                    continue;
                const int64_t done = m_done += pending;
                pending = 0;
                if (reports && done >= nextReport) {
                    report();
                    nextReport = done + std::max<int64_t>(1, totalSteps() / kProgressSteps);
                }
            }
            m_done += pending;
        };
        std::vector<std::thread> helpers;
        for (size_t t = 1; t < m_workers.size(); ++t)
            helpers.emplace_back(loop, std::ref(m_workers[t]), false);
        loop(m_workers.front(), true);
        for (std::thread& t : helpers)
            t.join();
    }

    // The shortlist evaluated by the cost model itself, on every thread, and ranked by that.
    // Out of time, the estimates not yet evaluated are left out: a listed step time is always
    // what `evaluate` gives.
    void reevaluate(std::vector<SearchResult>& results)
    {
        std::atomic<size_t> next{0};
        std::vector<char> evaluated(results.size(), 0);
        auto loop = [&](Worker& worker) {
            for (size_t i = next++; i < results.size(); i = next++) {
                if (i > 0 && stopping(m_options.deadline))
                    break;
                SearchResult& r = results[i];
                const RunDesc run = withLayout(worker.probe, r.layout);
                r = resultOf(run, evaluate(m_cluster, run, evalOptions()));
                evaluated[i] = 1;
            }
        };
        std::vector<std::thread> helpers;
        for (size_t t = 1; t < m_workers.size(); ++t)
            helpers.emplace_back(loop, std::ref(m_workers[t]));
        loop(m_workers.front());
        for (std::thread& t : helpers)
            t.join();
        size_t kept = 0;
        for (size_t i = 0; i < results.size(); ++i)
            if (evaluated[i])
                results[kept++] = std::move(results[i]);
        results.resize(kept);
        // Ties keep the enumeration's order, which the shortlist's order follows.
        std::stable_sort(
            results.begin(), results.end(),
            [](const SearchResult& a, const SearchResult& b) { return a.stepTimeS < b.stepTimeS; });
    }

    void keepFastest(std::vector<SearchResult>& results) const
    {
        if (m_options.keep == 0)
            return;
        size_t cut = std::min(m_options.keep, results.size());
        while (cut < results.size() && results[cut].stepTimeS < m_options.alsoKeepFasterThanS)
            ++cut;
        results.resize(cut);
    }

    // The layouts of a family differ only in their micro-batch, ascending. While activations
    // grow, each needs at least the recompute setting of the one before, and once full
    // recompute does not fit, the larger ones are skipped.
    void boundFamily(Worker& w, const Family& family, std::vector<std::optional<Bounded>>& bounds)
    {
        const size_t placements = placementsOf(m_layouts[family.begin], m_cluster).size();
        size_t r = 0;
        for (size_t index = family.begin; index < family.end; ++index) {
            const Layout& layout = m_layouts[index];
            if (index > family.begin &&
                !activationsGrow(m_layouts[index - 1], layout, w.probe.batch.global))
                r = 0;
            w.probe.parallelism = layout.parallelism;
            w.probe.batch.micro = layout.microBatch;
            w.probe.placement = kPlacedDims;
            for (; r < kRecomputeLightestFirst.size(); ++r) {
                w.probe.parallelism.recompute = Recompute::of(kRecomputeLightestFirst[r]);
                const Evaluation e = estimate(m_freeNetwork, w.probe, evalOptions());
                ++w.estimated;
                if (m_options.constraints.fits(e.memoryGiBPerGpu, m_cluster.gpu.hbmGiB)) {
                    bounds[index] = Bounded{index, r, placements, e.stepTimeS};
                    break;
                }
            }
        }
    }

    void place(Worker& w, const Bounded& b)
    {
        if (b.boundS > m_cutoff.load(std::memory_order_relaxed))
            return;
        const Layout& layout = m_layouts[b.layout];
        w.probe.parallelism = layout.parallelism;
        w.probe.parallelism.recompute = Recompute::of(kRecomputeLightestFirst[b.recompute]);
        w.probe.batch.micro = layout.microBatch;
        const uint64_t ordinal =
            b.layout * kOrdinalsPerLayout + b.recompute * kOrdinalsPerRecompute;
        const std::vector<PlacementOrder> placements = placementsOf(layout, m_cluster);
        w.found.clear();
        for (size_t i = 0; i < placements.size(); ++i) {
            w.probe.placement = placements[i];
            const Evaluation e = estimate(m_cluster, w.probe, evalOptions());
            ++w.estimated;
            if (e.stepTimeS <= m_cutoff.load(std::memory_order_relaxed))
                w.found.push_back({resultOf(w.probe, e), ordinal + i});
        }
        if (w.found.empty())
            return;
        const std::lock_guard<std::mutex> lock(m_shortlistMutex);
        for (Ranked& r : w.found)
            m_shortlist.add(std::move(r));
        m_cutoff.store(m_shortlist.cutoff(), std::memory_order_relaxed);
    }

    EvalOptions evalOptions() const { return {m_options.calibration, false}; }

    const Clock::time_point m_start; // before the layouts are enumerated
    const ClusterDesc& m_cluster;
    const ClusterDesc m_freeNetwork;
    const SearchOptions& m_options;
    std::atomic<bool> m_stopped{false}; // a pass stopped before its end
    const std::vector<Layout> m_layouts;
    const std::vector<Family> m_families;
    std::vector<Worker> m_workers;
    std::atomic<int64_t> m_done{0};
    Shortlist m_shortlist;
    std::mutex m_shortlistMutex;
    // The shortlist's cut-off as last trimmed; it only falls.
    std::atomic<double> m_cutoff{std::numeric_limits<double>::infinity()};
};

} // namespace

bool SearchConstraints::allows(const Layout& layout) const
{
    for (Dim d : kAllDims)
        if (fixed[d] > 0 && layout.parallelism.size(d) != fixed[d])
            return false;
    return (fixedVp <= 0 || layout.parallelism.vp == fixedVp) &&
           (fixedMicroBatch <= 0 || layout.microBatch == fixedMicroBatch);
}

bool SearchConstraints::fits(double memoryGiBPerGpu, double hbmGiB) const
{
    return memoryGiBPerGpu + memoryHeadroomGiB <= hbmGiB;
}

RunDesc withLayout(const RunDesc& run, const Layout& layout)
{
    RunDesc changed = run;
    changed.parallelism = layout.parallelism;
    changed.placement = layout.placement;
    changed.batch.micro = layout.microBatch;
    return changed;
}

SearchOutcome searchParallelism(const ClusterDesc& cluster, const RunDesc& run,
                                const SearchOptions& options)
{
    return SearchRunner(cluster, run, options).run();
}

} // namespace cs
