// The cost model against the published figures of the reference systems and the measured
// runs, and properties any sound model keeps.

#include "costmodeltests.h"

using namespace cs;
using namespace costmodeltests;

TEST_CASE("Fairwater, 128 racks: step time, exposed scale-out, weak scaling")
{
    const Sample s = fairwater128();
    const Evaluation e = evaluate(s.cluster, s.run);
    CHECK(e.stepTimeS == Approx(1.2712).epsilon(0.05));
    const double exposedShare = e.exposedScaleOutS / e.stepTimeS;
    CHECK(exposedShare >= 0.005);
    CHECK(exposedShare <= 0.03);
    CHECK(e.fitsMemory);
    CHECK(e.memoryGiBPerGpu < s.cluster.gpu.hbmGiB);
    REQUIRE(e.timeToTrainS.has_value());
    CHECK(*e.timeToTrainS == Approx(330 * e.stepTimeS));
    // TP, CP and PP stay on NVLink inside the rack; only DP crosses the fabric.
    for (const Event& ev : e.events) {
        if (ev.isComm() &&
            (ev.dim == cs::Dim::TP || ev.dim == cs::Dim::CP || ev.dim == cs::Dim::PP))
            CHECK(ev.link == LinkClass::NVLink);
        if (ev.isComm() && ev.dim == cs::Dim::DP)
            CHECK(isScaleOut(ev.link));
    }

    const Sample s112 = fairwater112();
    const double efficiency = step(s112.cluster, s112.run) / e.stepTimeS;
    CHECK(efficiency >= 0.99);
}

TEST_CASE("ND H100 v5, 10,752 GPUs: GPT-3 175B step time")
{
    const Sample s = ndv5();
    const Evaluation e = evaluate(s.cluster, s.run);
    CHECK(e.stepTimeS == Approx(0.945).epsilon(0.08));
    // The VM layer's 1.5 % is on the step.
    CHECK(e.breakdown.overhead == Approx(0.015 / 1.015 * e.stepTimeS));
    checkBreakdownAddsUp(e);
}

// Rows the model does not explain, each with the range of its error: a change that explains one
// (or moves it further) shows here.
const std::map<std::string, std::pair<double, double>> kUnexplainedRows = {
    // Megatron-Bridge LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_CS: Megatron FSDP with
    // cpu_offloading_num_layers = 20 (scripts/performance/configs/llama/
    // llama3_workload_base_configs.py). The same recipe takes 14 % less time from the
    // 26.02.01 container on (6.25 s against 7.25 s), where the model is within 5 % of it
    // (docs/cost-model.md, "Accuracy").
    {"nemo_bridge_25.11_DGX-GB300_LLAMA3_70B_64gpu_FP8-CS", {-0.20, -0.16}},
};

// Since the GEMMs are timed from their shapes with one efficiency per architecture, and
// constants that one model family alone informs are no longer fitted (issue 36: the A100's,
// which only GPT-3 measures, and NVFP4's, which only Llama 3 does), the dense rows carry
// 5.1 % (3.7 % before) and the A100 and B200 rows up to 17 % (docs/cost-model.md, "Accuracy").

TEST_CASE("public measured runs: MAPE at most 5.5 %, no row off by more than 18 % but one "
          "unexplained")
{
    double sum = 0;
    const auto runs = publicRuns();
    for (const MeasuredRun& r : runs) {
        const double error = step(r.cluster, r.run) / r.run.measured->stepTimeS - 1;
        INFO(r.id << " error " << error);
        if (const auto outlier = kUnexplainedRows.find(r.id); outlier != kUnexplainedRows.end()) {
            CHECK(error >= outlier->second.first);
            CHECK(error <= outlier->second.second);
        } else {
            CHECK(std::abs(error) <= 0.18);
        }
        sum += std::abs(error);
    }
    CHECK(sum / double(runs.size()) <= 0.055);
}

TEST_CASE("measured runs with experts: MAPE at most 10 %")
{
    const auto runs = publicRuns(kMoeRuns);
    REQUIRE(runs.size() == 94);
    double sum = 0;
    for (const MeasuredRun& r : runs)
        sum += std::abs(step(r.cluster, r.run) / r.run.measured->stepTimeS - 1);
    CHECK(sum / double(runs.size()) <= 0.10);
}

TEST_CASE("the analytical path agrees with the event simulation within 2 %")
{
    std::vector<std::tuple<std::string, ClusterDesc, RunDesc>> cases;
    for (const Sample& s : {fairwater128(), fairwater112(), ndv5()})
        cases.emplace_back(s.run.name, s.cluster, s.run);
    for (const MeasuredRun& r : publicRuns())
        cases.emplace_back(r.id, r.cluster, r.run);
    for (const auto& [name, cluster, run] : cases) {
        INFO(name);
        const Evaluation fast = cs::estimate(cluster, run);
        const Evaluation full = evaluate(cluster, run);
        CHECK(fast.events.empty());
        CHECK_FALSE(full.events.empty());
        CHECK(fast.stepTimeS == Approx(full.stepTimeS).epsilon(0.02));
        checkBreakdownAddsUp(fast);
        checkBreakdownAddsUp(full);
        CHECK(fast.memoryGiBPerGpu == full.memoryGiBPerGpu);
    }
}

