#include "closedform.h"

#include <algorithm>

#include "commtotals.h"
#include "databuckets.h"
#include "schedule.h"

namespace cs {

namespace {

// The heaviest stage sets the pace.
int heaviestStage(const Workload& w)
{
    int critical = 0;
    double heaviest = -1;
    for (int s = 0; s < w.p; ++s) {
        double work = 0;
        for (int k = 0; k < w.v; ++k)
            work += w.forward[w.op(s, k)].total() + w.backward[w.op(s, k)].total();
        if (work > heaviest) {
            heaviest = work;
            critical = s;
        }
    }
    return critical;
}

void stageWork(const Workload& w, int critical, Breakdown& bd)
{
    Parts stageParts;
    for (int k = 0; k < w.v; ++k) {
        stageParts += w.forward[w.op(critical, k)];
        stageParts += w.backward[w.op(critical, k)];
    }
    stageParts = stageParts.times(w.m);
    bd.compute = stageParts.compute;
    bd.recompute = stageParts.recompute;
    for (Dim d : kAllDims)
        bd.exposed[d] = stageParts.comm[d];
}

struct MeanOp {
    double forward = 0;
    double backward = 0;
};

MeanOp meanOp(const Workload& w)
{
    const size_t ops = size_t(w.p) * w.v;
    MeanOp mean;
    for (size_t i = 0; i < ops; ++i) {
        mean.forward += w.forward[i].total() / double(ops);
        mean.backward += w.backward[i].total() / double(ops);
    }
    return mean;
}

// Fill and drain: p - 1 chunk slots of the average op, and the hops of one pass down and one
// back. With chunks, each micro-batch group goes round the ring once per chunk: a group of g
// micro-batches keeps a stage busy for g ops while its first one goes round the p stages and
// their hops; what g does not cover is idle (schedule.h). Returns the exposed pipeline time on
// fabric hops.
double pipelineBubble(const Workload& w, int critical, const MeanOp& mean, Breakdown& bd)
{
    double hops = 0, hopsScaleOut = 0, ring = 0, ringScaleOut = 0;
    for (int s = 0; s < w.p; ++s) {
        const double t = w.p > 1 ? w.send[size_t(s)] : 0.0;
        const bool out = w.sendScaleOut[size_t(s)];
        ring += t;
        ringScaleOut += out ? t : 0.0;
        if (s + 1 < w.p) {
            hops += t;
            hopsScaleOut += out ? t : 0.0;
        }
    }
    // Fill and drain pass the last chunk of the other stages at the turnaround, forward then
    // backward: a light op there (fewer layers, as when the layers do not divide) shortens
    // both passes. Factor 2 and the cap at one slot match the simulation.
    const double slot = mean.forward + mean.backward;
    bd.bubble = (w.p - 1) * slot;
    for (int s = 0; s < w.p; ++s) {
        if (s == critical)
            continue;
        const size_t i = w.op(s, w.v - 1);
        const double light = slot - (w.forward[i].total() + w.backward[i].total());
        bd.bubble -= std::min(slot, 2 * std::max(0.0, light));
    }
    bd.exposed[Dim::PP] = 2 * hops;
    double ppScaleOut = 2 * hopsScaleOut;
    if (w.v > 1 && w.p > 1) {
        const int groups = groupCount(w.p, w.m);
        const double g = double(w.m) / groups;
        // Between the first group's forwards and the last group's backwards, 1F1B puts a
        // backward between two forwards, which covers the trip round the ring.
        const double loops = double(w.v - 1);
        for (double op : {mean.forward, mean.backward}) {
            const double wait = std::max(0.0, (w.p - g) * op + ring);
            const double onSends = std::min(wait, ring);
            bd.exposed[Dim::PP] += loops * onSends;
            bd.bubble += loops * (wait - onSends);
            ppScaleOut += ring > 0 ? loops * onSends * ringScaleOut / ring : 0.0;
        }
    }
    return ppScaleOut;
}

double chunkReduceS(const Workload& w, int stage, int chunk)
{
    if (w.fsdp)
        return 0;
    const size_t i = w.op(stage, chunk);
    return w.gradientReduceS(w.paramsOfChunk[i] * w.gradBytesPerParam,
                             w.expertParamsOfChunk[i] * w.gradBytesPerParam);
}

// DP: before the first forward of each chunk, its parameters; the gathers run one after the
// other while the first group of micro-batches goes round the ring once per chunk, so they
// hold the warm-up back when they take longer than a trip. After the last backward, what the
// gradient buckets have not drained. Chunk k's gradients are released k groups of backwards
// before the end (the cool-down runs the chunks in reverse), chunk 0's over its own last
// backward, bucket by bucket. Returns all DP traffic time.
double dataParallel(const Workload& w, int critical, const MeanOp& mean, Breakdown& bd)
{
    const size_t ops = size_t(w.p) * w.v;
    std::vector<double> ready(ops, 0);
    gatherChunks(w, critical, ready);
    const double trip = groupSize(w.p, w.m, 0) * mean.forward;
    double gatherWait = 0;
    for (int k = 0; k < w.v; ++k)
        gatherWait = std::max(gatherWait, ready[w.op(critical, k)] - k * trip);
    std::vector<Bucket> buckets;
    const double lastBackward = w.backward[w.op(critical, 0)].total();
    addBuckets(w, critical, 0, 0, lastBackward, buckets);
    if (!w.overlapGradReduce) // reduced once the stage's backward pass is done
        for (Bucket& b : buckets)
            b.release = lastBackward;
    double tail = drainBuckets(w, buckets, 0, critical, nullptr) - lastBackward;
    const double spacing = groupSize(w.p, w.m, groupCount(w.p, w.m) - 1) * mean.backward;
    // Without overlap every chunk's gradients wait for the stage's last backward.
    const double released = w.overlapGradReduce ? spacing : 0;
    double queued = 0;
    for (int k = 0; k < w.v; ++k) {
        queued += chunkReduceS(w, critical, k);
        if (k > 0)
            tail = std::max(tail, queued - k * released);
    }
    bd.exposed[Dim::DP] += gatherWait + std::max(0.0, tail);
    return ready[w.op(critical, w.v - 1)] + queued; // every gather and every reduction
}

} // namespace

Evaluation estimateStep(const Workload& w)
{
    Evaluation e;
    Breakdown& bd = e.breakdown;
    const int critical = heaviestStage(w);
    stageWork(w, critical, bd);
    const MeanOp mean = meanOp(w);
    const double ppScaleOut = pipelineBubble(w, critical, mean, bd);
    const double dpTotal = dataParallel(w, critical, mean, bd);
    bd.compute += w.dpContentionS(critical, dpTotal, bd.exposed[Dim::DP]);
    bd.optimizer = *std::max_element(w.optimizerS.begin(), w.optimizerS.end());
    bd.overhead = 0;
    bd.overhead = w.virtualization * bd.total();
    e.stepTimeS = bd.total();
    fillCommTotals(w, critical, w.p > 1 ? 2.0 * w.m * w.v * w.send[size_t(critical)] : 0.0, dpTotal,
                   ppScaleOut, e);
    return e;
}

} // namespace cs
