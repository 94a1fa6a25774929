#include "layouts.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "validation.h"

namespace cs {

namespace {

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

bool isValid(const RunDesc& run, const ClusterDesc& cluster)
{
    Diagnostics diags;
    checkRunShape(run, "", "", diags);
    checkRunOnCluster(run, cluster, "", "", diags);
    return diags.empty();
}

// Data-parallel width of a model-parallel layout: all the healthy GPUs (of the run's
// allocation) when the global batch divides over them; with GPUs out of service, the widest
// the batch divides that fits on what is left (the rest idle), so that a re-plan keeps the
// global batch.
int dataParallelWidth(int64_t modelParallel, const ClusterDesc& cluster, const RunDesc& run)
{
    const int64_t healthy = allocatedGpuCount(cluster, run); // of its allocation, if any
    const int64_t widest = healthy / modelParallel;
    if (widest == 0) // the model-parallel group is wider than what is left
        return 0;
    if (cluster.healthyGpuCount() == cluster.gpuCount())
        return run.batch.global % widest == 0 ? int(widest) : 0;
    for (int64_t dp = std::min<int64_t>(widest, run.batch.global); dp >= 1; --dp)
        if (run.batch.global % dp == 0)
            return int(dp);
    return 0;
}

// The expert layouts of a stage of tp x cp x dp ranks: every ep that divides the experts and,
// with expert tensor parallelism of 1 or of tp, folds over the stage's ranks. (1, 1) for a
// dense model.
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

// The valid layouts with this tp and cp, in enumeration order. Micro-batch sizes are innermost,
// ascending: memory grows with them, so the search stops a family of layouts at the first
// micro-batch that does not fit.
std::vector<Layout> layoutsWith(const ClusterDesc& cluster, const RunDesc& run, int tp, int cp)
{
    const int64_t gpus = heldGpuCount(cluster, run);
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

} // namespace

RunDesc probeRun(const RunDesc& run)
{
    RunDesc probe;
    probe.model = run.model;
    probe.precision = run.precision;
    probe.batch = run.batch;
    probe.parallelism = run.parallelism;
    return probe;
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

std::vector<Layout> enumerateLayouts(const ClusterDesc& cluster, const RunDesc& run, int threads,
                                     const std::function<bool()>& stop)
{
    // Model-parallel sizes that divide the GPUs the run holds: its allocation's, if it has one.
    const int64_t held = heldGpuCount(cluster, run);
    std::vector<std::pair<int, int>> tpCp;
    for (int tp : divisorsOf(held))
        for (int cp : divisorsOf(held / tp))
            tpCp.emplace_back(tp, cp);
    std::vector<std::vector<Layout>> byTpCp(tpCp.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < tpCp.size(); i = next++) {
            if (i > 0 && stop && stop())
                break;
            byTpCp[i] = layoutsWith(cluster, run, tpCp[i].first, tpCp[i].second);
        }
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

} // namespace cs