TEST_CASE("an evaluation without its timeline has the same figures, and no events")
{
    std::vector<std::tuple<std::string, ClusterDesc, RunDesc>> cases;
    for (const Sample& s : {fairwater128(), ndv5(), sample("gb200-16-deepseek-v3.run.json")})
        cases.emplace_back(s.run.name, s.cluster, s.run);
    for (const MeasuredRun& r : publicRuns())
        cases.emplace_back(r.id, r.cluster, r.run);
    for (const auto& [name, cluster, run] : cases) {
        INFO(name);
        const Evaluation full = evaluate(cluster, run);
        const Evaluation figures = evaluate(cluster, run, {nullptr, false});
        CHECK_FALSE(full.events.empty());
        CHECK(figures.events.empty());
        CHECK(figures.stepTimeS == full.stepTimeS);
        const auto parts = full.breakdown.parts(), same = figures.breakdown.parts();
        for (size_t i = 0; i < parts.size(); ++i)
            CHECK(parts[i].seconds == same[i].seconds);
        CHECK(figures.commTotalS.values == full.commTotalS.values);
        CHECK(figures.exposedScaleOutS == full.exposedScaleOutS);
        CHECK(figures.mfu == full.mfu);
        CHECK(figures.memoryGiBPerStage == full.memoryGiBPerStage);
    }
}

TEST_CASE("more bandwidth never slows a step")
{
    for (const Sample& s : {fairwater128(), ndv5()}) {
        INFO(s.run.name);
        for (bool events : {true, false}) {
            const double base = step(s.cluster, s.run, events);
            ClusterDesc nvlink = s.cluster;
            nvlink.scaleUp.GBpsPerGpu *= 2;
            CHECK(step(nvlink, s.run, events) <= base);
            ClusterDesc nic = s.cluster;
            nic.scaleOut.GbpsPerGpu *= 2;
            CHECK(step(nic, s.run, events) < base); // DP crosses the fabric in both
            ClusterDesc slowNic = s.cluster;
            slowNic.scaleOut.GbpsPerGpu /= 4;
            CHECK(step(slowNic, s.run, events) > base);
            // Oversubscription slows only traffic that crosses the boundary beyond what its
            // uplinks carry; these data-parallel rings leave each leaf on a few flows, so it
            // never speeds them up (test_fabric.cpp has the traffic it slows).
            ClusterDesc oversubscribed = s.cluster;
            oversubscribed.scaleOut.topology.oversubscription = {2.0};
            CHECK(step(oversubscribed, s.run, events) >= base);
            ClusterDesc hashed = s.cluster;
            hashed.scaleOut.topology.routing = Routing::Ecmp;
            CHECK(step(hashed, s.run, events) >= base);
        }
    }
}

TEST_CASE("doubling GPUs at constant work per GPU barely moves the step")
{
    const Sample s = sample("ndv5-h100-128-gpt3-175b.run.json");
    ClusterDesc doubled = s.cluster;
    doubled.racks *= 2;
    RunDesc run = s.run;
    run.parallelism.dp *= 2;
    run.batch.global *= 2;
    const double before = step(s.cluster, s.run);
    const double after = step(doubled, run);
    CHECK(after >= before);
    CHECK(after / before < 1.02);
}

TEST_CASE("a 405B model on one node with no model parallelism does not fit")
{
    Sample s = fairwater128();
    ClusterDesc node = s.cluster;
    node.racks = 1;
    node.nodesPerRack = 2;
    RunDesc run = s.run;
    run.parallelism = Parallelism{};
    run.parallelism.dp = 8;
    run.batch = {8, 1};
    const Evaluation e = evaluate(node, run);
    CHECK_FALSE(e.fitsMemory);
    CHECK(e.memoryGiBPerGpu > 1000);
    CHECK(s.cluster.gpu.hbmGiB < e.memoryGiBPerGpu);
}

TEST_CASE("recompute trades memory for time")
{
    const Sample s = fairwater128();
    RunDesc selective = s.run;
    selective.parallelism.recompute = Recompute::of(cs::RecomputeMode::Selective);
    RunDesc full = s.run;
    full.parallelism.recompute = Recompute::of(cs::RecomputeMode::Full);
    const Evaluation none = evaluate(s.cluster, s.run);
    const Evaluation sel = evaluate(s.cluster, selective);
    const Evaluation all = evaluate(s.cluster, full);
    CHECK(none.breakdown.recompute == 0);
    CHECK(sel.breakdown.recompute > 0);
    CHECK(all.breakdown.recompute > sel.breakdown.recompute);
    CHECK(all.stepTimeS > sel.stepTimeS);
    CHECK(sel.stepTimeS > none.stepTimeS);
    CHECK(all.memoryGiBPerGpu < sel.memoryGiBPerGpu);
    CHECK(sel.memoryGiBPerGpu < none.memoryGiBPerGpu);
}
