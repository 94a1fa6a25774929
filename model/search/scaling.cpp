#include "scaling.h"

#include <algorithm>

#include "costmodel.h"
#include "loader.h"
#include "validation.h"

namespace cs {

namespace {

// A single-rack cluster grows by nodes, any other by racks.
bool scalesByNode(const ClusterDesc& cluster)
{
    return cluster.racks == 1;
}

int unitsOf(const ClusterDesc& cluster)
{
    return scalesByNode(cluster) ? cluster.nodesPerRack : cluster.racks;
}

std::vector<int> sizesToTry(int units)
{
    std::vector<int> sizes;
    for (int u = 1; u < 2 * units; u *= 2)
        sizes.push_back(u);
    sizes.push_back(units);
    sizes.push_back(2 * units);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

} // namespace

ClusterDesc scaledCluster(const ClusterDesc& cluster, int units)
{
    ClusterDesc scaled = cluster;
    if (scalesByNode(cluster))
        scaled.nodesPerRack = units;
    else
        scaled.racks = units;
    scaled.layoutRows = 0; // the hall's rows follow the new rack count
    return scaled;
}

RunDesc weakScaledRun(const RunDesc& run, int64_t gpus, int64_t baseGpus)
{
    RunDesc scaled = run;
    const Parallelism& par = run.parallelism;
    const int64_t modelParallel = int64_t(par.tp) * par.cp * par.pp;
    const int baseDp = run.dpFor(baseGpus);
    const int dp = int(gpus / modelParallel);
    scaled.parallelism.dp = dp;
    // Keeps global / (dp x micro), the micro-batches each pipeline runs.
    scaled.batch.global = int(int64_t(run.batch.global) * dp / std::max(1, baseDp));
    scaled.measured.reset();
    return scaled;
}

std::vector<ScalingPoint> weakScaling(const ClusterDesc& cluster, const RunDesc& run,
                                      const std::atomic<bool>* cancel)
{
    const Parallelism& par = run.parallelism;
    const int64_t modelParallel = int64_t(par.tp) * par.cp * par.pp;
    const int units = unitsOf(cluster);
    std::vector<ScalingPoint> points;
    for (int u : sizesToTry(units)) {
        if (cancel && *cancel)
            break;
        const ClusterDesc c = scaledCluster(cluster, u);
        const int64_t gpus = c.gpuCount();
        if (gpus > kMaxGpus || gpus % modelParallel != 0)
            continue;
        const RunDesc r = weakScaledRun(run, gpus, cluster.gpuCount());
        Diagnostics diags;
        checkRunOnCluster(r, c, "", "", diags);
        if (!diags.empty())
            continue;
        ScalingPoint p;
        p.units = u;
        p.gpus = gpus;
        p.dp = r.parallelism.dp;
        p.globalBatch = r.batch.global;
        // The simulated schedule, as the application shows for the run itself.
        p.stepTimeS = evaluate(c, r, {nullptr, false}).stepTimeS;
        p.isCluster = u == units;
        points.push_back(p);
    }
    if (!points.empty()) {
        const double base = points.front().stepTimeS;
        for (ScalingPoint& p : points)
            p.efficiency = p.stepTimeS > 0 ? base / p.stepTimeS : 0;
    }
    return points;
}

} // namespace cs
