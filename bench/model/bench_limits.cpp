// The largest cluster ClusterScope accepts (131,072 GB200: 2,048 NVL72 racks of 16 trays x 4)
// against the 8,192-GPU Fairwater sample (the baseline): time to load the files, build the
// topology and the placement and evaluate the step with its events, and the peak RSS of each.
// Each size runs in its own child process, so that one peak does not hide the other.

#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/resource.h>

#include "benchutil.h"
#include <nlohmann/json.hpp>

#include "costmodel.h"
#include "loader.h"
#include "placement.h"
#include "samplerun.h"
#include "topology.h"
#include "validation.h"
#include "writer.h"

namespace {

constexpr int kRepeats = 5;

struct Texts {
    std::string cluster;
    std::string run;
};

struct Result {
    double ms = 0;
    long peakKiB = 0;
    int64_t gpus = 0;
    size_t events = 0;
};

// The Fairwater sample grown to `racks` racks, one Llama 3.1 405B replica (64 GPUs) a rack
// and 9 sequences per replica, as in the sample.
Texts scaled(const cs::ClusterDesc& cluster, const cs::RunDesc& run, int racks)
{
    cs::ClusterDesc c = cluster;
    c.racks = racks;
    c.layoutRows = racks >= 1024 ? 32 : c.layoutRows;
    cs::RunDesc r = run;
    r.clusterPath.clear();
    r.parallelism.dp = racks;
    r.batch.global = 9 * racks;
    return {cs::toJson(c).dump(2), cs::toJson(r).dump(2)};
}

// Everything the application does on opening the files, up to a first view of the step.
Result loadAndEvaluate(const Texts& texts)
{
    Result result;
    result.ms = csbench::medianMs(kRepeats, [&](int) {
        cs::Diagnostics diags;
        const auto cj = cs::parseJson(texts.cluster, "limit.cluster.json", diags);
        const auto rj = cs::parseJson(texts.run, "limit.run.json", diags);
        const auto cluster = cs::clusterFromJson(*cj, "limit.cluster.json", "", diags);
        const auto run = cs::runFromJson(*rj, "limit.run.json", "", diags);
        if (!cluster || !run) {
            std::fprintf(stderr, "%s", diags.formatAll().c_str());
            std::exit(1);
        }
        cs::checkRunOnCluster(*run, *cluster, "limit.run.json", "", diags);
        const cs::Topology topology(*cluster);
        const cs::Placement placement = cs::placeRun(*run, *cluster);
        const cs::Evaluation e = cs::evaluate(*cluster, *run);
        if (!diags.empty() || placement.worldSize() != int(topology.gpus().size())) {
            std::fprintf(stderr, "%s", diags.formatAll().c_str());
            std::exit(1);
        }
        result.gpus = cluster->gpuCount();
        result.events = e.events.size();
    });
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    result.peakKiB = usage.ru_maxrss;
    return result;
}

Result inChild(const Texts& texts)
{
    return csbench::inChildProcess([&] { return loadAndEvaluate(texts); });
}

void print(const char* label, const Result& r)
{
    std::printf("%-9s %7lld GPUs  median %8.1f ms  peak RSS %7.1f MiB  (%zu events)\n", label,
                static_cast<long long>(r.gpus), r.ms, double(r.peakKiB) / 1024, r.events);
}

} // namespace

int main()
{
    const cs::ClusterRun sample = csbench::loadSampleRun("fairwater-gb200-128-llama405b.run.json");
    const int limitRacks = int(cs::kMaxGpus / sample.cluster.domainSize());
    std::printf("load + topology + placement + evaluate (with events), median of %d\n", kRepeats);
    const Result base = inChild(scaled(sample.cluster, sample.run, sample.cluster.racks));
    print("baseline", base);
    const Result limit = inChild(scaled(sample.cluster, sample.run, limitRacks));
    print("limit", limit);
    std::printf("limit / baseline: time x%.1f, peak RSS x%.1f (GPUs x%.0f)\n", limit.ms / base.ms,
                double(limit.peakKiB) / double(base.peakKiB),
                double(limit.gpus) / double(base.gpus));
    return 0;
}
