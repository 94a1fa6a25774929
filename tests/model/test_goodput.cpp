// Goodput: checkpoint size and cost, failures of the components in use, the checkpoint
// interval, stragglers, and what `evaluate` reports of them.

#include <cmath>
#include <sstream>
#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "costmodel.h"
#include "costmodeltests.h"
#include "goodput.h"
#include "samplefiles.h"
#include "text.h"
#include "topology.h"

using namespace cs;
using namespace costmodeltests;

namespace {

Goodput goodputOf(const ClusterRun& s)
{
    const Evaluation e = evaluate(s.cluster, s.run);
    REQUIRE(e.goodput.has_value());
    return *e.goodput;
}

// Seconds between checkpoints at the optimum.
double optimalIntervalS(const Goodput& g)
{
    return double(g.optimalIntervalSteps) * g.inputs.wallStepS();
}

GoodputInputs someInputs()
{
    GoodputInputs in;
    in.stepS = 1.0;
    in.stragglerS = 0.01;
    in.failuresPerS = 1.0 / (4 * 3600); // one failure every 4 hours
    in.recoveryS = 300;
    in.writeS = 3;
    in.hostCopyS = 0.01;
    return in;
}

} // namespace

TEST_CASE("GPT-3 175B in BF16 with Adam checkpoints about 2.4 TB, the ND H100 v5 run's figure")
{
    const Goodput g = goodputOf(ndv5());
    CHECK(g.checkpoint.bytes == Approx(2.4e12).epsilon(0.05));
    // Weights and optimizer states, 14 bytes a parameter, of the 175 billion.
    CHECK(g.checkpoint.bytes / 14 == Approx(175e9).epsilon(0.01));
}

TEST_CASE("checkpoints move at the storage's rate, never faster than the NICs that carry them")
{
    // 1 TB from 1,000 GPUs at 50 GB/s each: the 2 TB/s storage is the bound.
    CHECK(storageTransferS(1e12, 2000, 1000, 50) == Approx(0.5));
    // From 8 GPUs: their NICs (400 GB/s together) are.
    CHECK(storageTransferS(1e12, 2000, 8, 50) == Approx(2.5));
}

TEST_CASE("one rate for copies between a GPU and host memory, each way, per host link")
{
    // {gpu, GB/s to host, GB/s from host}: NVLink-C2C's 225 GB/s a GPU a direction at the
    // fractions measured on GH200 (297 and 375 of 450); PCIe Gen5 / Gen4 x16 at 80 %.
    const std::tuple<const char*, double, double> cases[] = {
        {"GB200", 148.5, 187.5}, {"GB300", 148.5, 187.5}, {"H100", 51.2, 51.2},
        {"B200", 51.2, 51.2},    {"A100", 25.6, 25.6},
    };
    for (const auto& [name, toHost, fromHost] : cases) {
        INFO(name);
        const GpuSpec gpu = *findCatalogGpu(name);
        CHECK(hostCopyGBps(gpu, HostCopy::ToHost) == Approx(toHost));
        CHECK(hostCopyGBps(gpu, HostCopy::FromHost) == Approx(fromHost));
    }
}

TEST_CASE("the components in use: the used GPUs' nodes, NVLink trays and fabric switches")
{
    ClusterDesc c = fairwater128().cluster;
    const Topology topology(c);
    const ComponentsInUse all = componentsInUse(c, c.gpuCount());
    CHECK(all.gpus == 8192);
    CHECK(all.nodes == 2048);
    CHECK(all.nvlinkSwitches == 128 * 9);
    CHECK(all.leaves == topology.switchCount(1));
    CHECK(all.spines == topology.switchCount(2));
    CHECK(all.cores == 0);

    // One rack's 64 GPUs: its 16 trays and 9 switch trays, one leaf per rail.
    const ComponentsInUse rack = componentsInUse(c, 64);
    CHECK(rack.nodes == 16);
    CHECK(rack.nvlinkSwitches == 9);
    CHECK(rack.leaves == 4);
    CHECK(rack.spines > 0);
    CHECK(rack.spines <= all.spines);

    // Four GPUs of one tray use one leaf per rail too, and nothing of another rack.
    const ComponentsInUse tray = componentsInUse(c, 4);
    CHECK(tray.nodes == 1);
    CHECK(tray.nvlinkSwitches == 9);

    // With the first rack out, the job's GPUs move to the racks after it: the same counts.
    c.failures.racks = {0};
    CHECK(componentsInUse(c, 64) == rack);
}

