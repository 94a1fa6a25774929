#include "goodput.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cs {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// What one checkpoint stalls the job and what a failure loses, for a segment of `workS` seconds
// of steps between checkpoints. A synchronous write stalls for all of it and a failure loses
// half the period on average. An asynchronous one stalls for the host copy (and for the
// previous write when that is still running); its checkpoint is safe only once written, so a
// failure loses the write time more.
struct Segment {
    double stallS = 0;
    double lostS = 0;
};

Segment segmentOf(const GoodputInputs& in, double workS)
{
    Segment s;
    s.stallS = in.async ? in.hostCopyS + std::max(0.0, in.writeS - workS) : in.writeS;
    s.lostS = (workS + s.stallS) / 2 + (in.async ? in.writeS : 0);
    return s;
}

// A search evaluates hundreds of layouts on one cluster, mostly with the same GPU count: each
// thread keeps the last answer rather than walk the GPUs again.
ComponentsInUse componentsOf(const ClusterDesc& cluster, int64_t gpusUsed,
                             const std::optional<Allocation>& allocation)
{
    struct Last {
        ClusterDesc cluster;
        int64_t gpus = -1;
        std::optional<Allocation> allocation;
        ComponentsInUse used;
    };
    thread_local Last last;
    if (last.gpus != gpusUsed || !(last.cluster == cluster) || last.allocation != allocation) {
        last.used = componentsInUse(cluster, gpusUsed, allocation ? &*allocation : nullptr);
        last.cluster = cluster;
        last.gpus = gpusUsed;
        last.allocation = allocation;
    }
    return last.used;
}

} // namespace

std::vector<TimeSplit::Part> TimeSplit::parts() const
{
    return {{"training", "training", training},
            {"stragglers", "straggler waits", stragglers},
            {"checkpoints", "checkpoint writes", checkpoints},
            {"lost_work", "lost work", lostWork},
            {"restarts", "restarts", restarts}};
}

TimeSplit TimeSplit::times(double k) const
{
    return {training * k, stragglers * k, checkpoints * k, lostWork * k, restarts * k};
}

// Per segment of n steps (work tau = n w, w the step with its straggler wait), a checkpoint
// stall C and a period P = tau + C. Failures arrive at rate lambda over the wall time, each
// costing R + L (recovery and lost work), so wall = n w (P / tau) / (1 - lambda (R + L)) per n
// steps (the first-order model of Young 1974 and Daly 2006), and goodput = t / wall-per-step.
GoodputPoint goodputAt(const GoodputInputs& in, int64_t intervalSteps)
{
    GoodputPoint p;
    p.intervalSteps = std::max<int64_t>(1, intervalSteps);
    const double n = double(p.intervalSteps);
    const double workS = n * in.wallStepS();
    const Segment seg = segmentOf(in, workS);
    const double lostShare = in.failuresPerS * (in.recoveryS + seg.lostS);
    p.perStep.training = in.stepS;
    p.perStep.stragglers = in.stragglerS;
    p.perStep.checkpoints = seg.stallS / n;
    if (lostShare >= 1) {
        p.goodput = 0;
        p.perStep.lostWork = kInfinity;
        p.perStep.restarts = kInfinity;
        return p;
    }
    const double wallPerStep = (workS + seg.stallS) / (n * (1 - lostShare));
    const double failuresPerStep = in.failuresPerS * wallPerStep;
    p.perStep.lostWork = failuresPerStep * seg.lostS;
    p.perStep.restarts = failuresPerStep * in.recoveryS;
    p.goodput = in.stepS / wallPerStep;
    return p;
}

// goodput(tau) is proportional to (a - lambda tau / 2) tau / (tau + C): the root of its
// derivative is tau* = sqrt(C^2 + 2 a C / lambda) - C; for small C and lambda R, Young's
// sqrt(2 C / lambda) less C, as Daly has it. a = 1 - lambda (R + C/2) for a synchronous write
// (C = W), a = 1 - lambda (R + W + C/2) for an asynchronous one (C = the host copy), whose
// goodput only grows below tau = W (the stall shrinks faster than the work), so its optimum is
// at least W.
int64_t optimalIntervalSteps(const GoodputInputs& in)
{
    const double lambda = in.failuresPerS;
    const double stall = in.async ? in.hostCopyS : in.writeS;
    const double a = 1 - lambda * (in.recoveryS + stall / 2 + (in.async ? in.writeS : 0));
    if (lambda <= 0 || a <= 0 || stall <= 0)
        return 1;
    double tau = std::sqrt(stall * stall + 2 * a * stall / lambda) - stall;
    if (in.async)
        tau = std::max(tau, in.writeS);
    const double steps = std::min(tau / in.wallStepS(), 1e15);
    const int64_t below = std::max<int64_t>(1, int64_t(std::floor(steps)));
    const int64_t above = std::max<int64_t>(1, int64_t(std::ceil(steps)));
    return goodputAt(in, above).goodput > goodputAt(in, below).goodput ? above : below;
}

