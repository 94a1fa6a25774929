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

// When each stage's compute ends, and each chunk's last backward, which releases its
// gradients.
struct StageEnds {
    std::vector<PipelineOp> lastBackward; // per op index stage * v + chunk
    std::vector<double> computeEnd;       // per stage
};

StageEnds stageEndsOf(const Workload& w, const PipelineSchedule& sched)
{
    StageEnds ends;
    ends.lastBackward.resize(size_t(w.p) * w.v);
    ends.computeEnd.assign(size_t(w.p), 0);
    sched.forEachOpLastRepeat([&](const PipelineOp& op) {
        if (op.backward)
            ends.lastBackward[w.op(op.stage, op.chunk)] = op;
        ends.computeEnd[size_t(op.stage)] = std::max(ends.computeEnd[size_t(op.stage)], op.end);
    });
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

DataParallel drainDataParallel(const Workload& w, const StageEnds& ends,
                               const std::vector<double>& gatherEnd,
                               const std::vector<double>& chunkReady, std::vector<Event>& events)
{
    DataParallel dp;
    dp.total.assign(size_t(w.p), 0);
    for (int s = 0; s < w.p; ++s) {
        std::vector<Bucket> buckets;
        for (int k = 0; k < w.v; ++k) {
            const PipelineOp& op = ends.lastBackward[w.op(s, k)];
            addBuckets(w, s, k, op.start, op.end, buckets);
        }
        gatherEvents(w, s, chunkReady, events);
        for (const Bucket& b : buckets)
            dp.total[size_t(s)] += w.dpReduce(b.bytes);
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

// The breakdown read along the critical stage so far, and where its last op ended.
struct CriticalPath {
    Breakdown bd;
    double ppScaleOut = 0; // exposed pipeline time on fabric hops
    double ppTotal = 0;    // all pipeline traffic
    double cursor = 0;

    // One op: its parts, and what the gap before it waited for.
    void read(const Workload& w, const PipelineOp& op)
    {
        const double gap = op.start - cursor;
        if (op.bound == OpBound::Dependency) {
            const double pp = std::min(gap, op.transferS);
            bd.exposed[Dim::PP] += pp;
            bd.bubble += gap - pp;
            if (w.hopScaleOut(op.fromStage, op.stage))
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

    // What another path read, `times` over.
    void add(const CriticalPath& o, double times)
    {
        bd.compute += times * o.bd.compute;
        bd.recompute += times * o.bd.recompute;
        for (Dim d : kAllDims)
            bd.exposed[d] += times * o.bd.exposed[d];
        bd.bubble += times * o.bd.bubble;
        ppScaleOut += times * o.ppScaleOut;
        ppTotal += times * o.ppTotal;
    }
};

// The breakdown, read along the critical stage: its ops, and what each gap waited for. Every
// repeat of the steady state reads as the first one after the block. Returns the exposed
// pipeline time on fabric hops and adds up all pipeline traffic.
double readCriticalStage(const Workload& w, const PipelineSchedule& sched, int critical,
                         double computeEnd, Breakdown& bd, double& ppTotal)
{
    CriticalPath path;
    const std::vector<PipelineOp>& ops = sched.ops;
    for (size_t i = 0; i < sched.repeatEnd; ++i)
        if (ops[i].stage == critical)
            path.read(w, ops[i]);
    if (sched.repeats > 0) {
        CriticalPath repeat;
        repeat.cursor = path.cursor;
        for (size_t i = sched.repeatBegin; i < sched.repeatEnd; ++i)
            if (ops[i].stage == critical)
                repeat.read(w, sched.repeated(ops[i], 1));
        path.add(repeat, double(sched.repeats));
        path.cursor = repeat.cursor + double(sched.repeats - 1) * sched.repeatS;
    }
    for (size_t i = sched.repeatEnd; i < ops.size(); ++i)
        if (ops[i].stage == critical)
            path.read(w, ops[i]);
    path.bd.exposed[Dim::DP] += computeEnd - path.cursor;
    bd = path.bd;
    ppTotal = path.ppTotal;
    return path.ppScaleOut;
}

void pushSegment(std::vector<Event>& events, double& t, double seconds, EventKind kind, Dim dim,
                 const PipelineOp& op, LinkClass link)
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
    events.push_back(e);
    t = e.end;
}

// An op as its segments: recompute, compute, then the exposed collectives it waits for.
void opEvents(const Workload& w, const PipelineOp& op, const Parts& parts,
              std::vector<Event>& events)
{
    double t = op.start;
    pushSegment(events, t, parts.recompute, EventKind::Recompute, Dim::TP, op, LinkClass::NVLink);
    pushSegment(events, t, parts.compute, op.backward ? EventKind::Backward : EventKind::Forward,
                Dim::TP, op, LinkClass::NVLink);
    for (Dim d : kAllDims)
        pushSegment(events, t, parts.comm[d], EventKind::Comm, d, op, w.linkOf(d));
}

Event sendEvent(const Workload& w, const PipelineOp& op)
{
    Event send;
    send.start = op.inputEnd;
    send.end = op.inputEnd + op.transferS;
    send.stage = op.fromStage;
    send.microBatch = op.microBatch;
    send.chunk = op.fromChunk;
    send.kind = EventKind::Comm;
    send.dim = Dim::PP;
    send.link = w.hopScaleOut(op.fromStage, op.stage) ? w.links.fabricClass : LinkClass::NVLink;
    send.exposed = op.bound == OpBound::Dependency;
    return send;
}

// Every op, the idle gaps between them and the pipeline sends, marked critical on the
// critical stage. At most
// kMaxStepEvents: repeats of the steady state that do not fit are left out, keeping the start
// and the end of the step; a step whose stored ops alone do not fit loses its end instead.
// What is left out is said in the evaluation.
void scheduleEvents(const Workload& w, const PipelineSchedule& sched, int critical, Evaluation& e)
{
    std::vector<Event>& events = e.events;
    std::vector<double> stageCursor(size_t(w.p), 0);
    auto opEventsOf = [&](const PipelineOp& op) {
        const size_t i = w.op(op.stage, op.chunk);
        double& free = stageCursor[size_t(op.stage)];
        if (op.start > free) {
            Event gap;
            gap.start = free;
            gap.end = op.start;
            gap.stage = op.stage;
            gap.kind = EventKind::Bubble;
            gap.critical = op.stage == critical;
            events.push_back(gap);
        }
        free = op.end;
        const size_t first = events.size();
        opEvents(w, op, op.backward ? w.backward[i] : w.forward[i], events);
        if (op.transferS > 0)
            events.push_back(sendEvent(w, op));
        for (size_t j = first; j < events.size(); ++j)
            events[j].critical =
                op.stage == critical && !(events[j].isComm() && events[j].dim == Dim::PP);
    };
    const std::vector<PipelineOp>& ops = sched.ops;
    const size_t eventsBefore = events.size();
    int64_t opsShown = 0;  // ops whose events are in
    int64_t opsPassed = 0; // and those left out
    auto perOp = [&] {
        return double(events.size() - eventsBefore) / double(std::max<int64_t>(1, opsShown));
    };
    auto leaveOut = [&](double fromS, double toS, int64_t opsLeftOut) {
        if (e.eventsLeftOut == 0)
            e.leftOutFromS = fromS;
        e.leftOutToS = toS;
        e.eventsLeftOut += int64_t(perOp() * double(opsLeftOut));
        opsPassed += opsLeftOut;
    };
    // Shows ops [from, to) of the stored ones until the events are full.
    auto show = [&](size_t from, size_t to) {
        for (size_t i = from; i < to; ++i) {
            if (events.size() >= kMaxStepEvents) {
                leaveOut(ops[i].start, sched.makespan, sched.opCount() - opsPassed);
                return false;
            }
            opEventsOf(ops[i]);
            ++opsShown;
            ++opsPassed;
        }
        return true;
    };
    if (!show(0, sched.repeatEnd))
        return;
    const int64_t blockOps = int64_t(sched.repeatEnd - sched.repeatBegin);
    const double room = double(kMaxStepEvents) - double(events.size()) -
                        perOp() * double(ops.size() - sched.repeatEnd);
    const int64_t shown = std::min(
        sched.repeats, int64_t(std::max(0.0, room / std::max(1.0, perOp() * double(blockOps)))));
    for (int64_t r = 1; r <= shown; ++r) {
        for (size_t i = sched.repeatBegin; i < sched.repeatEnd; ++i)
            opEventsOf(sched.repeated(ops[i], r));
        opsShown += blockOps;
        opsPassed += blockOps;
    }
    if (shown < sched.repeats) {
        const int64_t leftOut = sched.repeats - shown;
        const double fromS = sched.repeated(ops[sched.repeatBegin], shown + 1).start;
        leaveOut(fromS, fromS + double(leftOut) * sched.repeatS, leftOut * blockOps);
        for (double& free : stageCursor) // the stages were busy, not idle, in between
            free += double(leftOut) * sched.repeatS;
    }
    show(sched.repeatEnd, ops.size());
}

// DP events are exposed when they outlast their stage's compute.
void markExposedDataParallel(const StageEnds& ends, std::vector<Event>& events)
{
    for (Event& ev : events) {
        if (ev.isComm() && ev.dim == Dim::DP)
            ev.exposed = ev.end > ends.computeEnd[size_t(ev.stage)] || ev.start < 1e-15;
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

    e.events.reserve(std::min(size_t(sched.opCount()) * 4, kMaxStepEvents) +
                     size_t(w.p) * (w.v + 64));
    const DataParallel dp = drainDataParallel(w, ends, gatherEnd, spec.chunkReady, e.events);
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

    scheduleEvents(w, sched, dp.critical, e);
    markExposedDataParallel(ends, e.events);
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