namespace {

// The switches of `tier` with a link from a marked switch of the tier below, on the graph.
std::vector<bool> linkedAbove(const Topology& topology, const std::vector<bool>& below, int tier)
{
    std::vector<bool> above(topology.switches().size(), false);
    for (const Link& link : topology.links())
        if (link.a.kind == EndpointKind::Switch && link.b.kind == EndpointKind::Switch &&
            below[size_t(link.a.index)] && topology.switches()[size_t(link.b.index)].tier == tier)
            above[size_t(link.b.index)] = true;
    return above;
}

// The components in use as the built graph has them: each used GPU's node, NVLink domain and
// leaf, then what the links lead to above them.
ComponentsInUse countedOnGraph(const Topology& topology, int64_t gpusUsed)
{
    const auto marked = [](const std::vector<bool>& v) {
        return int(std::count(v.begin(), v.end(), true));
    };
    std::vector<bool> nodes(topology.nodes().size()), domains(size_t(topology.domainCount()));
    std::vector<bool> leaves(topology.switches().size());
    ComponentsInUse used;
    for (size_t g = 0; g < topology.gpus().size() && used.gpus < gpusUsed; ++g) {
        if (!topology.gpuInService(int(g)))
            continue;
        ++used.gpus;
        nodes[size_t(topology.gpus()[g].node)] = true;
        domains[size_t(topology.gpus()[g].domain)] = true;
        leaves[size_t(topology.gpus()[g].leaf)] = true;
    }
    used.nodes = marked(nodes);
    if (topology.cluster().scaleUp.domain == DomainKind::Rack)
        used.nvlinkSwitches = marked(domains) * topology.nvSwitchesPerDomain();
    used.leaves = marked(leaves);
    if (used.leaves > 1) {
        const std::vector<bool> spines = linkedAbove(topology, leaves, 2);
        used.spines = marked(spines);
        if (used.spines > 1)
            used.cores = marked(linkedAbove(topology, spines, 3));
    }
    return used;
}

} // namespace

TEST_CASE("the components in use are counted on the fabric's shape as the graph wires them")
{
    // {cluster, tiers, fabric, rails, GPU count to use}: rail-optimized and fat trees of one to
    // three tiers, fewer rails than GPUs, small jobs and whole clusters, racks out of service.
    struct Case {
        const char* sample;
        int tiers;
        FabricKind kind;
        int rails;
        int64_t gpus; // 0: all
        bool firstRackOut;
    };
    const Case cases[] = {
        {"fairwater-gb200-128-llama405b.run.json", 2, FabricKind::RailOptimized, 0, 0, false},
        {"fairwater-gb200-128-llama405b.run.json", 2, FabricKind::RailOptimized, 0, 64, true},
        {"fairwater-gb200-128-llama405b.run.json", 3, FabricKind::RailOptimized, 0, 0, false},
        {"fairwater-gb200-128-llama405b.run.json", 3, FabricKind::RailOptimized, 0, 700, true},
        {"fairwater-gb200-128-llama405b.run.json", 3, FabricKind::FatTree, 0, 3000, false},
        {"fairwater-gb200-128-llama405b.run.json", 1, FabricKind::RailOptimized, 0, 0, false},
        {"ndv5-h100-1344-gpt3-175b.run.json", 2, FabricKind::RailOptimized, 0, 0, false},
        {"ndv5-h100-1344-gpt3-175b.run.json", 3, FabricKind::RailOptimized, 2, 5000, true},
        {"ndv5-h100-1344-gpt3-175b.run.json", 3, FabricKind::FatTree, 0, 8, false},
        {"ndv5-h100-1344-gpt3-175b.run.json", 2, FabricKind::FatTree, 4, 1000, false},
    };
    for (const Case& k : cases) {
        ClusterDesc c = loadSampleRun(k.sample).cluster;
        c.scaleOut.topology.tiers = k.tiers;
        c.scaleOut.topology.kind = k.kind;
        c.scaleOut.topology.rails = k.rails;
        c.scaleOut.topology.nodesPerLeaf = 0;
        c.scaleOut.topology.switchRadix = 64;
        if (k.firstRackOut)
            c.failures.racks = {0};
        const int64_t gpus = k.gpus > 0 ? k.gpus : c.healthyGpuCount();
        INFO(k.sample << ", " << k.tiers << " tiers, rails " << k.rails << ", " << gpus << " GPUs");
        const ComponentsInUse graph = countedOnGraph(Topology(c), gpus);
        CHECK(graph.leaves > 0);
        CHECK(componentsInUse(c, gpus) == graph);
    }
}