std::vector<GoodputPoint> goodputCurve(const GoodputInputs& in, int64_t first, int64_t last,
                                       int points)
{
    first = std::max<int64_t>(1, first);
    last = std::max(first, last);
    std::vector<GoodputPoint> curve;
    const double ratio = points > 1 ? std::log(double(last) / double(first)) / (points - 1) : 0;
    for (int i = 0; i < points; ++i) {
        const int64_t steps = std::llround(double(first) * std::exp(ratio * i));
        if (curve.empty() || curve.back().intervalSteps != steps)
            curve.push_back(goodputAt(in, steps));
    }
    return curve;
}

std::vector<std::string> Goodput::assumed() const
{
    std::vector<std::string> out;
    if (failures.reliabilityAssumed)
        out.push_back("reliability");
    if (checkpoint.storageAssumed)
        out.push_back("storage");
    if (checkpointAssumed)
        out.push_back("checkpoint");
    return out;
}

std::optional<double> Goodput::timeToTrainS() const
{
    if (!trainingSteps)
        return std::nullopt;
    return chosen.perStep.total() * double(*trainingSteps);
}

std::optional<double> Goodput::timeToTrainIdealS() const
{
    if (!trainingSteps)
        return std::nullopt;
    return inputs.stepS * double(*trainingSteps);
}

std::optional<TimeSplit> Goodput::timeToTrainSplit() const
{
    if (!trainingSteps)
        return std::nullopt;
    return chosen.perStep.times(double(*trainingSteps));
}

TrainingRun trainingRunOf(const ClusterDesc& cluster, const RunDesc& run, double stepS,
                          double modelParams, int64_t gpusUsed)
{
    const Reliability reliability = cluster.reliability.value_or(Reliability{});
    const Checkpoint checkpoint = run.checkpoint.value_or(Checkpoint{});
    TrainingRun out;
    out.variance = stepVariance({stepS, reliability.stepJitter, gpusUsed});

    Goodput& g = out.goodput;
    g.components = componentsOf(cluster, gpusUsed, run.allocation);
    g.failures = failureRate(g.components, reliability);
    g.failures.reliabilityAssumed = !cluster.reliability;
    g.checkpoint = checkpointCost(cluster, checkpoint.async, modelParams, gpusUsed);
    g.inputs.stepS = stepS;
    g.inputs.stragglerS = out.variance.stragglerS;
    g.inputs.failuresPerS = g.failures.perSecond();
    g.inputs.recoveryS = reliability.restartS + g.checkpoint.readS;
    g.inputs.writeS = g.checkpoint.writeS;
    g.inputs.hostCopyS = g.checkpoint.hostCopyS;
    g.inputs.async = checkpoint.async;
    g.optimalIntervalSteps = optimalIntervalSteps(g.inputs);
    g.intervalAuto = !checkpoint.intervalSteps;
    g.checkpointAssumed = !run.checkpoint;
    g.chosen = goodputAt(g.inputs, checkpoint.intervalSteps.value_or(g.optimalIntervalSteps));
    g.trainingSteps = run.trainingSteps;

    const int64_t optimum = g.optimalIntervalSteps;
    g.curve = goodputCurve(g.inputs, optimum / 16, optimum * 16, 49);
    for (const int64_t steps : {optimum, g.chosen.intervalSteps}) {
        const auto at =
            std::lower_bound(g.curve.begin(), g.curve.end(), steps,
                             [](const GoodputPoint& p, int64_t s) { return p.intervalSteps < s; });
        if (at == g.curve.end() || at->intervalSteps != steps)
            g.curve.insert(at, goodputAt(g.inputs, steps));
    }
    return out;
}

} // namespace cs
