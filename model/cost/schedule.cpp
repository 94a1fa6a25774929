#include "schedule.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace cs {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

std::vector<ChunkMicroBatch> orderOf(int stages, int chunks, int microBatches, bool reversed)
{
    std::vector<ChunkMicroBatch> order;
    order.reserve(size_t(chunks) * size_t(microBatches));
    const int groups = groupCount(stages, microBatches);
    int first = 0;
    for (int g = 0; g < groups; ++g) {
        const int last = first + groupSize(stages, microBatches, g);
        for (int k = 0; k < chunks; ++k) {
            const int chunk = reversed ? chunks - 1 - k : k;
            for (int mb = first; mb < last; ++mb)
                order.push_back({chunk, mb});
        }
        first = last;
    }
    return order;
}

struct Step {
    bool backward = false;
    ChunkMicroBatch cm;
};

struct Candidate {
    double start = kNever;
    OpBound bound = OpBound::StepStart;
    int dependency = -1;
    double transferS = 0;
    Step step;
};

class Simulator {
public:
    explicit Simulator(const PipelineSpec& spec)
        : m_spec(spec)
        , m_p(spec.stages)
        , m_v(spec.chunks)
        , m_m(spec.microBatches)
        , m_forwardOp(size_t(m_m) * m_p * m_v, -1)
        , m_backwardOp(size_t(m_m) * m_p * m_v, -1)
        , m_stages(size_t(m_p))
    {
        const std::vector<ChunkMicroBatch> forwards = forwardOrder(m_p, m_v, m_m);
        const std::vector<ChunkMicroBatch> backwards = backwardOrder(m_p, m_v, m_m);
        for (int s = 0; s < m_p; ++s)
            m_stages[size_t(s)].sequence = stageSequence(forwards, backwards, s);
    }

    PipelineSchedule run()
    {
        PipelineSchedule out;
        const size_t total = 2 * size_t(m_m) * m_p * m_v;
        out.ops.reserve(total);
        m_ops = &out.ops;
        while (out.ops.size() < total) {
            int bestStage = -1;
            Candidate best;
            for (int s = 0; s < m_p; ++s) {
                const StageState& st = m_stages[size_t(s)];
                if (st.next >= st.sequence.size())
                    continue;
                const Candidate c = candidate(s, st.sequence[st.next]);
                if (c.start < best.start) {
                    best = c;
                    bestStage = s;
                }
            }
            if (bestStage < 0) {
                bestStage = runAhead(best);
                ++out.relaxedOrder;
            }
            commit(bestStage, best);
        }
        for (const PipelineOp& op : out.ops)
            out.makespan = std::max(out.makespan, op.end);
        return out;
    }

private:
    struct StageState {
        std::vector<Step> sequence; // the stage's 1F1B order
        size_t next = 0;
        double freeAt = 0;
        bool started = false;
    };

    // Megatron's order: warm-up forwards, then one forward and one backward in turn, then
    // the remaining backwards.
    std::vector<Step> stageSequence(const std::vector<ChunkMicroBatch>& forwards,
                                    const std::vector<ChunkMicroBatch>& backwards, int s) const
    {
        const size_t total = forwards.size();
        const size_t warmup = size_t(inFlightLimit(m_p, m_v, m_m, s) - 1);
        std::vector<Step> seq;
        seq.reserve(2 * total);
        size_t f = 0, b = 0;
        while (f < std::min(warmup, total))
            seq.push_back({false, forwards[f++]});
        while (f < total) {
            seq.push_back({false, forwards[f++]});
            seq.push_back({true, backwards[b++]});
        }
        while (b < total)
            seq.push_back({true, backwards[b++]});
        return seq;
    }

    int virtualStage(int stage, int chunk) const { return chunk * m_p + stage; }
    size_t slot(int microBatch, int vs) const { return size_t(microBatch) * m_p * m_v + vs; }

