// The split of layers over virtual pipeline stages, the embedding and the loss among them.

#include "costmodeltests.h"
#include "stagesplit.h"

using namespace cs;
using namespace costmodeltests;

TEST_CASE("126 layers on 16 x 8 virtual stages: the embedding and the loss take one each")
{
    // Llama 3.1 405B's NVFP4 recipes on GB200 and B200 (Megatron-Core's
    // account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split).
    for (const MeasuredRun& r : publicRuns()) {
        if (r.run.model.layers != 126 || r.run.parallelism.pp * r.run.parallelism.vp != 128)
            continue;
        INFO(r.id);
        const std::vector<int> split = layersPerVirtualStage(r.cluster, r.run);
        REQUIRE(split.size() == 128);
        CHECK(split.front() == 0);
        CHECK(split.back() == 0);
        CHECK(std::count(split.begin(), split.end(), 1) == 126);
        CHECK(evaluate(r.cluster, r.run).stepTimeS > 0);
        return;
    }
    FAIL("no public row runs 126 layers on 128 virtual stages");
}

TEST_CASE("126 layers on 4 x 8 virtual stages: the first and the last chunk a layer short")
{
    // Llama 3.1 405B's recipe on GB300 (pp 4, vp 8): Megatron-Core's account_for_embedding_
    // and _loss_in_pipeline_split count the embedding and the loss as a layer each, so the
    // first and the last of the 32 chunks hold 3 layers and the others 4.
    for (const MeasuredRun& r : publicRuns()) {
        if (r.run.model.layers != 126 || r.run.parallelism.pp * r.run.parallelism.vp != 32)
            continue;
        INFO(r.id);
        std::vector<int> expected(32, 4);
        expected.front() = expected.back() = 3;
        CHECK(layersPerVirtualStage(r.cluster, r.run) == expected);
        return;
    }
    FAIL("no public row runs 126 layers on 32 virtual stages");
}

TEST_CASE("layers that divide evenly among the virtual stages are split evenly, the head on top")
{
    // Megatron-Core's default, as gpt-oss's recipes run it: 36 layers on 4 stages, 9 each, the
    // last stage the heaviest with the LM head and the loss.
    for (MeasuredRun& r : publicRuns(kMoeRuns)) {
        if (r.run.model.name != "gpt-oss-120b" || r.run.parallelism.pp != 4)
            continue;
        INFO(r.id);
        CHECK(layersPerVirtualStage(r.cluster, r.run) == std::vector<int>{9, 9, 9, 9});
        const Workload w = buildWorkload(r.cluster, r.run, defaultCalibration());
        const auto stageWork = [&](int s) {
            return w.forward[w.op(s, 0)].total() + w.backward[w.op(s, 0)].total();
        };
        CHECK(stageWork(3) > 1.1 * stageWork(1));
        // One layer fewer, and the split evens the stages out by FLOPs instead.
        r.run.model.layers = 35;
        CHECK(layersPerVirtualStage(r.cluster, r.run).back() < 9);
        return;
    }
    FAIL("no measured run of gpt-oss-120b on 4 pipeline stages");
}

TEST_CASE("one virtual stage more than layers and the head: the embedding's stage holds no layer")
{
    Sample s = ndv5();
    s.run.model.layers = 14; // 16 virtual stages: embedding, 14 layers, head
    s.run.parallelism.pp = 8;
    s.run.parallelism.vp = 2;
    const std::vector<int> split = layersPerVirtualStage(s.cluster, s.run);
    REQUIRE(split.size() == 16);
    CHECK(split.front() == 0);
    CHECK(split.back() == 0);
    Diagnostics diags;
    validateClusterRun(s.cluster, s.run, diags);
    CHECK(diags.empty());
    s.run.model.layers = 13; // one stage too many even with the embedding and the head on two
    validateClusterRun(s.cluster, s.run, diags);
    CHECK(diags.contains("layers = 13 and the embedding and the loss"));
}

TEST_CASE("Megatron-Core's split from the counts: even, or the embedding and the loss a layer each")
{
    struct Case {
        int layers, chunks;
        std::vector<int> expected; // empty: no split of Megatron-Core's own, a layout is needed
    };
    const auto withEnds = [](int chunks, int each, int ends) {
        std::vector<int> split(size_t(chunks), each);
        split.front() = split.back() = ends;
        return split;
    };
    const Case cases[] = {
        {80, 20, std::vector<int>(20, 4)}, // Llama 3 70B, pp 4 x vp 5: even
        {126, 64, withEnds(64, 2, 1)},     // Llama 3.1 405B, pp 8 x vp 8 (MLPerf's configs)
        {126, 128, withEnds(128, 1, 0)},   // pp 16 x vp 8: the embedding and the loss alone
        {94, 24, withEnds(24, 4, 3)},      // Qwen3-235B, pp 8 x vp 3
        {94, 4, withEnds(4, 24, 23)},      // Qwen3-235B, pp 4
        {61, 16, {}},                      // DeepSeek-V3: a layout of its own
        {127, 64, {}},                     // neither 127 nor 129 divides
        {7, 1, {7}},
    };
    for (const Case& c : cases) {
        INFO(c.layers << " layers on " << c.chunks << " virtual stages");
        CHECK(megatronSplit(c.layers, c.chunks) == c.expected);
    }
}

TEST_CASE("126 layers on 8 x 8 virtual stages with a small vocabulary: a layer short at both ends")
{
    // The Fairwater run (MLPerf's Llama 3.1 405B: a 32,000-token vocabulary, so the LM head
    // weighs a sixth of a layer). A split by FLOPs would give 63 chunks of 2 and the head alone;
    // Megatron-Core, counting the embedding and the loss as a layer each, 1, 62 of 2, then 1.
    const Sample s = fairwater128();
    CHECK(layersPerVirtualStage(s.cluster, s.run) == [] {
        std::vector<int> split(64, 2);
        split.front() = split.back() = 1;
        return split;
    }());
}
