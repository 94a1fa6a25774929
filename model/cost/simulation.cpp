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
                 const PipelineOp& op, int opId, int inputId, LinkClass link, bool exposed = true)
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
    e.exposed = exposed;
    e.op = opId;
    e.dependsOn = inputId;
    events.push_back(e);
    t = e.end;
}

// An op as its segments: recompute, compute (with the collectives hidden under it), then the
// exposed collectives it waits for.
void opEvents(const Workload& w, const PipelineOp& op, int opId, int inputId, const Parts& parts,
              std::vector<Event>& events)
{
    double t = op.start;
    pushSegment(events, t, parts.recompute, EventKind::Recompute, Dim::TP, op, opId, inputId,
                LinkClass::NVLink);
    const double computeStart = t;
    pushSegment(events, t, parts.compute, op.backward ? EventKind::Backward : EventKind::Forward,
                Dim::TP, op, opId, inputId, LinkClass::NVLink);
    for (Dim d : kAllDims) { // under the compute, from its start
        double under = computeStart;
        pushSegment(events, under, parts.hidden[d], EventKind::Comm, d, op, opId, inputId,
                    w.linkOf(d), false);
    }
    for (Dim d : kAllDims)
        pushSegment(events, t, parts.comm[d], EventKind::Comm, d, op, opId, inputId, w.linkOf(d));
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

// Numbers the ops shown in the events, so that an event names its op and the op whose output
// that op takes; an op numbered as an input but left out of the events has no events.
class OpIds {
public:
    explicit OpIds(const Workload& w)
        : m_p(w.p)
        , m_v(w.v)
        , m_ids(size_t(w.m) * size_t(w.p) * size_t(w.v) * 2, -1)
    {
    }

    int of(int stage, int chunk, int microBatch, bool backward)
    {
        const size_t key =
            ((size_t(microBatch) * size_t(m_p) + size_t(stage)) * size_t(m_v) + size_t(chunk)) * 2 +
            (backward ? 1 : 0);
        int& id = m_ids[key];
        if (id < 0)
            id = m_next++;
        return id;
    }

    int of(const PipelineOp& op) { return of(op.stage, op.chunk, op.microBatch, op.backward); }

    // The op's input: the previous chunk going forward, the next going backward, and for the
    // last chunk's backward pass its own forward pass; -1 when it has none.
    int inputOf(const PipelineOp& op)
    {
        if (op.fromStage < 0)
            return -1;
        const bool fromItself = op.fromStage == op.stage && op.fromChunk == op.chunk;
        return of(op.fromStage, op.fromChunk, op.microBatch, op.backward && !fromItself);
    }

private:
    int m_p, m_v;
    std::vector<int> m_ids; // by (micro-batch, stage, chunk, direction); -1 until numbered
    int m_next = 0;
};

Event sendEvent(const Workload& w, const PipelineOp& op, int opId, int inputId)
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
    send.op = opId;
    send.dependsOn = inputId;
    return send;
}

// The events of ops: the idle gap before each on its stage and why it waited, its segments,
// the transfer of its input; marked critical on the critical stage.
class OpEvents {
public:
    OpEvents(const Workload& w, int critical, OpIds& ids)
        : m_w(w)
        , m_critical(critical)
        , m_ids(&ids)
        , m_stageFree(size_t(w.p), 0)
    {
    }

    void add(const PipelineOp& op, std::vector<Event>& events)
    {
        const size_t i = m_w.op(op.stage, op.chunk);
        const int id = m_ids->of(op), input = m_ids->inputOf(op);
        double& free = m_stageFree[size_t(op.stage)];
        // Repeats are placed by adding whole periods, whose rounding leaves gaps of a few ulps
        // between ops that follow on: those are not idle time.
        const double rounding = 1e-9 * std::max(1.0, op.start);
        if (op.start > free + rounding) {
            Event gap;
            gap.start = free;
            gap.end = op.start;
            gap.stage = op.stage;
            gap.kind = EventKind::Bubble;
            gap.critical = op.stage == m_critical;
            gap.wait = waitOf(op.bound);
            gap.op = id;
            gap.dependsOn = input;
            events.push_back(gap);
        }
        free = op.end;
        const size_t first = events.size();
        opEvents(m_w, op, id, input, op.backward ? m_w.backward[i] : m_w.forward[i], events);
        if (op.transferS > 0)
            events.push_back(sendEvent(m_w, op, id, input));
        for (size_t j = first; j < events.size(); ++j)
            events[j].critical =
                op.stage == m_critical && !(events[j].isComm() && events[j].dim == Dim::PP);
        ++m_ops;
    }

    // Ops not shown: every stage was busy meanwhile, not idle.
    void pass(double seconds)
    {
        for (double& free : m_stageFree)
            free += seconds;
    }

    int64_t ops() const { return m_ops; }

private:
    const Workload& m_w;
    int m_critical;
    OpIds* m_ids;
    std::vector<double> m_stageFree;
    int64_t m_ops = 0;
};

