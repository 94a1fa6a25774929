#pragma once
// The order in which each pipeline stage runs its ops (Megatron's interleaved 1F1B), as
// arithmetic rather than lists: what the schedule's simulation (schedule.cpp) and its watch for
// a repeating steady state (repeatwatch.h) walk. Internal to the simulation.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "schedule.h"

namespace cs::pipeline {

inline constexpr double kNever = std::numeric_limits<double>::infinity();
// Orders of up to this many chunk forwards are tabulated.
inline constexpr int64_t kTabulatedOrder = int64_t(1) << 16;

inline int64_t floorDiv(int64_t a, int64_t b)
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
std::optional<OpAt> inputOf(int stages, int chunks, int s, const Step& step);

} // namespace cs::pipeline