TEST_CASE("the failure rate adds every component in use over its MTBF")
{
    ComponentsInUse used;
    used.gpus = 1000;
    used.nodes = 250;
    used.leaves = 10;
    Reliability r;
    r.gpuMtbfH = 50000;
    r.nodeMtbfH = 25000;
    r.switchMtbfH = 100000;
    const FailureRate rate = failureRate(used, r);
    CHECK(rate.perHour() == Approx(1000 / 50000.0 + 250 / 25000.0 + 10 / 100000.0));
    CHECK(rate.perDay() == Approx(24 * rate.perHour()));
}

TEST_CASE("halving every MTBF lowers goodput and shortens the optimal interval by about sqrt 2")
{
    ClusterRun s = ndv5();
    s.cluster.reliability = Reliability{};
    s.run.checkpoint = Checkpoint{std::nullopt, false}; // minutes apart: whole steps are exact
    const Goodput before = goodputOf(s);
    Reliability& r = *s.cluster.reliability;
    r.gpuMtbfH /= 2;
    r.nodeMtbfH /= 2;
    r.switchMtbfH /= 2;
    const Goodput after = goodputOf(s);
    CHECK(after.failures.perDay() == Approx(2 * before.failures.perDay()));
    CHECK(after.goodput() < before.goodput());
    CHECK(optimalIntervalS(before) / optimalIntervalS(after) ==
          Approx(std::sqrt(2.0)).epsilon(0.02));
}

TEST_CASE("the automatic interval is the best of the goodput curve, a fixed one is honoured")
{
    ClusterRun s = ndv5();
    REQUIRE(s.run.checkpoint);
    const Goodput automatic = goodputOf(s);
    CHECK(automatic.intervalAuto);
    CHECK(automatic.intervalSteps() == automatic.optimalIntervalSteps);
    REQUIRE(automatic.curve.size() > 10);
    bool optimumOnCurve = false;
    for (const GoodputPoint& p : automatic.curve) {
        CHECK(p.goodput <= automatic.goodput());
        optimumOnCurve |= p.intervalSteps == automatic.optimalIntervalSteps;
    }
    CHECK(optimumOnCurve);
    for (int64_t near : {automatic.optimalIntervalSteps - 1, automatic.optimalIntervalSteps + 1})
        CHECK(goodputAt(automatic.inputs, near).goodput <= automatic.goodput());

    s.run.checkpoint->intervalSteps = 1000;
    const Goodput fixed = goodputOf(s);
    CHECK_FALSE(fixed.intervalAuto);
    CHECK(fixed.intervalSteps() == 1000);
    CHECK(fixed.goodput() < automatic.goodput());
    CHECK(fixed.optimalIntervalSteps == automatic.optimalIntervalSteps);
}

TEST_CASE("asynchronous checkpoints beat synchronous ones")
{
    ClusterRun s = fairwater128();
    s.run.checkpoint = Checkpoint{std::nullopt, false};
    const Goodput sync = goodputOf(s);
    s.run.checkpoint = Checkpoint{std::nullopt, true};
    const Goodput async = goodputOf(s);
    CHECK(async.goodput() > sync.goodput());
    CHECK(async.chosen.perStep.checkpoints < sync.chosen.perStep.checkpoints);
    // At one fixed interval too.
    for (int64_t steps : {20, 200, 2000})
        CHECK(goodputAt(async.inputs, steps).goodput > goodputAt(sync.inputs, steps).goodput);
}

TEST_CASE("an asynchronous write longer than the interval stalls the next checkpoint")
{
    GoodputInputs in = someInputs();
    in.async = true;
    in.writeS = 50;
    // 10 steps of 1.01 s: the next checkpoint waits for the rest of the 50 s write.
    const GoodputPoint p = goodputAt(in, 10);
    CHECK(p.perStep.checkpoints == Approx((in.hostCopyS + 50 - 10 * in.wallStepS()) / 10));
    CHECK(optimalIntervalSteps(in) * in.wallStepS() >= in.writeS);
}

