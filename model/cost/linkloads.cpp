#include "linkloads.h"

#include <algorithm>

#include "calibration.h"
#include "placement.h"
#include "routing.h"
#include "traffic.h"
#include "workload.h"

namespace cs {

namespace {

constexpr double kBytesPerGB = 1e9;
// A rate no collective notices: its part of a probe's seconds is below rounding.
constexpr double kUnlimitedGBps = 1e12;

// The cluster with links of 1 GB/s on one side (NVLink or the fabric), unlimited on the
// other, no latency, and a fabric that slows nothing: the workload's seconds are then the
// gigabytes each GPU moves on that side.
ClusterDesc unitProbe(const ClusterDesc& cluster, bool nvlinkSide, Calibration& cal)
{
    ClusterDesc probe = cluster;
    cal.nvlinkEfficiency = 1;
    cal.scaleOutEfficiency = 1;
    probe.scaleUp.GBpsPerGpu = 2 * (nvlinkSide ? 1.0 : kUnlimitedGBps); // both directions
    probe.scaleOut.GbpsPerGpu = 8 * (nvlinkSide ? kUnlimitedGBps : 1.0);
    probe.scaleUp.latencyUs = 0;
    probe.scaleOut.latencyUs = 0;
    FabricTopology& fabric = probe.scaleOut.topology;
    fabric.tiers = std::max(2, fabric.tiers);
    fabric.oversubscription = {1.0};
    fabric.routing = Routing::Adaptive;
    probe.failures.switches.clear();
    probe.failures.links.clear();
    return probe;
}

// Bytes each GPU of a stage moves in one step, per dimension, on one side.
struct StageBytes {
    std::vector<PerDim<double>> perStage;
};

StageBytes stageBytes(const Workload& w)
{
    StageBytes out;
    out.perStage.assign(size_t(w.p), {});
    for (int s = 0; s < w.p; ++s) {
        PerDim<double>& bytes = out.perStage[size_t(s)];
        for (int k = 0; k < w.v; ++k) {
            const size_t op = w.op(s, k);
            for (Dim d : kAllDims)
                bytes[d] += w.m * w.commPerOp[op][d] * kBytesPerGB;
            if (w.fsdp)
                continue; // FSDP's gathers and reductions are per op, in commPerOp
            const double dense = w.paramsOfChunk[op], expert = w.expertParamsOfChunk[op];
            // Expert gradients and weights move over the expert data-parallel groups.
            bytes[Dim::DP] +=
                (w.gradientReduceS(dense * w.gradBytesPerParam, expert * w.gradBytesPerParam) +
                 w.parameterGatherS(dense * w.gatherBytesPerParam,
                                    expert * w.gatherBytesPerParam)) *
                kBytesPerGB;
        }
    }
    return out;
}

StageBytes probeBytes(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                      bool nvlinkSide)
{
    Calibration unit = cal;
    const ClusterDesc probe = unitProbe(cluster, nvlinkSide, unit);
    return stageBytes(buildWorkload(probe, run, unit));
}

// Pipeline sends per step over hop s: each micro-batch passes every chunk's boundary once
// forward and once backward; the hop from the last stage to the first only between chunks.
double sendsOverHop(const Workload& w, int hop)
{
    return double(w.m) * (hop + 1 < w.p ? w.v : w.v - 1);
}

} // namespace

std::vector<int> StepTraffic::hottest(size_t n) const
{
    std::vector<int> order(links.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = int(i);
    const auto busier = [&](int a, int b) {
        const LinkTraffic& x = links[size_t(a)];
        const LinkTraffic& y = links[size_t(b)];
        if (x.utilization != y.utilization)
            return x.utilization > y.utilization;
        if (x.bytes != y.bytes)
            return x.bytes > y.bytes;
        return a < b;
    };
    n = std::min(n, order.size());
    std::partial_sort(order.begin(), order.begin() + long(n), order.end(), busier);
    order.resize(n);
    return order;
}

StepTraffic stepTraffic(const Topology& topology, const RunDesc& run, double stepTimeS,
                        const Calibration* calibration)
{
    const Calibration& cal = calibration ? *calibration : defaultCalibration();
    const ClusterDesc& cluster = topology.cluster();
    const Workload w = buildWorkload(cluster, run, cal);
    const StageBytes inner = probeBytes(cluster, run, cal, true);
    const StageBytes outer = probeBytes(cluster, run, cal, false);
    const Placement placement = placeRun(run, cluster);
    const Router router(topology);
    LinkLoadSum sum(router);
    const bool interleaved = w.v > 1;
    for (Dim d : kAllDims) {
        const uint32_t tag = 1u << unsigned(d);
        for (const Flow& f : dimensionFlows(topology, placement, d, interleaved)) {
            if (d == Dim::PP) {
                const double bytes = w.sendBytes * sendsOverHop(w, f.hop);
                sum.add(f.src, f.dst, bytes, tag); // activations
                sum.add(f.dst, f.src, bytes, tag); // their gradients
                continue;
            }
            const size_t stage = size_t(placement.stageOf(placement.rankOfGpu(f.src)));
            const double in = inner.perStage[stage][d];
            const double out = outer.perStage[stage][d];
            const double sent = f.phase == FlowPhase::Inner   ? in
                                : f.phase == FlowPhase::Outer ? out
                                                              : in + out;
            sum.add(f.src, f.dst, sent * f.share, tag);
        }
    }
    sum.finish();

    StepTraffic traffic;
    traffic.stepTimeS = stepTimeS;
    // Filled in one pass (reserve, not resize: no zeroing first); 46 MB at 131,072 GPUs.
    traffic.links.reserve(topology.links().size());
    for (size_t l = 0; l < topology.links().size(); ++l) {
        const Link& link = topology.links()[l];
        LinkTraffic& t = traffic.links.emplace_back();
        t.bytes = sum.up(l) + sum.down(l);
        t.busyS = std::max(sum.up(l), sum.down(l)) / (link.GBps * kBytesPerGB);
        t.utilization = stepTimeS > 0 ? std::min(1.0, t.busyS / stepTimeS) : 0.0;
        t.dims = sum.tags(l);
        TierTraffic& tier = traffic.tiers[size_t(link.cls)];
        tier.links += 1;
        tier.bytes += t.bytes;
        tier.maxUtilization = std::max(tier.maxUtilization, t.utilization);
    }
    return traffic;
}

} // namespace cs
