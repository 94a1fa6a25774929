// The parallelism search on the Llama 3.1 405B run on 8,192 GB200 (Fairwater, 128 racks):
// the whole search with one thread (the baseline) and with every hardware thread, and the
// configurations evaluated per second.

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

Timing timeSearch(const cs::ClusterDesc& cluster, const cs::RunDesc& run, int threads)
{
    Timing t;
    cs::SearchOptions options;
    options.threads = threads;
    const std::clock_t cpu0 = std::clock();
    t.ms = csbench::medianMs(
        kRepeats, [&](int) { t.outcome = cs::searchParallelism(cluster, run, options); });
    t.cpuMs = 1000.0 * double(std::clock() - cpu0) / CLOCKS_PER_SEC / kRepeats;
    return t;
}

void print(const char* label, int threads, const Timing& t)
{
    std::printf("%-10s threads %d  median %8.1f ms (cpu %7.1f ms)  %9.0f configurations/s  "
                "(%lld evaluated, %lld fit, %zu kept)\n",
                label, threads, t.ms, t.cpuMs, double(t.outcome.evaluated) / (t.ms / 1000),
                static_cast<long long>(t.outcome.evaluated),
                static_cast<long long>(t.outcome.fitting), t.outcome.results.size());
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
    return 0;
}
