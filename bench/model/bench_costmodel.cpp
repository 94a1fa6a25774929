// The cost model's speed on the Fairwater sample: the full evaluation with its event schedule
// (target <= 1 ms) and the analytical step time that parallelism searches call (target
// <= 20 us), with their ratio as the in-run baseline.

#include <cstdio>
#include <string>

#include "benchutil.h"
#include "costmodel.h"
#include "samplerun.h"

namespace {

void bench(const char* runFile)
{
    const cs::ClusterRun sample = csbench::loadSampleRun(runFile);
    const cs::ClusterDesc& cluster = sample.cluster;
    const cs::RunDesc& run = sample.run;
    double sink = 0;
    size_t events = 0;
    const double full = csbench::medianMs(51, [&](int) {
        const cs::Evaluation e = cs::evaluate(cluster, run, {.withEvents = true});
        sink += e.stepTimeS;
        events = e.events.size();
    });
    const int batch = 1000; // timed in batches: one analytical call is below the clock's grain
    const double analytic =
        csbench::medianMs(51,
                          [&](int) {
                              for (int i = 0; i < batch; ++i)
                                  sink +=
                                      cs::evaluate(cluster, run, {.withEvents = false}).stepTimeS;
                          }) /
        batch;
    std::printf("%s (%zu events)\n", runFile, events);
    std::printf("  evaluate with events:     %8.3f ms (target <= 1 ms)\n", full);
    std::printf("  analytical step time:     %8.2f us (target <= 20 us)\n", analytic * 1e3);
    std::printf("  events / analytical:      %8.0fx\n", full / analytic);
    std::printf("  (checksum %.3f)\n", sink);
}

} // namespace

int main()
{
    bench("fairwater-gb200-128-llama405b.run.json");
    bench("ndv5-h100-1344-gpt3-175b.run.json");
    return 0;
}
