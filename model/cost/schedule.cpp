#include "schedule.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>

#include "repeatwatch.h"
#include "stageorder.h"

namespace cs {
namespace {

using namespace pipeline;

// Steps with fewer ops are simulated op by op: the samples and the measured runs all are, so
// their figures never depend on the shortcut.
constexpr int64_t kRepeatFromOps = int64_t(1) << 17;

// An op's output on its way to the one op that takes it as input.
struct Produced {
    int microBatch = 0;
    int stage = 0;
    int chunk = 0;
    double end = 0;
    int64_t position = 0; // in its stage's order
};

// The outputs waiting for the ops of one virtual stage and direction. They arrive in
// micro-batch order and are taken in it, so the queue stays as short as what is in flight.
class Inbox {
public:
    const Produced* find(int microBatch) const
    {
        for (size_t i = m_head; i < m_items.size(); ++i)
            if (m_items[i].microBatch == microBatch)
                return &m_items[i];
        return nullptr;
    }
    void put(const Produced& p) { m_items.push_back(p); }
    void take(int microBatch)
    {
        if (m_items[m_head].microBatch != microBatch) {
            const auto it =
                std::find_if(m_items.begin() + long(m_head), m_items.end(),
                             [&](const Produced& p) { return p.microBatch == microBatch; });
            std::rotate(m_items.begin() + long(m_head), it, it + 1);
        }
        if (++m_head * 2 > m_items.size()) {
            m_items.erase(m_items.begin(), m_items.begin() + long(m_head));
            m_head = 0;
        }
    }
    template <typename F> void forEach(F f)
    {
        for (size_t i = m_head; i < m_items.size(); ++i)
            f(m_items[i]);
    }

private:
    std::vector<Produced> m_items;
    size_t m_head = 0;
};

// An op as it would run next (op.start kNever: its input has not arrived).
struct Candidate {
    PipelineOp op;
    int64_t inputPosition = -1; // of the op its input comes from, in that stage's order
};

class Simulator {
public:
    explicit Simulator(const PipelineSpec& spec)
        : m_spec(spec)
        , m_p(spec.stages)
        , m_v(spec.chunks)
        , m_order(spec.stages, spec.chunks, spec.microBatches)
        , m_inboxes(2 * size_t(m_p) * m_v)
        , m_stages(size_t(m_p))
    {
        const int64_t forwards = int64_t(spec.microBatches) * m_v;
        m_orders.reserve(size_t(m_p));
        for (int s = 0; s < m_p; ++s)
            m_orders.emplace_back(m_order, forwards,
                                  inFlightLimit(m_p, m_v, spec.microBatches, s) - 1);
        m_total = 2 * forwards * m_p;
        if (spec.extendSteadyState && m_total >= kRepeatFromOps) {
            const double latestReady =
                spec.chunkReady.empty()
                    ? 0.0
                    : *std::max_element(spec.chunkReady.begin(), spec.chunkReady.end());
            m_watch.emplace(m_orders, m_order, m_v, latestReady);
        }
    }

    PipelineSchedule run()
    {
        PipelineSchedule out;
        m_out = &out;
        out.ops.reserve(size_t(std::min(m_total, kRepeatFromOps)));
        for (int s = 0; s < m_p; ++s) {
            findNext(s);
            enqueue(s);
        }
        while (m_done < m_total) {
            if (m_ready.empty()) {
                Candidate c;
                const int s = runAhead(c);
                ++out.relaxedOrder;
                m_watch.reset(); // the order is no longer fixed; nothing is skipped
                m_positions = {};
                commit(s, c);
            } else {
                const int s = m_ready.top().second;
                m_ready.pop();
                StageState& st = m_stages[size_t(s)];
                st.queued = false;
                commit(s, st.candidate);
            }
            if (m_watch) {
                if (const std::optional<Repeat> r = m_watch->check())
                    skip(*r);
                if (!m_watch->active()) {
                    m_watch.reset();
                    m_positions = {};
                }
            }
        }
        arrange(out);
        out.forEachOpLastRepeat(
            [&](const PipelineOp& op) { out.makespan = std::max(out.makespan, op.end); });
        return out;
    }

private:
    struct StageState {
        std::vector<Step> displaced; // ops moved ahead of the order, then the ones they passed
        int64_t position = 0;        // the next op of the order not in `displaced`
        Step next;                   // while there is one
        double freeAt = 0;
        bool started = false;
        bool queued = false;
        Candidate candidate; // while queued
    };

    int lastVs() const { return m_p * m_v - 1; }
    size_t inbox(int vs, bool backward) const { return size_t(vs) * 2 + (backward ? 1 : 0); }

    bool hasNext(int s) const
    {
        const StageState& st = m_stages[size_t(s)];
        return !st.displaced.empty() || st.position < m_orders[size_t(s)].size();
    }

