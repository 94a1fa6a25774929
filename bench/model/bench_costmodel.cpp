// The cost model's speed on the Fairwater sample: the evaluation, an event-level simulation
// (target <= 1 ms), and the closed-form estimate that parallelism searches use to choose what
// to evaluate (target <= 20 us), with their ratio as the in-run baseline.

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
        const cs::Evaluation e = cs::evaluate(cluster, run);
        sink += e.stepTimeS;
        events = e.events.size();
    });
    const int batch = 1000; // timed in batches: one analytical call is below the clock's grain
    const double analytic = csbench::medianMs(51,
                                              [&](int) {
                                                  for (int i = 0; i < batch; ++i)
                                                      sink += cs::estimate(cluster, run).stepTimeS;
                                              }) /
                            batch;
    std::printf("%s (%zu events)\n", runFile, events);
    std::printf("  evaluate (simulated):     %8.3f ms (target <= 1 ms)\n", full);
    std::printf("  estimate (closed form):   %8.2f us (target <= 20 us)\n", analytic * 1e3);
    std::printf("  evaluate / estimate:      %8.0fx\n", full / analytic);
    std::printf("  (checksum %.3f)\n", sink);
}

} // namespace

int main()
{
    bench("fairwater-gb200-128-llama405b.run.json");
    bench("ndv5-h100-1344-gpt3-175b.run.json");
    return 0;
}
