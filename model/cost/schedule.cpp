#include "schedule.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>

// Why storing a repeating block once is exact. Without a stage running ahead of its order,
// every op starts at the latest of: its stage's previous op's end, its input's end plus the
// transfer, and its chunk's parameters. Cut every stage's order at the same point of its steady
// state (a whole block of micro-batches later on every stage) and everything after the cut
// depends only on the "frontier": each stage's last end before the cut and the ends of the ops
// before it whose inputs go to ops after it (once the cut is consistent: no op before it waits
// for one after it). In the steady state the order after a cut is the order after the previous
// one with every micro-batch a block further on. So when the frontier of a cut is the previous
// cut's frontier shifted by one period, the next block runs exactly as this one did, a period
// later, and so does every block after it for as long as the steady state lasts: the
// simulation stores the block once with its count and goes on from the state after the last
// repeat. "Exactly" holds to the rounding of the sums: two frontiers count as shifted when
// their differences agree within kSameShift of the time so far, and a max-plus system such as
// this never spreads a difference it was given, so the rest of the step is off by no more.

namespace cs {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
// Steps with fewer ops are simulated op by op: the samples and the measured runs all are, so
// their figures never depend on the shortcut.
constexpr int64_t kRepeatFromOps = int64_t(1) << 17;
constexpr double kSameShift = 1e-12;
// Orders of up to this many chunk forwards are tabulated.
constexpr int64_t kTabulatedOrder = int64_t(1) << 16;

int64_t floorDiv(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The forward order (backward: chunks reversed) as arithmetic, so that no stage holds a list of
// its micro-batches x chunks ops: the first `bigGroups` groups have one micro-batch more.
class ChunkOrder {
public:
    ChunkOrder(int stages, int chunks, int microBatches)
        : m_v(chunks)
        , m_size(microBatches / groupCount(stages, microBatches))
        , m_bigMicroBatches(int64_t(microBatches % groupCount(stages, microBatches)) * (m_size + 1))
    {
        // Short orders are looked up, which is quicker than working them out each time.
        const int64_t total = int64_t(chunks) * microBatches;
        if (total > kTabulatedOrder)
            return;
        for (int reversed = 0; reversed < 2; ++reversed) {
            m_table[reversed].reserve(size_t(total));
            for (int64_t i = 0; i < total; ++i)
                m_table[reversed].push_back(compute(i, reversed != 0));
        }
    }

    ChunkMicroBatch at(int64_t index, bool reversed) const
    {
        const std::vector<ChunkMicroBatch>& table = m_table[reversed ? 1 : 0];
        return table.empty() ? compute(index, reversed) : table[size_t(index)];
    }

private:
    ChunkMicroBatch compute(int64_t index, bool reversed) const
    {
        const int64_t big = m_bigMicroBatches * m_v;
        const int64_t size = index < big ? m_size + 1 : m_size;
        const int64_t from = index < big ? 0 : big;
        const int64_t first =
            (index < big ? 0 : m_bigMicroBatches) + (index - from) / (size * m_v) * size;
        const int64_t within = (index - from) % (size * m_v);
        const int k = int(within / size);
        return {reversed ? m_v - 1 - k : k, int(first + within % size)};
    }

public:
    int64_t indexOf(ChunkMicroBatch cm, bool reversed) const
    {
        const int k = reversed ? m_v - 1 - cm.chunk : cm.chunk;
        const bool big = cm.microBatch < m_bigMicroBatches;
        const int64_t size = big ? m_size + 1 : m_size;
        const int64_t from = big ? 0 : m_bigMicroBatches;
        const int64_t first = from + (cm.microBatch - from) / size * size;
        return first * m_v + k * size + (cm.microBatch - first);
    }

    // Where the groups of equal size begin (as an index), and how many micro-batches make one
    // repeat of the order from there: a group, or one micro-batch without chunks.
    int64_t repeatFrom() const { return m_v == 1 ? 0 : m_bigMicroBatches * m_v; }
    int repeatMicroBatches() const { return m_v == 1 ? 1 : m_size; }

private:
    int m_v;
    int64_t m_size;
    int64_t m_bigMicroBatches;
    std::vector<ChunkMicroBatch> m_table[2]; // forward, backward; empty: worked out
};

struct Step {
    bool backward = false;
    ChunkMicroBatch cm;
};

// Megatron's order of one stage: warm-up forwards, then one forward and one backward in turn,
// then the remaining backwards; position i is the i-th op the stage runs.
class StageOrder {
public:
    StageOrder(const ChunkOrder& order, int64_t forwards, int64_t warmup)
        : m_order(&order)
        , m_total(forwards)
        , m_warmup(warmup)
    {
    }

    int64_t size() const { return 2 * m_total; }
    int64_t warmup() const { return m_warmup; }
    int64_t pairsEnd() const { return 2 * m_total - m_warmup; }

    Step at(int64_t pos) const
    {
        if (pos < m_warmup)
            return {false, m_order->at(pos, false)};
        if (pos < pairsEnd()) {
            const int64_t pair = (pos - m_warmup) / 2;
            if ((pos - m_warmup) % 2 == 0)
                return {false, m_order->at(m_warmup + pair, false)};
            return {true, m_order->at(pair, true)};
        }
        return {true, m_order->at(pos - m_total, true)};
    }

    int64_t positionOf(const Step& step) const
    {
        const int64_t i = m_order->indexOf(step.cm, step.backward);
        if (!step.backward)
            return i < m_warmup ? i : m_warmup + 2 * (i - m_warmup);
        return i < m_total - m_warmup ? m_warmup + 2 * i + 1 : m_total + i;
    }

private:
    const ChunkOrder* m_order;
    int64_t m_total;
    int64_t m_warmup;
};

// The op whose output an op takes as input, if any: the previous virtual stage's forward, or
// the next one's backward (the last virtual stage's backward takes its own forward's).
struct OpAt {
    int stage = 0;
    Step step;
};
std::optional<OpAt> inputOf(int stages, int chunks, int s, const Step& step)
{
    const int vs = step.cm.chunk * stages + s;
    const int last = stages * chunks - 1;
    if (!step.backward && vs == 0)
        return std::nullopt;
    const int from = !step.backward ? vs - 1 : vs == last ? vs : vs + 1;
    return OpAt{from % stages, {step.backward && vs != last, {from / stages, step.cm.microBatch}}};
}

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

// What the rest of the step depends on at one cut (see the top of this file), keyed by stage
// and position relative to the cut.
struct FrontierValue {
    int stage = 0;
    int64_t offset = 0; // position - the stage's cut; -1: the stage's last op before the cut
    double end = 0;
    bool operator<(const FrontierValue& o) const
    {
        return stage != o.stage ? stage < o.stage : offset < o.offset;
    }
};

struct CutState {
    std::vector<FrontierValue> crossing;
    std::vector<double> lastEnd; // per stage
    int reached = 0;             // stages that ran every op before the cut
    bool inconsistent = false;   // an op before the cut took its input from one after it
    bool irregular = false;      // an op of the block before the cut took its input from
                                 // outside the steady state
};

// A completed cut, kept to compare later ones with.
struct Frontier {
    int64_t cut = 0;
    std::vector<FrontierValue> values; // sorted
    bool usable = false;               // consistent, and every value from the steady state
    double earliest = 0;               // the earliest last end of a stage
    double latest = 0;                 // the latest end of all
};

struct Repeat {
    int64_t cut = 0; // the blocks from cut - blocks to this cut repeat
    int64_t blocks = 1;
    int64_t times = 0;
    double periodS = 0; // of all the blocks together
};

// Cuts every stage's order once per block of the steady state and tells when a cut's frontier
// is the previous one's a period later. Cut k of stage s is at position
// warmup(s) + 2 (from + (k + 1) block): `block` forward and backward pairs further each time.
class RepeatWatch {
public:
    RepeatWatch(const std::vector<StageOrder>& orders, const ChunkOrder& order, int chunks,
                double latestChunkReady)
        : m_orders(orders)
        , m_from(order.repeatFrom())
        , m_block(int64_t(order.repeatMicroBatches()) * chunks)
        , m_latestChunkReady(latestChunkReady)
        , m_shift(orders.size(), 0)
    {
        // Cuts are made only where two blocks of steady state follow them, checked before
        // and after they are moved.
        if (countCuts() < 2 || !closeCuts(chunks) || countCuts() < 2)
            return;
        m_cuts = countCuts();
        m_nextCut.assign(orders.size(), 0);
        // Stages run up to about two ops a stage apart, so a dependency spans that many cuts.
        m_windowSize = 4 + (4 * int64_t(orders.size()) + m_block - 1) / m_block;
        // A steady state may repeat only every few blocks (as many as micro-batches go round
        // its slowest loop): compare with as many earlier cuts.
        m_historySize = 2 * int64_t(orders.size()) + 4;
        m_active = true;
    }

    bool active() const { return m_active; }
    void stop() { m_active = false; }
    int64_t blockPositions() const { return 2 * m_block; }

    int64_t cutAt(int s, int64_t k) const { return base(s) + 2 * (k + 1) * m_block; }

    // The op at `position` of stage s ran; its input came from the op at inputPosition of
    // inputStage, its output goes to consumerPosition of consumerStage (stage -1: none).
    void ran(int s, int64_t position, double end, int inputStage, int64_t inputPosition,
             int consumerStage, int64_t consumerPosition)
    {
        if (inputStage >= 0) {
            // Cuts before which this op runs but after which its input was produced.
            forEachCut(firstAfter(s, position), lastAtOrBefore(inputStage, inputPosition),
                       [](int64_t, CutState& c) { c.inconsistent = true; });
            const bool steady = inputPosition >= base(inputStage) &&
                                inputPosition < m_orders[size_t(inputStage)].pairsEnd();
            if (!steady)
                if (CutState* c = cut(firstAfter(s, position)))
                    c->irregular = true;
        }
        if (consumerStage >= 0) {
            // Cuts after which this op's output is taken.
            forEachCut(firstAfter(s, position), lastAtOrBefore(consumerStage, consumerPosition),
                       [&](int64_t k, CutState& c) {
                           c.crossing.push_back({s, position - cutAt(s, k), end});
                       });
        }
        int64_t& next = m_nextCut[size_t(s)];
        if (next < m_cuts && position + 1 == cutAt(s, next)) {
            if (CutState* c = cut(next)) {
                c->lastEnd[size_t(s)] = end;
                ++c->reached;
            }
            ++next;
        }
    }

    // After a cut completed: the repeat it shows, if any. Forgets cuts it is done with.
    std::optional<Repeat> check()
    {
        while (m_active && !m_window.empty() && m_window.front().reached == int(m_orders.size())) {
            CutState& c = m_window.front();
            if (c.irregular)
                m_lastIrregular = m_first;
            Frontier f = frontier(c, m_first);
            if (std::optional<Repeat> found = findRepeat(f))
                return found;
            m_history.push_back(std::move(f));
            if (int64_t(m_history.size()) > m_historySize)
                m_history.pop_front();
            m_window.pop_front();
            if (++m_first >= m_cuts)
                m_active = false;
        }
        return std::nullopt;
    }

private:
    // Where stage s's cuts are counted from: the steady state, and as much further as makes
    // every cut consistent.
    int64_t base(int s) const
    {
        return m_orders[size_t(s)].warmup() + 2 * m_from + m_shift[size_t(s)];
    }

    int64_t countCuts() const
    {
        int64_t cuts = std::numeric_limits<int64_t>::max();
        for (int s = 0; s < int(m_orders.size()); ++s)
            cuts = std::min(cuts, floorDiv(m_orders[size_t(s)].pairsEnd() - base(s), 2 * m_block));
        return cuts;
    }

    int64_t firstAfter(int s, int64_t position) const
    {
        return std::max<int64_t>(0, floorDiv(position - base(s), 2 * m_block));
    }

    int64_t lastAtOrBefore(int s, int64_t position) const
    {
        return floorDiv(position - base(s), 2 * m_block) - 1;
    }

    // Cut every stage a block into the steady state, then move the cuts on until no op before
    // one takes its input from an op after another (the ops of the first chunk on the first
    // stage wait for the last chunk's on the last stage, a group of micro-batches earlier).
    // The same moves make every later cut consistent, the order repeating there.
    bool closeCuts(int chunks)
    {
        const int p = int(m_orders.size());
        const int64_t window = 6 * m_block + 4 * int64_t(p);
        for (int round = 0; round <= 2 * p; ++round) {
            bool moved = false;
            for (int s = 0; s < p; ++s) {
                const int64_t cut = cutAt(s, 0);
                for (int64_t x = std::max<int64_t>(0, cut - window);
                     x < std::min(cut, m_orders[size_t(s)].size()); ++x) {
                    const std::optional<OpAt> in = inputOf(p, chunks, s, m_orders[size_t(s)].at(x));
                    if (!in)
                        continue;
                    const int64_t y = m_orders[size_t(in->stage)].positionOf(in->step);
                    if (y >= cutAt(in->stage, 0)) {
                        m_shift[size_t(in->stage)] += y + 1 - cutAt(in->stage, 0);
                        moved = true;
                    }
                }
            }
            if (!moved)
                return true;
        }
        return false;
    }

    template <typename F> void forEachCut(int64_t first, int64_t last, F f)
    {
        last = std::min(last, m_cuts - 1);
        if (last >= m_first + m_windowSize)
            m_active = false; // reaches too far to watch
        for (int64_t k = first; m_active && k <= last; ++k)
            if (CutState* c = cut(k))
                f(k, *c);
    }

    CutState* cut(int64_t k)
    {
        if (!m_active || k < m_first || k >= m_cuts)
            return nullptr;
        if (k >= m_first + m_windowSize) {
            m_active = false; // reaches too far to watch
            return nullptr;
        }
        while (int64_t(m_window.size()) <= k - m_first) {
            m_window.emplace_back();
            m_window.back().lastEnd.assign(m_orders.size(), 0);
        }
        return &m_window[size_t(k - m_first)];
    }

    Frontier frontier(const CutState& c, int64_t k) const
    {
        Frontier f;
        f.cut = k;
        f.values = c.crossing;
        for (size_t s = 0; s < c.lastEnd.size(); ++s)
            f.values.push_back({int(s), -1, c.lastEnd[s]});
        std::sort(f.values.begin(), f.values.end());
        f.earliest = *std::min_element(c.lastEnd.begin(), c.lastEnd.end());
        for (const FrontierValue& v : f.values)
            f.latest = std::max(f.latest, v.end);
        f.usable = !c.inconsistent && f.earliest >= m_latestChunkReady;
        for (const FrontierValue& v : c.crossing)
            f.usable = f.usable && cutAt(v.stage, k) + v.offset >= base(v.stage);
        return f;
    }

    // The latest earlier cut whose frontier this one repeats a whole number of blocks later.
    std::optional<Repeat> findRepeat(const Frontier& now) const
    {
        if (!now.usable)
            return std::nullopt;

        for (auto it = m_history.rbegin(); it != m_history.rend(); ++it) {
            const Frontier& then = *it;
            if (then.cut < m_lastIrregular) // a block in between is not all steady state
                break;
            if (!then.usable)
                continue;
            if (const std::optional<double> period = sameShift(then, now))
                return Repeat{now.cut, now.cut - then.cut, 0, *period};
        }
        return std::nullopt;
    }

    // The shift from one frontier to another when every value moved by it.
    static std::optional<double> sameShift(const Frontier& a, const Frontier& b)
    {
        if (a.values.size() != b.values.size())
            return std::nullopt;
        const double tolerance = kSameShift * b.latest;
        double low = kNever, high = -kNever;
        for (size_t i = 0; i < a.values.size(); ++i) {
            const FrontierValue &x = a.values[i], &y = b.values[i];
            if (x.stage != y.stage || x.offset != y.offset)
                return std::nullopt;
            low = std::min(low, y.end - x.end);
            high = std::max(high, y.end - x.end);
            if (high - low > tolerance)
                return std::nullopt;
        }
        if (!(low > 0))
            return std::nullopt;
        return (low + high) / 2;
    }

    const std::vector<StageOrder>& m_orders;
    int64_t m_from;
    int64_t m_block;
    double m_latestChunkReady;
    std::vector<int64_t> m_shift; // per stage, positions its cuts are moved on
    int64_t m_cuts = 0;
    int64_t m_windowSize = 0;
    bool m_active = false;
    std::vector<int64_t> m_nextCut;
    std::deque<CutState> m_window; // cuts m_first, m_first + 1, ...
    int64_t m_first = 0;
    std::deque<Frontier> m_history; // the last completed cuts
    int64_t m_historySize = 0;
    int64_t m_lastIrregular = 0;
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

std::vector<ChunkMicroBatch> orderOf(int stages, int chunks, int microBatches, bool reversed)
{
    const ChunkOrder order(stages, chunks, microBatches);
    std::vector<ChunkMicroBatch> out;
    const int64_t total = int64_t(chunks) * microBatches;
    out.reserve(size_t(total));
    for (int64_t i = 0; i < total; ++i)
        out.push_back(order.at(i, reversed));
    return out;
}

} // namespace

int groupCount(int stages, int microBatches)
{
    return std::max(1, microBatches / stages);
}

int groupSize(int stages, int microBatches, int group)
{
    const int groups = groupCount(stages, microBatches);
    return microBatches / groups + (group < microBatches % groups ? 1 : 0);
}

int inFlightLimit(int stages, int chunks, int microBatches, int stage)
{
    const int64_t total = int64_t(chunks) * microBatches;
    if (chunks == 1)
        return int(std::min<int64_t>(total, stages - stage));
    const int64_t group = groupSize(stages, microBatches, 0);
    return int(std::min(total, int64_t(stages - stage - 1) * 2 + (chunks - 1) * group + 1));
}

std::vector<ChunkMicroBatch> forwardOrder(int stages, int chunks, int microBatches)
{
    return orderOf(stages, chunks, microBatches, false);
}

std::vector<ChunkMicroBatch> backwardOrder(int stages, int chunks, int microBatches)
{
    return orderOf(stages, chunks, microBatches, true);
}

PipelineSchedule simulatePipeline(const PipelineSpec& spec)
{
    return Simulator(spec).run();
}

} // namespace cs
