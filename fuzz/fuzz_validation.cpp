// The edit path: descriptions built field by field (as an editor does) go through
// validateClusterRun, and whatever it accepts must build its topology and placement and
// evaluate to a finite step time, as the application does after every accepted edit.

#include <cmath>
#include <limits>

#include <fuzzer/FuzzedDataProvider.h>

#include "costmodel.h"
#include "fuzzutil.h"
#include "placement.h"
#include "topology.h"
#include "validation.h"

namespace {

// Mostly values near the accepted ranges, so that inputs reach the cost model; sometimes any.
int anInt(FuzzedDataProvider& in, int typicalMax)
{
    return in.ConsumeBool() ? in.ConsumeIntegralInRange(1, typicalMax) : in.ConsumeIntegral<int>();
}

double aDouble(FuzzedDataProvider& in, double typicalMax)
{
    switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
        return in.ConsumeFloatingPoint<double>();
    case 1:
        return std::numeric_limits<double>::quiet_NaN();
    case 2:
        return std::numeric_limits<double>::infinity();
    case 3:
        return -0.0;
    default:
        return in.ConsumeFloatingPointInRange(0.0, typicalMax);
    }
}

template <typename E> E anEnum(FuzzedDataProvider& in, int count)
{
    return E(in.ConsumeIntegralInRange(0, count - 1));
}

cs::ClusterDesc aCluster(FuzzedDataProvider& in)
{
    cs::ClusterDesc c;
    const auto& catalog = cs::gpuCatalog();
    // By name or not, from the catalog or not: an editor may change figures of a named GPU.
    c.gpuByName = in.ConsumeBool();
    if (in.ConsumeBool()) {
        c.gpu = catalog[in.ConsumeIntegralInRange<size_t>(0, catalog.size() - 1)];
    } else {
        c.gpu.name = in.ConsumeRandomLengthString(16);
        c.gpu.peakTflopsBf16 = aDouble(in, 5000);
        c.gpu.peakTflopsFp8 = aDouble(in, 10000);
        c.gpu.peakTflopsNvfp4 = aDouble(in, 20000);
        c.gpu.hbmGiB = aDouble(in, 300);
        c.gpu.hbmTBps = aDouble(in, 10);
        c.gpu.nvlinkGBps = aDouble(in, 2000);
    }
    c.name = in.ConsumeRandomLengthString(16);
    c.racks = anInt(in, 64);
    c.nodesPerRack = anInt(in, 16);
    c.gpusPerNode = anInt(in, 8);
    c.layoutRows = in.ConsumeBool() ? 0 : anInt(in, 8);

    c.scaleUp.domain = anEnum<cs::DomainKind>(in, 2);
    c.scaleUp.GBpsPerGpu = aDouble(in, 2000);
    c.scaleUp.latencyUs = aDouble(in, 10);
    c.scaleOut.GbpsPerGpu = aDouble(in, 1000);
    c.scaleOut.latencyUs = aDouble(in, 20);
    c.scaleOut.topology.kind = anEnum<cs::FabricKind>(in, 2);
    c.scaleOut.topology.tiers = anInt(in, 3);
    c.scaleOut.topology.oversubscription.clear();
    for (int b = 0, boundaries = in.ConsumeIntegralInRange(0, 4); b < boundaries; ++b)
        c.scaleOut.topology.oversubscription.push_back(aDouble(in, 8));
    c.virtualization = aDouble(in, 0.5);
    return c;
}

cs::RunDesc aRun(FuzzedDataProvider& in)
{
    cs::RunDesc r;
    r.name = in.ConsumeRandomLengthString(16);
    cs::ModelShape& m = r.model;
    m.layers = anInt(in, 128);
    m.hidden = anInt(in, 16384);
    m.ffnHidden = anInt(in, 65536);
    m.heads = anInt(in, 128);
    m.kvHeads = anInt(in, 128);
    m.vocab = anInt(in, 256000);
    m.seqLen = anInt(in, 32768);
    m.gatedMlp = in.ConsumeBool();
    r.precision = anEnum<cs::Precision>(in, 3);
    r.batch.global = anInt(in, 4096);
    r.batch.micro = anInt(in, 8);
    cs::Parallelism& p = r.parallelism;
    p.tp = anInt(in, 8);
    p.cp = anInt(in, 4);
    p.pp = anInt(in, 16);
    p.vp = anInt(in, 4);
    p.dp = in.ConsumeBool() ? 0 : anInt(in, 256);
    p.sequenceParallel = in.ConsumeBool();
    p.distributedOptimizer = in.ConsumeBool();
    p.recompute = {anEnum<cs::RecomputeMode>(in, 4), in.ConsumeIntegral<uint8_t>()};
    for (cs::Dim& d : r.placement)
        d = anEnum<cs::Dim>(in, 4);
    if (in.ConsumeBool())
        r.trainingSteps = anInt(in, 100000);
    if (in.ConsumeBool())
        r.measured = cs::Measured{aDouble(in, 100), in.ConsumeRandomLengthString(16)};
    return r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    FuzzedDataProvider in(data, size);
    const cs::ClusterDesc cluster = aCluster(in);
    const cs::RunDesc run = aRun(in);
    cs::Diagnostics diags;
    cs::validateClusterRun(cluster, run, diags);
    if (!diags.empty())
        return 0;
    const cs::Topology topology(cluster);
    csfuzz::require(int64_t(topology.gpus().size()) == cluster.gpuCount(), "topology size");
    const cs::Placement placement = cs::placeRun(run, cluster);
    csfuzz::require(placement.worldSize() == cluster.gpuCount(), "placement size");
    const cs::Evaluation e = cs::evaluate(cluster, run);
    csfuzz::require(std::isfinite(e.stepTimeS) && e.stepTimeS > 0, "step time not finite");
    return 0;
}