// Every op's events, at most kMaxStepEvents with the step's end (two waits a stage and the
// optimizer): the start of the step (the ops before the repeating block and the block once),
// then as many repeats as fit beside the end of the step (the ops after the repeats), then that
// end. When the end does not fit, the events run on in order until full and the rest of the
// step is left out. What is left out is said in the evaluation.
void scheduleEvents(const Workload& w, const PipelineSchedule& sched, int critical, Evaluation& e)
{
    std::vector<Event>& events = e.events;
    const size_t eventsBefore = events.size();
    const size_t cap = kMaxStepEvents - std::min(kMaxStepEvents / 2, 2 * size_t(w.p) + 1);
    const std::vector<PipelineOp>& ops = sched.ops;
    OpIds ids(w);
    OpEvents start(w, critical, ids);
    int64_t opsShown = 0;
    auto leaveOut = [&](double fromS, double toS, int64_t opsLeftOut) {
        const double perOp =
            double(events.size() - eventsBefore) / double(std::max<int64_t>(1, opsShown));
        e.eventsLeftOut = int64_t(perOp * double(opsLeftOut));
        e.leftOutFromS = fromS;
        e.leftOutToS = toS;
    };
    for (size_t i = 0; i < sched.repeatEnd; ++i, ++opsShown) {
        if (events.size() >= cap)
            return leaveOut(ops[i].start, sched.makespan, sched.opCount() - opsShown);
        start.add(ops[i], events);
    }
    std::vector<Event> endEvents;
    OpEvents end = start;
    end.pass(double(sched.repeats) * sched.repeatS);
    size_t i = sched.repeatEnd;
    for (; i < ops.size() && events.size() + endEvents.size() < cap; ++i)
        end.add(ops[i], endEvents);
    const bool endFits = i == ops.size();
    if (sched.repeats == 0) { // the end follows on at once
        events.insert(events.end(), endEvents.begin(), endEvents.end());
        opsShown += int64_t(i - sched.repeatEnd);
        if (!endFits)
            leaveOut(ops[i].start, sched.makespan, sched.opCount() - opsShown);
        return;
    }
    const size_t room = cap - (endFits ? endEvents.size() : 0);
    int64_t shown = 0;
    const int64_t blockOps = int64_t(sched.repeatEnd - sched.repeatBegin);
    for (size_t perRepeat = 0; shown < sched.repeats && events.size() + perRepeat <= room;
         ++shown, opsShown += blockOps) {
        const size_t before = events.size();
        for (size_t b = sched.repeatBegin; b < sched.repeatEnd; ++b)
            start.add(sched.repeated(ops[b], shown + 1), events);
        perRepeat = std::max(perRepeat, events.size() - before);
    }
    const int64_t repeatsLeftOut = sched.repeats - shown;
    if (!endFits) {
        const double fromS = repeatsLeftOut > 0
                                 ? sched.repeated(ops[sched.repeatBegin], shown + 1).start
                                 : ops[sched.repeatEnd].start;
        return leaveOut(fromS, sched.makespan, sched.opCount() - opsShown);
    }
    if (repeatsLeftOut > 0) {
        const double fromS = sched.repeated(ops[sched.repeatBegin], shown + 1).start;
        leaveOut(fromS, fromS + double(repeatsLeftOut) * sched.repeatS, repeatsLeftOut * blockOps);
    }
    events.insert(events.end(), endEvents.begin(), endEvents.end());
}

// DP events are exposed when they outlast their stage's compute.
void markExposedDataParallel(const StageEnds& ends, std::vector<Event>& events)
{
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

Evaluation simulateStep(const Workload& w, bool timeline)
{
    Evaluation e;
    std::vector<double> gatherEnd;
    const PipelineSpec spec = pipelineSpecOf(w, gatherEnd);
    const PipelineSchedule sched = simulatePipeline(spec);
    const StageEnds ends = stageEndsOf(w, sched);

    if (timeline)
        e.events.reserve(std::min(size_t(sched.opCount()) * 4, kMaxStepEvents) +
                         size_t(w.p) * (w.v + 64));
    const DataParallel dp = drainDataParallel(w, ends, gatherEnd, spec.chunkReady, e.events);
    Breakdown& bd = e.breakdown;
    double ppTotal = 0;
    const double ppScaleOut = readCriticalStage(w, sched, dp.critical, dp.computeEnd, bd, ppTotal);
    // Compute slowed by the collectives running under it counts as compute.
    const double contention =
        w.dpContentionS(dp.critical, dp.total[size_t(dp.critical)], bd.exposed[Dim::DP]);
    bd.compute += contention;
    const double stepComputeEnd = dp.computeEnd + contention;
    bd.optimizer = *std::max_element(w.optimizerS.begin(), w.optimizerS.end());
    const double beforeOverhead = stepComputeEnd + bd.optimizer;
    bd.overhead = w.virtualization * beforeOverhead;
    e.stepTimeS = beforeOverhead + bd.overhead;
    fillCommTotals(w, dp.critical, ppTotal, dp.total[size_t(dp.critical)], ppScaleOut, e);
    if (!timeline) {
        e.events.clear();
        return e;
    }

    scheduleEvents(w, sched, dp.critical, e);
    markExposedDataParallel(ends, e.events);
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
