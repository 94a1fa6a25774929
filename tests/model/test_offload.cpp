// Activations offloaded to host memory: which layouts fit by it, and what its copies cost.

#include "costmodeltests.h"

using namespace cs;
using namespace costmodeltests;

TEST_CASE("published layouts fit their GPUs, one fits only by offloading activations as its "
          "recipe does",
          "[reference]")
{
    std::vector<MeasuredRun> runs = publicRuns();
    for (MeasuredRun& r : publicRuns(kMoeRuns))
        runs.push_back(std::move(r));
    // id, fits: MLPerf GPT-3 on H100 with micro-batch 2, Llama 3.1 405B FP8 on GB300 with no
    // recompute, Qwen3-30B on one GB300 node with micro-batch 8, Llama 3 70B FP8 on H100; and
    // Llama 3 70B on 64 GB300 with no model parallelism, which its recipe runs by offloading 20
    // layers' activations to the host (Megatron-Bridge LLAMA3_70B_GB300_FP8_CS_BASE_CONFIG).
    const std::vector<std::pair<std::string, int>> expected{
        {"mlperf_v4.1_gpt3_Oracle_1536xBM.GPU.H100.8", 0},
        {"nemo_bridge_25.11_DGX-GB300_LLAMA3.1_405B_256gpu_FP8-CS", 0},
        {"mbridge_2604_qwen3-30b_gb300_8_mxfp8", 0},
        {"nemo_bridge_25.11_DGX-H100_LLAMA3_70B_64gpu_FP8-CS", 0},
        {"nemo_bridge_25.11_DGX-GB300_LLAMA3_70B_64gpu_FP8-CS", 20},
    };
    for (const auto& [id, offloaded] : expected) {
        INFO(id);
        const auto it = std::find_if(runs.begin(), runs.end(),
                                     [&](const MeasuredRun& r) { return r.id == id; });
        REQUIRE(it != runs.end());
        CHECK(activationOffloadLayersOf(it->run) == offloaded);
        CHECK(evaluate(it->cluster, it->run).fitsMemory);
        RunDesc kept = it->run;
        kept.extensions.erase(kActivationOffloadKey);
        CHECK(evaluate(it->cluster, kept).fitsMemory == (offloaded == 0));
    }
}

TEST_CASE("an offloaded layer's copy waits only for what outlasts its window of layers",
          "[offload]")
{
    struct Case {
        double copyS, layerS;
        int layers, offloaded;
        double waitS;
    };
    // Windows of layers / offloaded layers, the remainder one more each on the first windows,
    // the first one layer short (it starts after the layer it copies).
    const Case cases[] = {
        {26.3, 10.8, 80, 20, 0},                      // 3 and then 4 layers of 10.8 hide 26.3
        {50, 10, 80, 20, (50 - 30) + 19 * (50 - 40)}, // every window too short
        {5, 1, 10, 3, 3 * (5 - 3)}, // windows 4, 3, 3: the first 3 after its layer
        {2.5, 1, 7, 3, 3 * 0.5},    // windows 3, 2, 2: 2, 2, 2
        {3, 1, 8, 7, 7 * 2},        // one layer each
        {3, 1, 8, 0, 0},            // nothing offloaded
    };
    for (const Case& c : cases) {
        INFO(c.layers << " layers, " << c.offloaded << " offloaded");
        CHECK(offloadWaitS(c.copyS, c.layerS, c.layers, c.offloaded) == Approx(c.waitS));
    }
}

TEST_CASE("offloaded activations leave the GPU, only copies longer than their window of layers "
          "cost time")
{
    const auto runs = publicRuns();
    const auto it = std::find_if(runs.begin(), runs.end(), [](const MeasuredRun& r) {
        return r.id == "nemo_bridge_25.11_DGX-GB300_LLAMA3_70B_64gpu_FP8-CS";
    });
    REQUIRE(it != runs.end());
    const int layers = it->run.model.layers;
    const auto offloading = [&](const GpuSpec& gpu, const nlohmann::json& value) {
        ClusterDesc cluster = it->cluster;
        cluster.gpu = gpu;
        RunDesc run = it->run;
        run.extensions.set(kActivationOffloadKey, value);
        return evaluate(cluster, run);
    };
    const GpuSpec& gb300 = *findCatalogGpu("GB300");
    const Evaluation none = offloading(gb300, 0);
    const Evaluation twenty = offloading(gb300, 20);
    // All but the layer in transit leave the GPU.
    CHECK(none.memory.activations - twenty.memory.activations ==
          Approx(19.0 / layers * none.memory.activations));
    CHECK(twenty.memory.weights == none.memory.weights);
    CHECK(twenty.stepTimeS >= none.stepTimeS);
    // At most all layers but one; a value that is no whole number from 0 offloads nothing.
    CHECK(offloading(gb300, 10 * layers).memory.activations ==
          Approx(offloading(gb300, layers - 1).memory.activations));
    CHECK(offloading(gb300, layers - 1).memory.activations ==
          Approx(2.0 / layers * none.memory.activations));
    for (const nlohmann::json& ignored :
         {nlohmann::json(-3), nlohmann::json("20"), nlohmann::json(20.5), nlohmann::json(true)})
        CHECK(offloading(gb300, ignored).stepTimeS == none.stepTimeS);
    // Over a Grace superchip's NVLink-C2C each copy hides under its window of four layers; over
    // PCIe (B200 boards) it outlasts them.
    const GpuSpec& b200 = *findCatalogGpu("B200");
    const double pcieCost = offloading(b200, 20).stepTimeS - offloading(b200, 0).stepTimeS;
    const double c2cCost = twenty.stepTimeS - none.stepTimeS;
    INFO("offloading 20 layers costs " << c2cCost << " s on GB300, " << pcieCost << " s on B200");
    CHECK(c2cCost == 0);
    CHECK(pcieCost > 0.1);
    checkBreakdownAddsUp(twenty);
}
