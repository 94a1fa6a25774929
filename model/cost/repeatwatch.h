#pragma once
// Watching a pipeline's steady state for a block of ops that repeats, so that a step of a
// million micro-batches is simulated in a few blocks (schedule.cpp). Internal to the simulation.
//
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

#include <algorithm>
#include <deque>
#include <optional>
#include <vector>

#include "stageorder.h"

namespace cs::pipeline {

inline constexpr double kSameShift = 1e-12;

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

} // namespace cs::pipeline