    // When the op could start, or never (kNever) while its input has not been scheduled.
    Candidate candidate(int s, const Step& step) const
    {
        const StageState& st = m_stages[size_t(s)];
        const int vs = virtualStage(s, step.cm.chunk);
        const int lastVs = m_p * m_v - 1;
        int dependency = -1;
        int from = s;
        if (!step.backward && vs > 0) {
            dependency = m_forwardOp[slot(step.cm.microBatch, vs - 1)];
            from = (vs - 1) % m_p;
        } else if (step.backward) {
            dependency = vs == lastVs ? m_forwardOp[slot(step.cm.microBatch, vs)]
                                      : m_backwardOp[slot(step.cm.microBatch, vs + 1)];
            from = vs == lastVs ? s : (vs + 1) % m_p;
        }
        const bool needsInput = step.backward || vs > 0;
        if (needsInput && dependency < 0)
            return {};
        Candidate c;
        c.start = st.freeAt;
        c.bound = st.started ? OpBound::Stage : OpBound::StepStart;
        c.step = step;
        if (dependency >= 0) {
            // Hops are numbered by their sending stage going forward.
            const int hop = step.backward ? s : from;
            const double transferS = from == s ? 0.0 : m_spec.send[size_t(hop)];
            const double ready = (*m_ops)[size_t(dependency)].end + transferS;
            if (ready > c.start) {
                c.start = ready;
                c.bound = OpBound::Dependency;
            }
            c.dependency = dependency;
            c.transferS = transferS;
        }
        if (!step.backward && !m_spec.chunkReady.empty()) {
            const double ready = m_spec.chunkReady[size_t(s * m_v + step.cm.chunk)];
            if (ready > c.start) {
                c.start = ready;
                c.bound = OpBound::ChunkReady;
            }
        }
        return c;
    }

    // No stage can run its next op: some stage runs a later op of its order whose input is
    // there (one always exists: the unscheduled op earliest in dependency order).
    int runAhead(Candidate& best)
    {
        int bestStage = -1;
        size_t bestIndex = 0;
        for (int s = 0; s < m_p; ++s) {
            StageState& st = m_stages[size_t(s)];
            for (size_t i = st.next; i < st.sequence.size(); ++i) {
                const Candidate c = candidate(s, st.sequence[i]);
                if (c.start < best.start) {
                    best = c;
                    bestStage = s;
                    bestIndex = i;
                }
                if (c.start < kNever)
                    break;
            }
        }
        if (bestStage < 0)
            throw std::logic_error("pipeline schedule cannot progress");
        StageState& st = m_stages[size_t(bestStage)];
        std::rotate(st.sequence.begin() + long(st.next), st.sequence.begin() + long(bestIndex),
                    st.sequence.begin() + long(bestIndex) + 1);
        return bestStage;
    }

    void commit(int s, const Candidate& c)
    {
        StageState& st = m_stages[size_t(s)];
        ++st.next;
        const size_t k = size_t(s * m_v + c.step.cm.chunk);
        const double duration = c.step.backward ? m_spec.backward[k] : m_spec.forward[k];
        PipelineOp op{s,
                      c.step.cm.chunk,
                      c.step.cm.microBatch,
                      c.step.backward,
                      c.start,
                      c.start + duration,
                      c.bound,
                      c.dependency,
                      c.transferS};
        const int index = int(m_ops->size());
        m_ops->push_back(op);
        (c.step.backward
             ? m_backwardOp
             : m_forwardOp)[slot(c.step.cm.microBatch, virtualStage(s, c.step.cm.chunk))] = index;
        st.freeAt = op.end;
        st.started = true;
    }

    const PipelineSpec& m_spec;
    int m_p;
    int m_v;
    int m_m;
    std::vector<int> m_forwardOp;
    std::vector<int> m_backwardOp;
    std::vector<StageState> m_stages;
    std::vector<PipelineOp>* m_ops = nullptr;
};

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
    const int total = chunks * microBatches;
    if (chunks == 1)
        return std::min(total, stages - stage);
    const int group = groupSize(stages, microBatches, 0);
    return std::min(total, (stages - stage - 1) * 2 + (chunks - 1) * group + 1);
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