    // After the stage's order or position changed.
    void findNext(int s)
    {
        StageState& st = m_stages[size_t(s)];
        if (!st.displaced.empty())
            st.next = st.displaced.front();
        else if (st.position < m_orders[size_t(s)].size())
            st.next = m_orders[size_t(s)].at(st.position);
    }

    // When the op could start, or never (kNever) while its input has not arrived.
    void candidate(int s, const Step& step, Candidate& c) const
    {
        const StageState& st = m_stages[size_t(s)];
        const int vs = step.cm.chunk * m_p + s;
        const bool needsInput = step.backward || vs > 0;
        const Produced* input =
            needsInput ? m_inboxes[inbox(vs, step.backward)].find(step.cm.microBatch) : nullptr;
        PipelineOp& op = c.op;
        op.start = kNever;
        if (needsInput && !input)
            return;
        op.stage = s;
        op.chunk = step.cm.chunk;
        op.microBatch = step.cm.microBatch;
        op.backward = step.backward;
        op.start = st.freeAt;
        op.bound = st.started ? OpBound::Stage : OpBound::StepStart;
        op.fromStage = -1;
        op.fromChunk = -1;
        op.inputEnd = 0;
        op.transferS = 0;
        if (input) {
            // Hops are numbered by their sending stage going forward.
            const int hop = step.backward ? s : input->stage;
            op.transferS = input->stage == s ? 0.0 : m_spec.send[size_t(hop)];
            const double ready = input->end + op.transferS;
            if (ready > op.start) {
                op.start = ready;
                op.bound = OpBound::Dependency;
            }
            op.fromStage = input->stage;
            op.fromChunk = input->chunk;
            op.inputEnd = input->end;
            c.inputPosition = input->position;
        }
        if (!step.backward && !m_spec.chunkReady.empty()) {
            const double ready = m_spec.chunkReady[size_t(s * m_v + step.cm.chunk)];
            if (ready > op.start) {
                op.start = ready;
                op.bound = OpBound::ChunkReady;
            }
        }
    }

    void enqueue(int s)
    {
        StageState& st = m_stages[size_t(s)];
        if (st.queued || !hasNext(s))
            return;
        candidate(s, st.next, st.candidate);
        if (st.candidate.op.start == kNever)
            return;
        st.queued = true;
        m_ready.push({st.candidate.op.start, s});
    }

    // No stage can run its next op: some stage runs a later op of its order whose input is
    // there (one always exists: the unscheduled op earliest in dependency order).
    int runAhead(Candidate& best)
    {
        best.op.start = kNever;
        int bestStage = -1;
        size_t bestIndex = 0;
        for (int s = 0; s < m_p; ++s) {
            const StageState& st = m_stages[size_t(s)];
            const StageOrder& order = m_orders[size_t(s)];
            const size_t length = st.displaced.size() + size_t(order.size() - st.position);
            for (size_t i = 0; i < length; ++i) {
                const Step step = i < st.displaced.size()
                                      ? st.displaced[i]
                                      : order.at(st.position + int64_t(i - st.displaced.size()));
                Candidate c;
                candidate(s, step, c);
                if (c.op.start < best.op.start) {
                    best = c;
                    bestStage = s;
                    bestIndex = i;
                }
                if (c.op.start < kNever)
                    break;
            }
        }
        if (bestStage < 0)
            throw std::logic_error("pipeline schedule cannot progress");
        StageState& st = m_stages[size_t(bestStage)];
        while (st.displaced.size() <= bestIndex)
            st.displaced.push_back(m_orders[size_t(bestStage)].at(st.position++));
        std::rotate(st.displaced.begin(), st.displaced.begin() + long(bestIndex),
                    st.displaced.begin() + long(bestIndex) + 1);
        findNext(bestStage);
        return bestStage;
    }

