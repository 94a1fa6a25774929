// The pipeline simulation: terminates for any shape, keeps each stage to one op at a time,
// respects the dependencies, and matches the textbook makespan where there is one.

#include <map>
#include <tuple>

#include <catch2/catch.hpp>

#include "schedule.h"

using namespace cs;

namespace {

PipelineSpec uniform(int p, int v, int m, double f, double b, double send)
{
    PipelineSpec s;
    s.stages = p;
    s.chunks = v;
    s.microBatches = m;
    s.forward.assign(size_t(p * v), f);
    s.backward.assign(size_t(p * v), b);
    s.send.assign(size_t(p), send);
    return s;
}

// Every op once, stages never run two ops at once, inputs arrive before use.
void checkWellFormed(const PipelineSpec& spec, const PipelineSchedule& sched)
{
    const int p = spec.stages, v = spec.chunks, m = spec.microBatches;
    REQUIRE(sched.ops.size() == size_t(2 * p * v * m));
    std::map<std::tuple<bool, int, int>, const PipelineOp*> byKey; // (backward, mb, vs)
    std::vector<double> stageFree(size_t(p), 0);
    for (const PipelineOp& op : sched.ops) {
        CHECK(op.end >= op.start);
        CHECK(op.start >= stageFree[size_t(op.stage)] - 1e-12);
        stageFree[size_t(op.stage)] = op.end;
        const int vs = op.chunk * p + op.stage;
        CHECK(byKey.emplace(std::make_tuple(op.backward, op.microBatch, vs), &op).second);
        CHECK(op.end <= sched.makespan);
    }
    for (const auto& [key, op] : byKey) {
        const auto [backward, mb, vs] = key;
        const PipelineOp* input = nullptr;
        if (!backward && vs > 0)
            input = byKey.at({false, mb, vs - 1});
        if (backward)
            input = vs == p * v - 1 ? byKey.at({false, mb, vs}) : byKey.at({true, mb, vs + 1});
        if (input)
            CHECK(op->start >= input->end + (input->stage == op->stage ? 0 : spec.send[0]) - 1e-9);
    }
}

} // namespace

TEST_CASE("the schedule terminates and is well formed for many shapes")
{
    for (int p : {1, 2, 3, 4, 8}) {
        for (int v : {1, 2, 3, 5, 8}) {
            for (int m : {1, 2, 3, 5, 7, 8, 9, 13, 16, 17}) {
                INFO("pp " << p << " vp " << v << " m " << m);
                const PipelineSpec spec = uniform(p, v, m, 1.0, 2.0, 0.1);
                const PipelineSchedule sched = simulatePipeline(spec);
                checkWellFormed(spec, sched);
                // Never shorter than the busiest stage's work.
                CHECK(sched.makespan >= m * v * 3.0 - 1e-9);
                if (m >= p)
                    CHECK(sched.relaxedOrder == 0);
            }
        }
    }
}

TEST_CASE("interleaved 1F1B has the textbook bubble of p - 1 chunk slots")
{
    struct Case {
        int p, v, m;
    };
    for (const Case c : {Case{8, 12, 8}, Case{8, 12, 128}, Case{8, 1, 64}, Case{4, 5, 32},
                         Case{35, 3, 280}, Case{8, 8, 9}, Case{8, 4, 13}}) {
        INFO("pp " << c.p << " vp " << c.v << " m " << c.m);
        const PipelineSchedule sched = simulatePipeline(uniform(c.p, c.v, c.m, 1.0, 2.0, 0.0));
        CHECK(sched.makespan == Approx((c.m * c.v + c.p - 1) * 3.0));
    }
}

TEST_CASE("the heaviest stage sets the pace")
{
    PipelineSpec spec = uniform(4, 1, 16, 1.0, 2.0, 0.0);
    spec.forward[3] = 2.0;
    spec.backward[3] = 4.0;
    const PipelineSchedule sched = simulatePipeline(spec);
    CHECK(sched.makespan == Approx(16 * 6.0 + 3 * 3.0));
}

TEST_CASE("transfers between stages lengthen the step, and a chunk waits for its parameters")
{
    const PipelineSchedule without = simulatePipeline(uniform(4, 2, 8, 1.0, 2.0, 0.0));
    const PipelineSchedule with = simulatePipeline(uniform(4, 2, 8, 1.0, 2.0, 0.25));
    CHECK(with.makespan > without.makespan);

    PipelineSpec late = uniform(4, 2, 8, 1.0, 2.0, 0.0);
    late.chunkReady.assign(8, 0.0);
    late.chunkReady[0] = 5.0; // stage 0, chunk 0
    const PipelineSchedule waited = simulatePipeline(late);
    CHECK(waited.makespan == Approx(without.makespan + 5.0));
    CHECK(waited.ops.front().bound == OpBound::ChunkReady);
}

