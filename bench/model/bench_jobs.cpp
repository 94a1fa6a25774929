// Several jobs on one cluster on the Fairwater sample (128 NVL72 racks, 8,192 GB200): eight
// Llama 3.1 405B jobs of 8 racks each on racks 0-63, evaluated together (evaluateJobs, target
// <= 5 ms), and a ninth placed beside them (placeJob, target <= 1 s on 2 cores), with one job
// evaluated alone as the baseline measured in the same run; then the same on the fabric 3:1
// oversubscribed, where the jobs' traffic contends.

#include <cstdio>

#include "benchutil.h"
#include "costmodel.h"
#include "jobs.h"
#include "placejob.h"
#include "samplerun.h"

namespace {

cs::RunDesc jobOnRacks(cs::RunDesc run, int first)
{
    run.parallelism.dp = 8; // tp 4 x cp 2 x pp 8 x dp 8 = 512 GPUs, 8 racks
    run.batch.global = 72;
    run.allocation = cs::Allocation{cs::Allocation::Unit::Racks, {{first, first + 7}}};
    return run;
}

void benchJobs(const char* label, const cs::ClusterDesc& cluster, const cs::RunDesc& sampleRun)
{
    std::vector<cs::RunDesc> running;
    for (int j = 0; j < 8; ++j)
        running.push_back(jobOnRacks(sampleRun, 8 * j));
    const cs::EvalOptions options{nullptr, false};

    double sink = 0;
    const double aloneMs = csbench::medianMs(
        21, [&](int) { sink += cs::evaluate(cluster, running[0], options).stepTimeS; });
    const double jobsMs = csbench::medianMs(21, [&](int) {
        sink += cs::evaluateJobs(cluster, running, options).jobs.back().shared.stepTimeS;
    });
    int candidates = 0;
    const csbench::Timing place = csbench::medianTiming(5, [&](int) {
        const cs::PlaceJobResult r = cs::placeJob(cluster, jobOnRacks(sampleRun, 0), running);
        candidates = r.candidatesFound;
        sink += r.placements.empty() ? 0 : r.placements.front().stepTimeS;
    });
    std::printf("%s, 8 jobs of 512 GPUs on racks 0-63, median of 21 (place: of 5)\n", label);
    std::printf("  one job alone (baseline):     %9.2f ms\n", aloneMs);
    std::printf("  8 jobs together (<= 5 ms):    %9.2f ms  (%.1fx one alone)\n", jobsMs,
                jobsMs / aloneMs);
    std::printf("  place a 9th (<= 1 s):         %9.2f ms wall, %.2f ms CPU  (%d allocations; "
                "%.1fx 8 jobs together)\n",
                place.wallMs, place.cpuMs, candidates, place.wallMs / jobsMs);
    std::printf("  (checksum %.3f)\n", sink);
}

} // namespace

int main()
{
    const cs::ClusterRun sample = csbench::loadSampleRun("fairwater-gb200-128-llama405b.run.json");
    benchJobs("Fairwater", sample.cluster, sample.run);
    // Where jobs contend: the same fabric 3:1 oversubscribed at the leaves.
    cs::ClusterDesc oversubscribed = sample.cluster;
    oversubscribed.scaleOut.topology.oversubscription = {3.0};
    benchJobs("Fairwater 3:1", oversubscribed, sample.run);
    return 0;
}