    void commit(int s, const Candidate& c)
    {
        StageState& st = m_stages[size_t(s)];
        const int64_t position = st.displaced.empty() ? st.position : -1;
        if (st.displaced.empty())
            ++st.position;
        else
            st.displaced.erase(st.displaced.begin());
        findNext(s);
        m_out->ops.push_back(c.op);
        PipelineOp& op = m_out->ops.back();
        const int vs = op.chunk * m_p + s;
        const size_t k = size_t(s * m_v + op.chunk);
        op.end = op.start + (op.backward ? m_spec.backward[k] : m_spec.forward[k]);
        if (op.fromStage >= 0)
            m_inboxes[inbox(vs, op.backward)].take(op.microBatch);
        if (m_watch)
            m_positions.push_back(position);
        ++m_done;
        st.freeAt = op.end;
        st.started = true;

        // Where this op's output goes: the next virtual stage's forward, the last one's own
        // backward, or the previous virtual stage's backward.
        int toVs = -1;
        bool toBackward = true;
        if (!op.backward) {
            toVs = vs < lastVs() ? vs + 1 : vs;
            toBackward = vs == lastVs();
        } else if (vs > 0) {
            toVs = vs - 1;
        }
        int toStage = -1;
        if (toVs >= 0) {
            toStage = toVs % m_p;
            m_inboxes[inbox(toVs, toBackward)].put({op.microBatch, s, op.chunk, op.end, position});
        }
        if (m_watch && m_watch->active()) {
            const int64_t consumerPosition = toStage < 0
                                                 ? 0
                                                 : m_orders[size_t(toStage)].positionOf(
                                                       {toBackward, {toVs / m_p, op.microBatch}});
            m_watch->ran(s, position, op.end, op.fromStage, c.inputPosition, toStage,
                         consumerPosition);
        }
        enqueue(s);
        if (toStage >= 0 && toStage != s)
            enqueue(toStage);
    }

    // The block before cut r.cut runs again as many times as the steady state after it
    // allows; the ops run past the cut and everything waiting move on by as many periods.
    void skip(Repeat r)
    {
        RepeatWatch& watch = *m_watch;
        const int64_t positions = r.blocks * watch.blockPositions(); // per stage and repeat
        int64_t times = std::numeric_limits<int64_t>::max();
        for (int s = 0; s < m_p; ++s) {
            const int64_t room = m_orders[size_t(s)].pairsEnd() - m_stages[size_t(s)].position;
            times = std::min(times, room / positions);
        }
        watch.stop();
        if (times < 1)
            return;
        const double shift = double(times) * r.periodS;
        m_repeatMicroBatches = int(positions / 2 / m_v);
        const int microBatches = int(times * m_repeatMicroBatches);
        const int64_t moved = times * positions;
        m_part.assign(m_out->ops.size(), 0);
        for (size_t i = 0; i < m_out->ops.size(); ++i) {
            PipelineOp& op = m_out->ops[i];
            const int64_t pos = m_positions[i];
            m_part[i] = pos < watch.cutAt(op.stage, r.cut - r.blocks) ? 0
                        : pos < watch.cutAt(op.stage, r.cut)          ? 1
                                                                      : 2;
            if (m_part[i] == 2) {
                op.start += shift;
                op.end += shift;
                if (op.fromStage >= 0)
                    op.inputEnd += shift;
                op.microBatch += microBatches;
            }
        }
        for (StageState& st : m_stages) {
            st.position += moved;
            st.freeAt += shift;
            st.queued = false;
        }
        for (Inbox& box : m_inboxes)
            box.forEach([&](Produced& p) {
                p.microBatch += microBatches;
                p.end += shift;
                p.position += moved;
            });
        m_ready = {};
        for (int s = 0; s < m_p; ++s) {
            findNext(s);
            enqueue(s);
        }
        m_done += times * int64_t(m_p) * positions;
        m_repeat = r;
        m_repeat->times = times;
    }

    // The ops as the schedule stores them: those before the repeating block, the block, the
    // rest; each part in the order the ops ran.
    void arrange(PipelineSchedule& out)
    {
        if (!m_repeat)
            return;
        m_part.resize(out.ops.size(), 2);
        std::vector<PipelineOp> ordered;
        ordered.reserve(out.ops.size());
        for (int part = 0; part < 3; ++part) {
            if (part == 1)
                out.repeatBegin = ordered.size();
            if (part == 2)
                out.repeatEnd = ordered.size();
            for (size_t i = 0; i < out.ops.size(); ++i)
                if (m_part[i] == part)
                    ordered.push_back(out.ops[i]);
        }
        out.ops = std::move(ordered);
        out.repeats = m_repeat->times;
        out.repeatS = m_repeat->periodS;
        out.repeatMicroBatches = m_repeatMicroBatches;
    }

    using Ready = std::pair<double, int>; // start, stage: the earliest first, then the lowest
    const PipelineSpec& m_spec;
    int m_p;
    int m_v;
    ChunkOrder m_order;
    std::vector<StageOrder> m_orders;
    std::vector<Inbox> m_inboxes; // per virtual stage and direction
    std::vector<StageState> m_stages;
    std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> m_ready;
    int64_t m_total = 0;
    int64_t m_done = 0;
    PipelineSchedule* m_out = nullptr;
    std::optional<RepeatWatch> m_watch;
    std::vector<int64_t> m_positions; // of each op run, while watching
    std::vector<uint8_t> m_part;      // of each op: before the block, the block, after
    std::optional<Repeat> m_repeat;
    int m_repeatMicroBatches = 0;
};

} // namespace

PipelineSchedule simulatePipeline(const PipelineSpec& spec)
{
    return Simulator(spec).run();
}

} // namespace cs