TEST_CASE("the wall time per step adds up, and goodput is training over it")
{
    const GoodputInputs in = someInputs();
    for (int64_t steps : {1, 30, 300, 3000}) {
        const GoodputPoint p = goodputAt(in, steps);
        CHECK(p.goodput == Approx(in.stepS / p.perStep.total()).epsilon(1e-12));
        CHECK(p.perStep.training == in.stepS);
        CHECK(p.perStep.stragglers == in.stragglerS);
        double sum = 0;
        for (const TimeSplit::Part& part : p.perStep.parts())
            sum += part.seconds;
        CHECK(sum == Approx(p.perStep.total()).epsilon(1e-12));
    }
}

TEST_CASE("failures faster than a restart leave a goodput of zero")
{
    GoodputInputs in = someInputs();
    in.failuresPerS = 1.0 / 200; // a failure every 200 s, restarts take 300 s
    const GoodputPoint p = goodputAt(in, optimalIntervalSteps(in));
    CHECK(p.goodput == 0);
    CHECK(std::isinf(p.perStep.total()));
}

TEST_CASE("the expected slowest of N GPUs: known values, growing with N")
{
    CHECK(maxOfNormals(1).mean == Approx(0).margin(1e-9));
    CHECK(maxOfNormals(1).stddev == Approx(1).epsilon(1e-6));
    CHECK(maxOfNormals(2).mean == Approx(1 / std::sqrt(M_PI)).epsilon(1e-6));
    CHECK(maxOfNormals(2).stddev == Approx(std::sqrt(1 - 1 / M_PI)).epsilon(1e-6));
    // Tables of normal order statistics (Harter 1961).
    CHECK(maxOfNormals(10).mean == Approx(1.53875).epsilon(1e-5));
    CHECK(maxOfNormals(100).mean == Approx(2.50759).epsilon(1e-5));
    double previous = 0;
    for (int64_t n : {2, 8, 64, 512, 4096, 32768, 262144}) {
        const MaxOfNormals m = maxOfNormals(n);
        INFO(n);
        CHECK(m.mean > previous);
        // Between the extreme-value asymptote's leading term and below it.
        CHECK(m.mean < std::sqrt(2 * std::log(double(n))));
        previous = m.mean;
    }
    // The spread of the slowest narrows as N grows.
    CHECK(maxOfNormals(8192).stddev < maxOfNormals(64).stddev);
    CHECK(normalQuantile(0.975) == Approx(1.959964).epsilon(1e-6));
    CHECK(maxOfNormalsQuantile(1, 0.975) == Approx(1.959964).epsilon(1e-6));
}

TEST_CASE("the straggler delay grows with the GPUs of the step")
{
    double previous = 0;
    for (int64_t gpus : {8, 64, 1024, 8192, 131072}) {
        const StepVariance v = stepVariance({1.0, 0.002, gpus});
        INFO(gpus);
        CHECK(v.stragglerS > previous);
        CHECK(v.stragglerS == Approx(0.002 * maxOfNormals(gpus).mean));
        previous = v.stragglerS;
    }
}

TEST_CASE("the step-time distribution: ascending quantiles around the mean with a tail")
{
    const StepJitter jitter{1.2, 0.002, 8192};
    const StepVariance v = stepVariance(jitter, 200);
    REQUIRE(v.quantilesS.size() == 200);
    double sum = 0;
    for (size_t i = 0; i < v.quantilesS.size(); ++i) {
        if (i > 0)
            CHECK(v.quantilesS[i] > v.quantilesS[i - 1]);
        CHECK(v.quantilesS[i] > jitter.stepS);
        sum += v.quantilesS[i];
    }
    CHECK(sum / 200 == Approx(v.meanStepS()).epsilon(1e-4));
    // The slowest of many leans right: the long tail is above the mean.
    const double median = stepTimeQuantile(jitter, 0.5);
    CHECK(stepTimeQuantile(jitter, 0.999) - median > median - stepTimeQuantile(jitter, 0.001));
}