TEST_CASE("micro-batches are grouped by stages, and never in a group smaller than the stages")
{
    CHECK(groupCount(8, 64) == 8);
    CHECK(groupSize(8, 64, 0) == 8);
    CHECK(groupCount(8, 9) == 1);
    CHECK(groupSize(8, 9, 0) == 9);
    CHECK(groupCount(8, 17) == 2);
    CHECK(groupSize(8, 17, 0) == 9);
    CHECK(groupSize(8, 17, 1) == 8);
    CHECK(groupCount(8, 3) == 1);
    const std::vector<ChunkMicroBatch> order = forwardOrder(2, 2, 4);
    const std::vector<std::pair<int, int>> expected{{0, 0}, {0, 1}, {1, 0}, {1, 1},
                                                    {0, 2}, {0, 3}, {1, 2}, {1, 3}};
    REQUIRE(order.size() == expected.size());
    for (size_t i = 0; i < order.size(); ++i) {
        CHECK(order[i].chunk == expected[i].first);
        CHECK(order[i].microBatch == expected[i].second);
    }
    CHECK(backwardOrder(2, 2, 4).front().chunk == 1);
    CHECK(inFlightLimit(8, 1, 64, 0) == 8);
    CHECK(inFlightLimit(8, 1, 64, 7) == 1);
    CHECK(inFlightLimit(8, 8, 9, 0) == 72); // all of them
    CHECK(inFlightLimit(8, 8, 18, 0) == 14 + 7 * 9 + 1);
    CHECK(inFlightLimit(8, 8, 1, 0) == 8);
}

TEST_CASE("the combined 1F1B pairs every pass but the warm-up forwards and cool-down backwards",
          "[schedule]")
{
    const auto [stages, chunks, microBatches, share] = GENERATE(table<int, int, int, double>({
        {1, 1, 5, 0.8},             // the first forward and the last backward alone
        {1, 1, 1, 0},               // nothing to pair
        {4, 4, 64, 1 - 16 / 256.0}, // warm-ups 19, 17, 15, 13
        {2, 8, 32, 1 - 16 / 256.0}, // 17, 15
        {4, 4, 4, 1 - 15 / 16.0},   // 19 and 17 held to the 16 passes, 15, 13
    }));
    CHECK(pairedShare(stages, chunks, microBatches) == Approx(share));
}

TEST_CASE("the paired share is one less each stage's in-flight limit over its passes, on average",
          "[schedule]")
{
    for (int stages : {1, 2, 3, 4, 8, 16})
        for (int chunks : {1, 2, 3, 4, 8, 12})
            for (int microBatches : {1, 2, 5, 8, 9, 16, 17, 64, 256}) {
                double alone = 0;
                for (int s = 0; s < stages; ++s)
                    alone += inFlightLimit(stages, chunks, microBatches, s);
                INFO(stages << " stages, " << chunks << " chunks, " << microBatches);
                CHECK(pairedShare(stages, chunks, microBatches) ==
                      Approx(1 - alone / stages / (chunks * microBatches)));
            }
}

