// The parallelism search on the Llama 3.1 405B run on 8,192 GB200 (Fairwater, 128 racks):
// the whole search with one thread (the baseline) and with every hardware thread, and the
// configurations that fit per second (each bounded, placed or skipped, the listed ones
// re-evaluated). Then the same search where the fabric can slow traffic (oversubscribed 3:1, ECMP),
// so that routes and contention factors are computed per placement and dimension shape
// (fabricfactors.h); at full bisection none is. Last, a search with experts: DeepSeek-V3 on 1,024
// GB200 (16 NVL72 racks), where expert layouts (ep, etp) multiply the rest.

#include <cstdio>
#include <ctime>
#include <thread>

#include "benchutil.h"
#include "loader.h"
#include "samplerun.h"
#include "search.h"

namespace {

constexpr int kRepeats = 5;

struct Timing {
    double ms = 0;
    double cpuMs = 0; // process CPU time per search: honest on a machine shared with others
    cs::SearchOutcome outcome;
};

Timing timeSearch(const cs::ClusterDesc& cluster, const cs::RunDesc& run, int threads,
                  int repeats = kRepeats)
{
    Timing t;
    cs::SearchOptions options;
    options.threads = threads;
    const std::clock_t cpu0 = std::clock();
    t.ms = csbench::medianMs(
        repeats, [&](int) { t.outcome = cs::searchParallelism(cluster, run, options); });
    t.cpuMs = 1000.0 * double(std::clock() - cpu0) / CLOCKS_PER_SEC / repeats;
    return t;
}

void print(const char* label, int threads, const Timing& t)
{
    std::printf(
        "%-10s threads %d  median %8.1f ms (cpu %7.1f ms)  %9.0f configurations that fit/s  "
        "(%lld evaluated, %lld fit, %zu kept)\n",
        label, threads, t.ms, t.cpuMs, double(t.outcome.fitting) / (t.ms / 1000),
        static_cast<long long>(t.outcome.evaluated), static_cast<long long>(t.outcome.fitting),
        t.outcome.results.size());
}

} // namespace

int main()
{
    const cs::ClusterRun sample = csbench::loadSampleRun("fairwater-gb200-128-llama405b.run.json");
    const cs::ClusterDesc& cluster = sample.cluster;
    const cs::RunDesc& run = sample.run;

    const double enumerateMs =
        csbench::medianMs(kRepeats, [&](int) { (void)cs::enumerateLayouts(cluster, run); });
    std::printf("search: %s on %s, median of %d runs\n", run.name.c_str(), cluster.name.c_str(),
                kRepeats);
    std::printf("enumerate  %zu layouts in %.1f ms\n", cs::enumerateLayouts(cluster, run).size(),
                enumerateMs);

    const int all = std::max(1, int(std::thread::hardware_concurrency()));
    const Timing one = timeSearch(cluster, run, 1);
    print("baseline", 1, one);
    const Timing many = timeSearch(cluster, run, all);
    print("search", all, many);
    std::printf("speed-up   %.2fx with %d threads\n", one.ms / many.ms, all);
    if (!many.outcome.results.empty())
        std::printf("best       %.4f s per step\n", many.outcome.results.front().stepTimeS);

    // The first search on a fabric fills the factor cache; the median is of searches after it.
    cs::ClusterDesc oversubscribed = cluster;
    oversubscribed.scaleOut.topology.oversubscription = {3.0};
    cs::ClusterDesc hashed = cluster;
    hashed.scaleOut.topology.routing = cs::Routing::Ecmp;
    for (const auto& [label, variant] : {std::pair{"3:1", oversubscribed}, {"ECMP", hashed}}) {
        const Timing first = timeSearch(variant, run, all, 1);
        const Timing again = timeSearch(variant, run, all, 3);
        std::printf("fabric %-4s first search %7.1f ms (cpu %7.1f ms, %.2fx the baseline's cpu), "
                    "cached %7.1f ms (cpu %7.1f ms); best %.4f s\n",
                    label, first.ms, first.cpuMs, first.cpuMs / one.cpuMs, again.ms, again.cpuMs,
                    again.outcome.results.empty() ? 0.0 : again.outcome.results.front().stepTimeS);
    }

    const cs::ClusterRun moe = csbench::loadSampleRun("gb200-16-deepseek-v3.run.json");
    std::printf("experts: %s on %s, %zu layouts\n", moe.run.name.c_str(), moe.cluster.name.c_str(),
                cs::enumerateLayouts(moe.cluster, moe.run).size());
    const Timing moeOne = timeSearch(moe.cluster, moe.run, 1);
    print("baseline", 1, moeOne);
    const Timing moeMany = timeSearch(moe.cluster, moe.run, all);
    print("search", all, moeMany);
    std::printf("speed-up   %.2fx with %d threads\n", moeOne.ms / moeMany.ms, all);
    if (!moeMany.outcome.results.empty())
        std::printf("best       %.4f s per step\n", moeMany.outcome.results.front().stepTimeS);
    return 0;
}