TEST_CASE("step_time_s leaves the straggler wait out, goodput and time to train add it")
{
    const ClusterRun s = fairwater128();
    const Evaluation e = evaluate(s.cluster, s.run);
    REQUIRE(e.goodput);
    REQUIRE(e.variance);
    CHECK(e.stepTimeS == Approx(e.breakdown.total()).epsilon(1e-12));
    CHECK(e.variance->jitter.stepS == e.stepTimeS);
    CHECK(e.goodput->inputs.stragglerS == e.variance->stragglerS);
    REQUIRE(e.timeToTrainS);
    CHECK(*e.goodput->timeToTrainIdealS() == Approx(*e.timeToTrainS));
    CHECK(*e.goodput->timeToTrainS() > *e.timeToTrainS);
    CHECK(*e.goodput->timeToTrainS() ==
          Approx(*e.goodput->timeToTrainIdealS() / e.goodput->goodput()).epsilon(1e-9));
    // The estimate that only ranks layouts for the search computes none of it.
    CHECK_FALSE(cs::estimate(s.cluster, s.run).goodput);
}

TEST_CASE("what the description leaves out is reported as assumed")
{
    ClusterRun s = ndv5();
    s.cluster.reliability.reset();
    s.cluster.storage.reset();
    s.run.checkpoint.reset();
    CHECK(goodputOf(s).assumed() ==
          std::vector<std::string>{"reliability", "storage", "checkpoint"});
    s.cluster.reliability = Reliability{};
    s.cluster.storage = Storage{1000, 2000};
    s.run.checkpoint = Checkpoint{};
    const Goodput g = goodputOf(s);
    CHECK(g.assumed().empty());
    CHECK(g.checkpoint.writeS == Approx(2 * g.checkpoint.readS));
}

TEST_CASE("evaluate --json carries goodput, variance and the GPU counts")
{
    std::ostringstream out, err;
    const cli::Io io{out, err};
    REQUIRE(cli::run({"evaluate", samplePath("fairwater-gb200-128.cluster.json"),
                      samplePath("fairwater-gb200-128-llama405b.run.json"), "--json"},
                     io) == cli::kExitOk);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    const nlohmann::json& g = j.at("goodput");
    for (const char* key :
         {"checkpoint_bytes", "checkpoint_write_s", "interval_steps", "failures_per_day", "goodput",
          "time_to_train_s", "time_to_train_ideal_s"})
        CHECK(g.contains(key));
    CHECK(g.at("goodput") > 0.5);
    CHECK(g.at("goodput") < 1.0);
    CHECK(g.at("time_to_train_ideal_s") == j.at("time_to_train_s"));
    double split = 0;
    for (const auto& [key, seconds] : g.at("time_to_train_split_s").items())
        split += seconds.get<double>();
    CHECK(split == Approx(g.at("time_to_train_s").get<double>()));
    const nlohmann::json& v = j.at("variance");
    CHECK(v.at("straggler_s") > 0);
    CHECK(v.at("step_stddev_s") > 0);
    CHECK(j.at("gpus_used") == 8192);
    CHECK(j.at("gpus_idle") == 0);
    CHECK(j.at("gpus_failed") == 0);

    std::ostringstream text;
    REQUIRE(cli::run({"evaluate", samplePath("fairwater-gb200-128.cluster.json"),
                      samplePath("fairwater-gb200-128-llama405b.run.json")},
                     {text, err}) == cli::kExitOk);
    CHECK(text.str().find("goodput ") != std::string::npos);
    CHECK(text.str().find("stragglers ") != std::string::npos);
}

TEST_CASE("a time to train reads in minutes under an hour, hours under two days, then days")
{
    struct Case {
        double seconds;
        const char* text;
        const char* unit;
    };
    const Case cases[] = {
        {414, "6.9 min", "min"},
        {3599, "60.0 min", "min"},
        {3600, "1.0 h", "h"},
        {47 * 3600, "47.0 h", "h"},
        {2 * 86400, "2.0 days", "days"},
        {30 * 86400, "30.0 days", "days"},
    };
    for (const Case& c : cases) {
        INFO(c.seconds);
        CHECK(cs::trainingTimeText(c.seconds) == c.text);
        CHECK(std::string(cs::trainingTimeUnit(c.seconds).name) == c.unit);
    }
}