namespace {

// Uneven stages and chunks, uneven hops, some chunks waiting for their parameters.
PipelineSpec uneven(int p, int v, int m)
{
    PipelineSpec s;
    s.stages = p;
    s.chunks = v;
    s.microBatches = m;
    for (int i = 0; i < p * v; ++i) {
        s.forward.push_back(0.9 + 0.07 * ((i * 5) % 7));
        s.backward.push_back(1.9 + 0.11 * ((i * 3) % 5));
        s.chunkReady.push_back(i % 3 == 0 ? 0.4 : 0.0);
    }
    for (int i = 0; i < p; ++i)
        s.send.push_back(0.02 + 0.01 * (i % 4));
    return s;
}

using OpKey = std::tuple<int, int, int, bool>; // stage, chunk, micro-batch, backward

std::map<OpKey, PipelineOp> opsByKey(const PipelineSchedule& sched)
{
    std::map<OpKey, PipelineOp> ops;
    sched.forEachOp([&](const PipelineOp& op) {
        ops.emplace(OpKey{op.stage, op.chunk, op.microBatch, op.backward}, op);
        return true;
    });
    return ops;
}

// Each stage one op at a time, in its order; every input there before it is used.
void checkWellFormedSteps(const PipelineSpec& spec, const PipelineSchedule& sched)
{
    std::vector<double> stageFree(size_t(spec.stages), 0);
    int64_t ops = 0, overlapping = 0, early = 0;
    double latest = 0;
    const double tolerance = 1e-9 * sched.makespan;
    sched.forEachOp([&](const PipelineOp& op) {
        ++ops;
        overlapping += op.start < stageFree[size_t(op.stage)] - tolerance;
        stageFree[size_t(op.stage)] = op.end;
        early += op.fromStage >= 0 && op.start < op.inputEnd + op.transferS - tolerance;
        latest = std::max(latest, op.end);
        return true;
    });
    CHECK(overlapping == 0);
    CHECK(early == 0);
    CHECK(ops == 2 * int64_t(spec.stages) * spec.chunks * spec.microBatches);
    CHECK(latest == Approx(sched.makespan).epsilon(1e-12));
}

} // namespace

TEST_CASE("a steady state stored once is the schedule simulated op by op", "[schedule]")
{
    struct Shape {
        int p, v, m;
    };
    // Past the size from which a repeat is looked for; groups even and uneven, one chunk and
    // several, a repeat every micro-batch or every few.
    for (const Shape s :
         {Shape{1, 1, 70000}, Shape{2, 1, 33000}, Shape{4, 1, 17000}, Shape{8, 1, 9000},
          Shape{3, 2, 11000}, Shape{4, 3, 5500}, Shape{8, 2, 4100}, Shape{8, 4, 2077},
          Shape{5, 5, 2623}, Shape{16, 2, 2051}, Shape{12, 3, 1850}}) {
        INFO("pp " << s.p << " vp " << s.v << " m " << s.m);
        PipelineSpec spec = uneven(s.p, s.v, s.m);
        const PipelineSchedule stored = simulatePipeline(spec);
        spec.extendSteadyState = false;
        const PipelineSchedule full = simulatePipeline(spec);
        REQUIRE(full.repeats == 0);
        CHECK(stored.repeats > 0);
        CHECK(stored.ops.size() < full.ops.size() / 4);
        CHECK(stored.opCount() == full.opCount());
        CHECK(stored.makespan == Approx(full.makespan).epsilon(1e-9));
        const std::map<OpKey, PipelineOp> a = opsByKey(stored), b = opsByKey(full);
        REQUIRE(a.size() == b.size());
        const double tolerance = 1e-9 * full.makespan;
        int mismatched = 0;
        for (const auto& [key, op] : b) {
            const PipelineOp& other = a.at(key);
            // What an op waited for may differ only where its input arrived as its stage came
            // free, to the rounding of the sums that led there.
            const bool tie =
                op.fromStage >= 0 && std::abs(op.inputEnd + op.transferS - op.start) <= tolerance;
            mismatched += std::abs(other.start - op.start) > tolerance ||
                          std::abs(other.end - op.end) > tolerance ||
                          (other.bound != op.bound && !tie) || other.fromStage != op.fromStage ||
                          std::abs(other.inputEnd - op.inputEnd) > tolerance;
        }
        CHECK(mismatched == 0);
        checkWellFormedSteps(spec, stored);
    }
}

TEST_CASE("a step of a million micro-batches is a few blocks of ops and their count", "[schedule]")
{
    for (const auto& [p, v] : {std::pair{1, 1}, {4, 1}, {8, 2}}) {
        INFO("pp " << p << " vp " << v);
        const PipelineSpec spec = uneven(p, v, 1 << 20);
        const PipelineSchedule sched = simulatePipeline(spec);
        CHECK(sched.opCount() == 2 * int64_t(p) * v * (1 << 20));
        CHECK(sched.ops.size() < 20000);
        // Never faster than the busiest stage's work.
        double busiest = 0;
        for (int s = 0; s < p; ++s) {
            double work = 0;
            for (int k = 0; k < v; ++k)
                work += spec.forward[size_t(s * v + k)] + spec.backward[size_t(s * v + k)];
            busiest = std::max(busiest, work * (1 << 20));
        }
        CHECK(sched.makespan >= busiest * (1 - 1e-12));
        checkWellFormedSteps(spec, sched);
    }
}
