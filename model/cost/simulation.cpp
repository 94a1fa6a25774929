#include "simulation.h"

#include <algorithm>

#include "commtotals.h"
#include "databuckets.h"
#include "schedule.h"

namespace cs {

namespace {

// The pipeline of the workload, each chunk's first forward waiting for its parameters.
PipelineSpec pipelineSpecOf(const Workload& w, std::vector<double>& gatherEnd)
{
    PipelineSpec spec;
    spec.stages = w.p;
    spec.chunks = w.v;
    spec.microBatches = w.m;
    spec.send = w.send;
    const size_t ops = size_t(w.p) * w.v;
    spec.forward.resize(ops);
    spec.backward.resize(ops);
    for (size_t i = 0; i < ops; ++i) {
        spec.forward[i] = w.forward[i].total();
        spec.backward[i] = w.backward[i].total();
    }
    spec.chunkReady.assign(ops, 0);
    gatherEnd.assign(size_t(w.p), 0);
    for (int s = 0; s < w.p; ++s)
        gatherEnd[size_t(s)] = gatherChunks(w, s, spec.chunkReady);
    return spec;
}

// When each stage's compute ends, and the schedule index of each chunk's last backward,
// which releases its gradients.
struct StageEnds {
    std::vector<int> lastBackward;  // per op index stage * v + chunk
    std::vector<double> computeEnd; // per stage
};

StageEnds stageEndsOf(const Workload& w, const PipelineSchedule& sched)
{
    StageEnds ends;
    ends.lastBackward.assign(size_t(w.p) * w.v, -1);
    ends.computeEnd.assign(size_t(w.p), 0);
    for (size_t i = 0; i < sched.ops.size(); ++i) {
        const PipelineOp& op = sched.ops[i];
        if (op.backward)
            ends.lastBackward[w.op(op.stage, op.chunk)] = int(i);
        ends.computeEnd[size_t(op.stage)] = std::max(ends.computeEnd[size_t(op.stage)], op.end);
    }
    return ends;
}

// The parameter gathers of a stage as events, one per chunk.
void gatherEvents(const Workload& w, int s, const std::vector<double>& chunkReady,
                  std::vector<Event>& events)
{
    double t = 0;
    for (int k = 0; k < w.v; ++k) {
        Event g;
        g.start = t;
        g.end = chunkReady[w.op(s, k)];
        g.stage = s;
        g.chunk = k;
        g.kind = EventKind::Comm;
        g.dim = Dim::DP;
        g.link = w.linkOf(Dim::DP);
        t = g.end;
        if (g.end > g.start)
            events.push_back(g);
    }
}

// Data parallelism of every stage after the schedule: the buckets drain on the stage's NICs
// as its backwards release them. The stage that finishes last is critical.
struct DataParallel {
    int critical = 0;
    double computeEnd = 0;     // the critical stage's compute and gradient reduction
    std::vector<double> total; // per stage, all DP traffic time
};

DataParallel drainDataParallel(const Workload& w, const PipelineSchedule& sched,
                               const StageEnds& ends, const std::vector<double>& gatherEnd,
                               const std::vector<double>& chunkReady, std::vector<Event>& events)
{
    DataParallel dp;
    dp.total.assign(size_t(w.p), 0);
    for (int s = 0; s < w.p; ++s) {
        std::vector<Bucket> buckets;
        for (int k = 0; k < w.v; ++k) {
            const PipelineOp& op = sched.ops[size_t(ends.lastBackward[w.op(s, k)])];
            addBuckets(w, s, k, op.start, op.end, buckets);
        }
        if (!w.overlapGradReduce) // reduced once the stage's backward pass is done
            for (Bucket& b : buckets)
                b.release = ends.computeEnd[size_t(s)];
        gatherEvents(w, s, chunkReady, events);
        for (const Bucket& b : buckets)
            dp.total[size_t(s)] += b.reduceS(w);
        dp.total[size_t(s)] += gatherEnd[size_t(s)];
        const double reduceEnd = drainBuckets(w, buckets, gatherEnd[size_t(s)], s, &events);
        const double end = std::max(ends.computeEnd[size_t(s)], reduceEnd);
        if (end > dp.computeEnd) {
            dp.computeEnd = end;
            dp.critical = s;
        }
    }
    return dp;
}

// The breakdown, read along the critical stage: its ops, and what each gap waited for.
// Returns the exposed pipeline time on fabric hops and adds up all pipeline traffic.
double readCriticalStage(const Workload& w, const PipelineSchedule& sched, int critical,
                         double computeEnd, Breakdown& bd, double& ppTotal)
{
    double cursor = 0;
    double ppScaleOut = 0;
    ppTotal = 0;
    for (const PipelineOp& op : sched.ops) {
        if (op.stage != critical)
            continue;
        const double gap = op.start - cursor;
        if (op.bound == OpBound::Dependency) {
            const double pp = std::min(gap, op.transferS);
            bd.exposed[Dim::PP] += pp;
            bd.bubble += gap - pp;
            const PipelineOp& from = sched.ops[size_t(op.dependency)];
            if (w.hopScaleOut(from.stage, op.stage))
                ppScaleOut += pp;
        } else if (op.bound == OpBound::ChunkReady) {
            bd.exposed[Dim::DP] += gap;
        } else {
            bd.bubble += gap;
        }
        ppTotal += op.transferS;
        const Parts& parts = op.backward ? w.backward[w.op(op.stage, op.chunk)]
                                         : w.forward[w.op(op.stage, op.chunk)];
        bd.compute += parts.compute;
        bd.recompute += parts.recompute;
        for (Dim d : kAllDims)
            bd.exposed[d] += parts.comm[d];
        cursor = op.end;
    }
    bd.exposed[Dim::DP] += computeEnd - cursor;
    return ppScaleOut;
}

void pushSegment(std::vector<Event>& events, double& t, double seconds, EventKind kind, Dim dim,
                 const PipelineOp& op, int opIndex, LinkClass link)
{
    if (seconds <= 0)
        return;
    Event e;
    e.start = t;
    e.end = t + seconds;
    e.stage = op.stage;
    e.microBatch = op.microBatch;
    e.chunk = op.chunk;
    e.kind = kind;
    e.dim = dim;
    e.link = link;
    e.op = opIndex;
    e.dependsOn = op.dependency;
    events.push_back(e);
    t = e.end;
}

// An op as its segments: recompute, compute, then the exposed collectives it waits for.
void opEvents(const Workload& w, const PipelineOp& op, int opIndex, const Parts& parts,
              std::vector<Event>& events)
{
    double t = op.start;
    pushSegment(events, t, parts.recompute, EventKind::Recompute, Dim::TP, op, opIndex,
                LinkClass::NVLink);
    pushSegment(events, t, parts.compute, op.backward ? EventKind::Backward : EventKind::Forward,
                Dim::TP, op, opIndex, LinkClass::NVLink);
    for (Dim d : kAllDims)
        pushSegment(events, t, parts.comm[d], EventKind::Comm, d, op, opIndex, w.linkOf(d));
}

WaitReason waitOf(OpBound bound)
{
    switch (bound) {
    case OpBound::Dependency:
        return WaitReason::PipelineInput;
    case OpBound::ChunkReady:
        return WaitReason::Parameters;
    case OpBound::StepStart:
    case OpBound::Stage:
        break;
    }
    return WaitReason::None;
}

Event sendEvent(const Workload& w, const PipelineSchedule& sched, const PipelineOp& op, int opIndex)
{
    const PipelineOp& from = sched.ops[size_t(op.dependency)];
    Event send;
    send.start = from.end;
    send.end = from.end + op.transferS;
    send.stage = from.stage;
    send.microBatch = op.microBatch;
    send.chunk = from.chunk;
    send.kind = EventKind::Comm;
    send.dim = Dim::PP;
    send.link = w.hopScaleOut(from.stage, op.stage) ? w.links.fabricClass : LinkClass::NVLink;
    send.exposed = op.bound == OpBound::Dependency;
    send.op = opIndex;
    send.dependsOn = op.dependency;
    return send;
}

// Every op, the idle gaps between them and the pipeline sends, marked critical on the
// critical stage; DP events are exposed when they outlast their stage's compute.
void scheduleEvents(const Workload& w, const PipelineSchedule& sched, const StageEnds& ends,
                    int critical, std::vector<Event>& events)
{
    std::vector<double> stageCursor(size_t(w.p), 0);
    for (size_t opIndex = 0; opIndex < sched.ops.size(); ++opIndex) {
        const PipelineOp& op = sched.ops[opIndex];
        const size_t i = w.op(op.stage, op.chunk);
        double& free = stageCursor[size_t(op.stage)];
        if (op.start > free) {
            Event gap;
            gap.start = free;
            gap.end = op.start;
            gap.stage = op.stage;
            gap.kind = EventKind::Bubble;
            gap.critical = op.stage == critical;
            gap.wait = waitOf(op.bound);
            gap.op = int(opIndex);
            gap.dependsOn = op.dependency;
            events.push_back(gap);
        }
        free = op.end;
        const size_t first = events.size();
        opEvents(w, op, int(opIndex), op.backward ? w.backward[i] : w.forward[i], events);
        if (op.transferS > 0)
            events.push_back(sendEvent(w, sched, op, int(opIndex)));
        for (size_t j = first; j < events.size(); ++j)
            events[j].critical =
                op.stage == critical && !(events[j].isComm() && events[j].dim == Dim::PP);
    }
    for (Event& ev : events) {
        if (ev.isComm() && ev.dim == Dim::DP)
            ev.exposed = ev.end > ends.computeEnd[size_t(ev.stage)] || ev.start < 1e-15;
    }
}

// Between a stage's last op and the optimizer: the wait for the slowest stage's gradient
// reduction, then the compute slowed by collectives under it, which the step adds there. The
// events only name the time the step already has; they change no timing.
void tailEvents(const StageEnds& ends, const DataParallel& dp, double stepComputeEnd,
                std::vector<Event>& events)
{
    for (size_t s = 0; s < ends.computeEnd.size(); ++s) {
        Event wait;
        wait.stage = int(s);
        wait.kind = EventKind::Bubble;
        wait.critical = int(s) == dp.critical;
        wait.start = ends.computeEnd[s];
        wait.end = dp.computeEnd;
        wait.wait = WaitReason::GradientReduction;
        wait.waitStage = dp.critical;
        if (wait.end > wait.start)
            events.push_back(wait);
        Event slowed = wait;
        slowed.start = std::max(ends.computeEnd[s], dp.computeEnd);
        slowed.end = stepComputeEnd;
        slowed.wait = WaitReason::Contention;
        slowed.waitStage = -1;
        if (slowed.end > slowed.start)
            events.push_back(slowed);
    }
}

} // namespace

Evaluation simulateStep(const Workload& w)
{
    Evaluation e;
    std::vector<double> gatherEnd;
    const PipelineSpec spec = pipelineSpecOf(w, gatherEnd);
    const PipelineSchedule sched = simulatePipeline(spec);
    const StageEnds ends = stageEndsOf(w, sched);

    e.events.reserve(sched.ops.size() * 4 + size_t(w.p) * (w.v + 64));
    const DataParallel dp = drainDataParallel(w, sched, ends, gatherEnd, spec.chunkReady, e.events);
    Breakdown& bd = e.breakdown;
    double ppTotal = 0;
    const double ppScaleOut = readCriticalStage(w, sched, dp.critical, dp.computeEnd, bd, ppTotal);
    // Compute slowed by the collectives running under it counts as compute.
    const double contention =
        w.dpContention * std::max(0.0, dp.total[size_t(dp.critical)] - bd.exposed[Dim::DP]);
    bd.compute += contention;
    const double stepComputeEnd = dp.computeEnd + contention;
    bd.optimizer = *std::max_element(w.optimizerS.begin(), w.optimizerS.end());
    const double beforeOverhead = stepComputeEnd + bd.optimizer;
    bd.overhead = w.virtualization * beforeOverhead;
    e.stepTimeS = beforeOverhead + bd.overhead;
    fillCommTotals(w, dp.critical, ppTotal, dp.total[size_t(dp.critical)], ppScaleOut, e);

    scheduleEvents(w, sched, ends, dp.critical, e.events);
    tailEvents(ends, dp, stepComputeEnd, e.events);
    Event opt;
    opt.start = stepComputeEnd;
    opt.end = stepComputeEnd + bd.optimizer;
    opt.stage = -1;
    opt.kind = EventKind::Optimizer;
    opt.critical = true;
    e.events.push_back(opt);
    return e;
}

} // namespace cs
