// Per-link traffic of one step (clusterscope-cli links, the link-load views) on the Fairwater
// sample (8,192 GPUs, target <= 20 ms) and on the same fabric at the 131,072-GPU limit (target
// <= 1 s), with the evaluation of the same run as the baseline measured in the same run; and
// the contention factors of one placement on an oversubscribed and a hashed fabric, which a
// search computes once per placement (cache misses).

#include <cstdio>

#include "benchutil.h"
#include "costmodel.h"
#include "fabricfactors.h"
#include "linkloads.h"
#include "placement.h"
#include "samplerun.h"
#include "topology.h"

namespace {

void benchTraffic(const char* label, const cs::ClusterDesc& cluster, const cs::RunDesc& run,
                  int repeats)
{
    double sink = 0;
    double step = 0;
    const double evaluateMs = csbench::medianMs(repeats, [&](int) {
        step = cs::evaluate(cluster, run).stepTimeS;
        sink += step;
    });
    std::optional<cs::Topology> topology;
    const double topologyMs = csbench::medianMs(repeats, [&](int) { topology.emplace(cluster); });
    const double trafficMs = csbench::medianMs(repeats, [&](int) {
        const cs::StepTraffic t = cs::stepTraffic(*topology, run, step);
        sink += t.tier(cs::LinkClass::ScaleOut1).maxUtilization;
    });
    std::printf("%s: %s GPUs, %zu links, median of %d\n", label,
                std::to_string(cluster.gpuCount()).c_str(), topology->links().size(), repeats);
    std::printf("  evaluate (baseline):       %9.2f ms\n", evaluateMs);
    std::printf("  topology graph:            %9.2f ms\n", topologyMs);
    std::printf("  link traffic of the step:  %9.2f ms  (%.1fx evaluate)\n", trafficMs,
                trafficMs / evaluateMs);
    std::printf("  (checksum %.3f)\n", sink);
}

void benchFactors(const char* label, const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    const cs::Topology topology(cluster);
    const cs::Placement placement = cs::placeRun(run, cluster);
    double sink = 0;
    const double ms = csbench::medianMs(5, [&](int) {
        sink += cs::fabricFactors(topology, placement, run.parallelism.vp > 1).fabric[cs::Dim::DP];
    });
    std::printf("  factors of one placement, %-22s %7.2f ms (dp factor %.3f)\n", label, ms,
                sink / 5);
}

} // namespace

int main()
{
    const cs::ClusterRun sample = csbench::loadSampleRun("fairwater-gb200-128-llama405b.run.json");
    benchTraffic("Fairwater", sample.cluster, sample.run, 21);

    cs::ClusterDesc largest = sample.cluster;
    largest.racks = 2048; // 131,072 GPUs
    largest.layoutRows = 32;
    cs::RunDesc scaled = sample.run;
    scaled.parallelism.dp = 2048;
    scaled.batch.global = 1152 * 16;
    benchTraffic("At the limit", largest, scaled, 5);

    std::printf("Fairwater, contention factors (a cache miss of cachedFabricFactors):\n");
    cs::ClusterDesc oversubscribed = sample.cluster;
    oversubscribed.scaleOut.topology.oversubscription = {3.0};
    benchFactors("oversubscription 3:", oversubscribed, sample.run);
    cs::ClusterDesc hashed = sample.cluster;
    hashed.scaleOut.topology.routing = cs::Routing::Ecmp;
    benchFactors("ECMP:", hashed, sample.run);
    return 0;
}
