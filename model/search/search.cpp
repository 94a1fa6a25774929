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
// how far the two methods part), up to kShortlistFactor x `keep` in all.
constexpr double kEstimateMargin = 0.03;
constexpr size_t kShortlistFactor = 4;
// Progress reports per search, so that a GUI gets a smooth bar without a flood of signals.
constexpr int64_t kProgressSteps = 200;
constexpr int64_t kProgressBatch = 64;

// Ascending.
std::vector<int> divisorsOf(int64_t n)
{
    std::vector<int> small, large;
    for (int64_t d = 1; d * d <= n; ++d) {
        if (n % d != 0)
            continue;
        small.push_back(int(d));
        if (d * d != n)
            large.push_back(int(n / d));
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

// How each dimension's groups sit on NVLink domains under an ordering: members per domain and
// domains per group. Nothing when some group straddles domains unevenly.
using TwoLevelShape = PerDim<std::array<int, 2>>;
std::optional<TwoLevelShape> twoLevelShape(const PlacementOrder& order, const PerDim<int>& sizes,
                                           int domainSize)
{
    TwoLevelShape shape;
    int64_t stride = 1;
    for (Dim d : order) {
        const int64_t size = sizes[d];
        const int64_t span = stride * size;
        int64_t perDomain = 0;
        if (size == 1 || (span <= domainSize && domainSize % span == 0))
            perDomain = size;
        else if (stride % domainSize == 0)
            perDomain = 1;
        else if (domainSize % stride == 0 && span % domainSize == 0)
            perDomain = domainSize / stride;
        else
            return std::nullopt;
        shape[d] = {int(perDomain), int(size / perDomain)};
        stride = span;
    }
    return shape;
}

// A run stripped of everything the cost model does not read, so that workers can change it
// in place and copy it cheaply.
RunDesc probeRun(const RunDesc& run)
{
    RunDesc probe;
    probe.model = run.model;
    probe.precision = run.precision;
    probe.batch = run.batch;
    probe.parallelism = run.parallelism;
    return probe;
}

bool isValid(const RunDesc& run, const ClusterDesc& cluster)
{
    Diagnostics diags;
    checkRunShape(run, "", "", diags);
    checkRunOnCluster(run, cluster, "", "", diags);
    return diags.empty();
}

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
// kShortlistFactor x `keep` of them, and all faster than a reference. One for all threads, so
// that the cut-off tightens with every thread's finds (own lists, each cut off by half the
// finds, estimated a quarter more placements on two threads); an estimate it drops has `keep`
// faster ones in it, by more than the margin or up to the cap, so it would not make the cut.
class Shortlist {
public:
    // `reference` is a simulated step time; an estimate within kEstimateMargin above it may
    // simulate below it, so those are kept too.
    Shortlist(size_t keep, double reference)
        : m_keep(keep)
        , m_reference(reference * (1 + kEstimateMargin))
        , m_trimAt(2 * kShortlistFactor * keep)
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
        while (cut < m_items.size() && cut < kShortlistFactor * m_keep &&
               m_items[cut].result.stepTimeS <= close)
            ++cut;
        while (cut < m_items.size() && m_items[cut].result.stepTimeS < m_reference)
            ++cut;
        m_items.resize(cut);
        if (cut >= m_keep)
            m_cutoff = std::max(cut >= kShortlistFactor * m_keep
                                    ? std::min(close, m_items[cut - 1].result.stepTimeS)
                                    : close,
                                m_reference);
        m_trimAt = 2 * std::max(kShortlistFactor * m_keep, cut);
    }

    size_t m_keep;
    double m_reference;
    size_t m_trimAt;
    double m_cutoff = std::numeric_limits<double>::infinity();
    std::vector<Ranked> m_items;
};

std::vector<Layout> allowedLayouts(const ClusterDesc& cluster, const RunDesc& run,
                                   const SearchConstraints& constraints, int threads)
{
    std::vector<Layout> layouts = enumerateLayouts(cluster, run, threads);
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
        : m_cluster(cluster)
        , m_freeNetwork(withFreeNetwork(cluster))
        , m_options(options)
        , m_layouts(allowedLayouts(cluster, run, options.constraints, threadCount()))
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
        parallelFor(m_families.size(), [&](Worker& w, size_t f) {
            boundFamily(w, m_families[f], bounds);
            return int64_t(m_families[f].size());
        });
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
        // Stopped while bounding: the best bounded so far are still placed, whatever the stop.
        const bool placeAll = !m_stopped;
        if (m_stopped)
            fitting.resize(std::min(fitting.size(), m_options.keep > 0 ? m_options.keep : 1000));
        parallelFor(
            fitting.size(),
            [&](Worker& w, size_t i) {
                place(w, fitting[i]);
                return int64_t(1);
            },
            placeAll);
        report();

        out.cancelled = m_stopped && cancelled();
        out.outOfTime = m_stopped && !out.cancelled;
        for (const Worker& w : m_workers)
            out.estimated += w.estimated;
        out.results = m_shortlist.ranked();
        reevaluate(out.results);
        out.evaluated = int64_t(out.results.size());
        keepFastest(out.results);
        return out;
    }

private:
    int threadCount() const
    {
        const int wanted =
            m_options.threads > 0 ? m_options.threads : int(std::thread::hardware_concurrency());
        return std::max(1, wanted);
    }

    bool cancelled() const { return m_options.cancel && m_options.cancel->load(); }
    bool stopRequested() const
    {
        return cancelled() || std::chrono::steady_clock::now() >= m_options.deadline;
    }

    int64_t totalSteps() const { return 2 * int64_t(m_layouts.size()); }

    void report() const
    {
        if (m_options.progress)
            m_options.progress(m_done.load(), totalSteps());
    }

    // Runs body(worker, i) for i in [0, count) on every worker, each returning the progress
    // steps it did, until a stop is requested when `stoppable`; the calling thread is the first
    // worker and the one that reports progress.
    template <typename Body> void parallelFor(size_t count, Body body, bool stoppable = true)
    {
        std::atomic<size_t> next{0};
        auto loop = [&](Worker& worker, bool reports) {
            int64_t nextReport = 0, pending = 0;
            for (size_t i = next++; i < count; i = next++) {
                if (stoppable && stopRequested()) {
                    m_stopped = true;
                    break;
                }
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
    void reevaluate(std::vector<SearchResult>& results)
    {
        std::atomic<size_t> next{0};
        auto loop = [&](Worker& worker) {
            for (size_t i = next++; i < results.size(); i = next++) {
                SearchResult& r = results[i];
                const RunDesc run = withLayout(worker.probe, r.layout);
                r = resultOf(run, evaluate(m_cluster, run, evalOptions()));
            }
        };
        std::vector<std::thread> helpers;
        for (size_t t = 1; t < m_workers.size(); ++t)
            helpers.emplace_back(loop, std::ref(m_workers[t]));
        loop(m_workers.front());
        for (std::thread& t : helpers)
            t.join();
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

    const ClusterDesc& m_cluster;
    const ClusterDesc m_freeNetwork;
    const SearchOptions& m_options;
    const std::vector<Layout> m_layouts;
    const std::vector<Family> m_families;
    std::vector<Worker> m_workers;
    std::atomic<int64_t> m_done{0};
    Shortlist m_shortlist;
    std::mutex m_shortlistMutex;
    // The shortlist's cut-off as last trimmed; it only falls.
    std::atomic<double> m_cutoff{std::numeric_limits<double>::infinity()};
    std::atomic<bool> m_stopped{false}; // a stoppable pass stopped before its end
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

std::vector<PlacementOrder> distinctPlacements(const PerDim<int>& sizes, int domainSize)
{
    std::vector<PlacementOrder> distinct;
    std::vector<TwoLevelShape> shapes;
    PlacementOrder order = kPlacedDims;
    std::sort(order.begin(), order.end());
    do {
        const std::optional<TwoLevelShape> shape = twoLevelShape(order, sizes, domainSize);
        if (!shape) {
            distinct.push_back(order);
        } else if (std::find(shapes.begin(), shapes.end(), *shape) == shapes.end()) {
            shapes.push_back(*shape);
            distinct.push_back(order);
        }
    } while (std::next_permutation(order.begin(), order.end()));
    return distinct;
}

// Data-parallel width of a model-parallel layout: all the healthy GPUs when the global batch
// divides over them; with GPUs out of service, the widest the batch divides that fits on what
// is left (the rest idle), so that a re-plan keeps the global batch.
int dataParallelWidth(int64_t modelParallel, const ClusterDesc& cluster, const RunDesc& run)
{
    const int64_t healthy = cluster.healthyGpuCount();
    const int64_t widest = healthy / modelParallel;
    if (healthy == cluster.gpuCount())
        return run.batch.global % widest == 0 ? int(widest) : 0;
    for (int64_t dp = std::min<int64_t>(widest, run.batch.global); dp >= 1; --dp)
        if (run.batch.global % dp == 0)
            return int(dp);
    return 0;
}

// The expert layouts of a stage of tp x cp x dp ranks: every ep that divides the experts and,
// with expert tensor parallelism of 1 or of tp, folds over the stage's ranks. (1, 1) for a
// dense model.
namespace {
std::vector<std::pair<int, int>> expertLayouts(const ModelShape& model, int tp, int cp, int dp)
{
    if (!model.moe)
        return {{1, 1}};
    std::vector<std::pair<int, int>> layouts;
    const int64_t ranks = int64_t(tp) * cp * dp;
    for (int etp : {1, tp}) {
        if (etp == tp && tp == 1 && !layouts.empty())
            break;
        for (int ep : divisorsOf(model.moe->experts))
            if (ranks % (int64_t(ep) * etp) == 0)
                layouts.push_back({ep, etp});
    }
    return layouts;
}
} // namespace

// The valid layouts with this tp and cp, in enumeration order. Micro-batch sizes are innermost,
// ascending: memory grows with them, so the search stops a family of layouts at the first
// micro-batch that does not fit.
std::vector<Layout> layoutsWith(const ClusterDesc& cluster, const RunDesc& run, int tp, int cp)
{
    const int64_t gpus = cluster.gpuCount();
    const ModelShape& model = run.model;
    RunDesc probe = probeRun(run);
    probe.parallelism.recompute = Recompute::of(RecomputeMode::None);
    std::vector<Layout> layouts;
    for (int pp : divisorsOf(gpus / (int64_t(tp) * cp))) {
        if (pp > model.layers)
            break;
        const int dp = dataParallelWidth(int64_t(tp) * cp * pp, cluster, run);
        if (dp == 0)
            continue;
        const int maxVp = pp > 1 ? model.layers / pp : 1;
        for (int vp = 1; vp <= maxVp; ++vp) {
            for (const auto& [ep, etp] : expertLayouts(model, tp, cp, dp)) {
                for (int micro : divisorsOf(run.batch.global / dp)) {
                    Parallelism& par = probe.parallelism;
                    par.tp = tp;
                    par.cp = cp;
                    par.pp = pp;
                    par.vp = vp;
                    par.dp = dp;
                    par.ep = ep;
                    par.etp = etp;
                    probe.batch.micro = micro;
                    if (isValid(probe, cluster))
                        layouts.push_back({par, kPlacedDims, micro});
                }
            }
        }
    }
    return layouts;
}

std::vector<Layout> enumerateLayouts(const ClusterDesc& cluster, const RunDesc& run, int threads)
{
    std::vector<std::pair<int, int>> tpCp;
    for (int tp : divisorsOf(cluster.gpuCount()))
        for (int cp : divisorsOf(cluster.gpuCount() / tp))
            tpCp.emplace_back(tp, cp);
    std::vector<std::vector<Layout>> byTpCp(tpCp.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < tpCp.size(); i = next++)
            byTpCp[i] = layoutsWith(cluster, run, tpCp[i].first, tpCp[i].second);
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t)
        helpers.emplace_back(work);
    work();
    for (std::thread& t : helpers)
        t.join();
    std::vector<Layout> layouts;
    for (std::vector<Layout>& some : byTpCp)
        layouts.insert(layouts.end(), some.begin(), some.end());
    return layouts;
}

SearchOutcome searchParallelism(const ClusterDesc& cluster, const RunDesc& run,
                                const SearchOptions& options)
{
    return SearchRunner(cluster, run, options).run();
}

} // namespace cs
