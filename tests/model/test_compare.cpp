// Two runs compared (model/report) and `clusterscope-cli compare`.

#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "clicommands.h"
#include "comparison.h"
#include "evaluationjson.h"
#include "samplefiles.h"
#include "text.h"

namespace {

cs::ClusterRun sampleRun(const std::string& run)
{
    const cs::LoadedFile f = loadSample(run);
    REQUIRE(f.cluster);
    REQUIRE(f.run);
    return {*f.cluster, *f.run};
}

cs::ClusterRun h100()
{
    return sampleRun("ndv5-h100-128-gpt3-175b.run.json");
}

cs::ClusterRun h200()
{
    return sampleRun("ndv5-h200-64-gpt3-175b.run.json");
}

bool saysThat(const cs::Comparison& c, const std::string& text)
{
    for (const std::string& f : c.findings)
        if (f.find(text) != std::string::npos)
            return true;
    return false;
}

const cs::InputDifference* differenceAt(const cs::Comparison& c, const std::string& path)
{
    for (const cs::InputDifference& d : c.differences)
        if (d.path == path)
            return &d;
    return nullptr;
}

} // namespace

TEST_CASE("compared figures are normalized per GPU and per token", "[compare]")
{
    const cs::Comparison c = cs::compareRuns(h100(), h200());
    const cs::Evaluation a = cs::evaluate(c.a.cluster, c.a.run);
    const cs::Evaluation b = cs::evaluate(c.b.cluster, c.b.run);
    REQUIRE(c.evalA.stepTimeS == a.stepTimeS); // the one evaluation, not another
    REQUIRE(c.evalB.stepTimeS == b.stepTimeS);
    CHECK(a.gpusUsed == 1024);
    CHECK(b.gpusUsed == 512);

    const cs::Figure* perGpu = c.figure("tokens_per_s_per_gpu");
    REQUIRE(perGpu);
    CHECK(perGpu->normalized);
    CHECK(perGpu->a == Approx(a.tokensPerS / 1024));
    CHECK(perGpu->b == Approx(b.tokensPerS / 512));
    REQUIRE(perGpu->ratio());
    CHECK(*perGpu->ratio() == Approx(perGpu->b / perGpu->a));
    // Tokens per step are the same batch: GPU time per token is step x GPUs / tokens.
    const double tokens = 2048.0 * 2048.0;
    const cs::Figure* perToken = c.figure("gpu_s_per_token");
    REQUIRE(perToken);
    CHECK(perToken->a == Approx(a.stepTimeS * 1024 / tokens));
    CHECK(perToken->b == Approx(b.stepTimeS * 512 / tokens));
    CHECK(c.figure("tokens_per_gpu_hour")->b == Approx(perGpu->b * 3600));
    // The H200 run is slower per step on half the GPUs, and faster per GPU.
    CHECK(c.figure("step_time_s")->b > c.figure("step_time_s")->a);
    CHECK(*perGpu->ratio() > 1.1);
    CHECK(*perGpu->ratio() < 1.4);
}

TEST_CASE("every input that differs is listed, with its JSON pointer and label", "[compare]")
{
    const cs::Comparison c = cs::compareRuns(h100(), h200());
    const auto expect = [&](const std::string& path, const nlohmann::json& a,
                            const nlohmann::json& b, const std::string& label) {
        INFO(path);
        const cs::InputDifference* d = differenceAt(c, path);
        REQUIRE(d);
        CHECK(d->a == a);
        CHECK(d->b == b);
        CHECK(d->label == label);
    };
    // The GPUs are named in the files: their catalog figures are what differs.
    expect("/cluster/gpu/name", "H100", "H200", "GPU");
    expect("/cluster/gpu/hbm_gib", 80, 141, "HBM per GPU (GiB)");
    expect("/cluster/gpu/hbm_TBps", 3.35, 4.8, "HBM bandwidth (TB/s)");
    expect("/cluster/racks", 32, 16, "racks");
    expect("/run/batch/micro", 1, 2, "micro-batch");
    expect("/run/parallelism/vp", 12, 6, "VP (virtual stages)");
    expect("/run/parallelism/dp", 32, 16, "DP"); // given in both files
    // Equal fields, names, notes and paths are not differences.
    CHECK_FALSE(differenceAt(c, "/cluster/gpu/peak_tflops/fp8"));
    CHECK_FALSE(differenceAt(c, "/run/parallelism/tp"));
    CHECK_FALSE(differenceAt(c, "/run/name"));
    CHECK_FALSE(differenceAt(c, "/cluster/notes"));
    CHECK_FALSE(differenceAt(c, "/run/cluster"));
    CHECK(c.differences.front().path == "/cluster/gpu/name");

    // Any field of either description counts, including one only one side has.
    cs::ClusterRun x = h100(), y = h100();
    y.cluster.scaleOut.topology.routing = cs::Routing::Ecmp;
    y.run.parallelism.dp = 0; // derived: still 32, no difference
    y.run.trainingSteps = 100;
    const auto differences = cs::inputDifferences(x, y);
    REQUIRE(differences.size() == 2);
    CHECK(differences[0].path == "/cluster/scale_out/topology/routing");
    CHECK(differences[0].a.is_null());
    CHECK(differences[0].b == "ecmp");
    CHECK(differences[1].path == "/run/training/steps");
    CHECK(cs::inputDifferences(x, x).empty());
}

TEST_CASE("the breakdown deltas add up to the step-time difference", "[compare]")
{
    for (const auto& [a, b] : {std::pair{h100(), h200()},
                               std::pair{sampleRun("fairwater-gb200-112-llama405b.run.json"),
                                         sampleRun("fairwater-gb200-128-llama405b.run.json")}}) {
        const cs::Comparison c = cs::compareRuns(a, b);
        double delta = 0, deltaPerToken = 0, sumA = 0;
        for (const cs::BreakdownRow& r : c.breakdown) {
            delta += r.delta();
            deltaPerToken += r.deltaPerToken();
            sumA += r.a;
        }
        CHECK(sumA == Approx(c.evalA.stepTimeS));
        CHECK(delta == Approx(c.evalB.stepTimeS - c.evalA.stepTimeS).margin(1e-12));
        CHECK(deltaPerToken == Approx(c.figure("gpu_s_per_token")->difference()).margin(1e-15));
        const nlohmann::json j = cs::comparisonJson(c);
        double jsonDelta = 0;
        for (const auto& [key, value] : j.at("breakdown_delta").items())
            jsonDelta += value.get<double>();
        CHECK(jsonDelta ==
              Approx(j["b"]["step_time_s"].get<double>() - j["a"]["step_time_s"].get<double>())
                  .margin(1e-12));
    }
}

TEST_CASE("most of the H200's gain is a layout that fits the H100 too", "[compare]")
{
    const cs::Comparison c = cs::compareRuns(h100(), h200());
    REQUIRE(c.whatIfs.size() == 2);
    const cs::WhatIf& gpuOnly = c.whatIfs[0];
    const cs::WhatIf& layoutOnH100 = c.whatIfs[1];
    REQUIRE(gpuOnly.valid);
    REQUIRE(layoutOnH100.valid);
    const double a = c.figure("tokens_per_s_per_gpu")->a;
    // The H100's layout gains from the H200's faster HBM (weights read per micro-batch, the
    // optimizer), the H200's own layout more than as much again ...
    CHECK(gpuOnly.tokensPerSPerGpu > a);
    CHECK(c.figure("tokens_per_s_per_gpu")->b / gpuOnly.tokensPerSPerGpu > 1.05);
    // ... which fits the H100's 80 GiB (NVIDIA's GPT-3 runs on H100 use micro-batch 2 on the
    // same TP 4 x PP 8: validation rows nemo_2407_GPT3-175B_512gpu and MLPerf v4.1) and gains
    // there too.
    CHECK(layoutOnH100.fitsMemory);
    CHECK(layoutOnH100.tokensPerSPerGpu / a > 1.1);
    CHECK(saysThat(c, "B's layout on A's H100 would run"));
    // Micro-batch 2 is the choice worth most, one input at a time.
    const cs::WhatIf* micro = nullptr;
    for (const cs::WhatIf& w : c.oneAtATime)
        if (w.path == "/run/batch/micro")
            micro = &w;
    REQUIRE(micro);
    REQUIRE(micro->valid);
    CHECK(c.figure("tokens_per_s_per_gpu")->b / micro->tokensPerSPerGpu > 1.1);
}

TEST_CASE("a layout only the H200's memory holds is said so", "[compare]")
{
    cs::ClusterRun b = h200();
    b.run.batch.micro = 4;
    const cs::Comparison c = cs::compareRuns(h100(), b);
    REQUIRE(c.whatIfs.size() == 2);
    const cs::WhatIf& layoutOnH100 = c.whatIfs[1];
    REQUIRE(layoutOnH100.valid);
    CHECK_FALSE(layoutOnH100.fitsMemory);
    CHECK(layoutOnH100.memoryGiBPerGpu > h100().cluster.gpu.hbmGiB);
    CHECK(c.evalB.fitsMemory);
    CHECK(saysThat(c, "does not fit the 80 GiB of the H100; the H200's 141 GiB allow it"));
    CHECK_FALSE(saysThat(c, "B's layout on A's H100 would run"));
}

TEST_CASE("one input of a section only A has takes A's whole section", "[compare]")
{
    // The H100 sample sets storage (read and write, both required); the H200 one has none.
    const cs::Comparison c = cs::compareRuns(h100(), h200());
    int storage = 0;
    for (const cs::WhatIf& w : c.oneAtATime) {
        if (w.path.rfind("/cluster/storage/", 0) != 0)
            continue;
        INFO(w.label << ": " << w.why);
        CHECK(w.valid);
        ++storage;
    }
    CHECK(storage == 2);
}

TEST_CASE("the run extensions the cost model reads are inputs, other x- keys are not",
          "[compare][moe]")
{
    cs::ClusterRun a = sampleRun("gb200-16-deepseek-v3.run.json");
    cs::ClusterRun b = a;
    b.run.extensions.set("x-moe_a2a_overlap", false);
    b.run.extensions.set("x-my_tool_note", "kept, not an input");
    const cs::Comparison c = cs::compareRuns(a, b);
    REQUIRE(c.differences.size() == 1);
    CHECK(c.differences.front().path == "/run/x-moe_a2a_overlap");
    CHECK(c.differences.front().label == "all-to-all overlap");
    REQUIRE(c.oneAtATime.size() == 1);
    const cs::WhatIf& w = c.oneAtATime.front(); // B without the key: A's default, the overlap
    INFO(w.why);
    REQUIRE(w.valid);
    CHECK(w.tokensPerSPerGpu == Approx(c.evalA.tokensPerS / double(c.evalA.gpusUsed)));

    // Every one of them, listed in the table's order under its label.
    cs::ClusterRun all = a;
    for (const cs::ModelExtension& e : cs::kModelExtensions)
        all.run.extensions.set(e.key, e.key == std::string(cs::kFrameworkKey)
                                          ? nlohmann::json("megatron-core-2025")
                                          : nlohmann::json(false));
    const cs::Comparison every = cs::compareRuns(a, all);
    REQUIRE(every.differences.size() == std::size(cs::kModelExtensions));
    for (size_t i = 0; i < every.differences.size(); ++i) {
        CHECK(every.differences[i].path == std::string("/run/") + cs::kModelExtensions[i].key);
        CHECK(every.differences[i].label == cs::kModelExtensions[i].label);
    }
}

TEST_CASE("compare on the command line", "[compare][cli]")
{
    const std::vector<std::string> args{
        samplePath("ndv5-h100-128.cluster.json"), samplePath("ndv5-h100-128-gpt3-175b.run.json"),
        samplePath("ndv5-h200-64.cluster.json"), samplePath("ndv5-h200-64-gpt3-175b.run.json")};
    std::ostringstream out, err;
    std::vector<std::string> withJson = args;
    withJson.push_back("--json");
    REQUIRE(cs::cli::runCompare(withJson, {out, err}) == cs::cli::kExitOk);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    const cs::ClusterRun a = h100();
    // `a` is what evaluate --json prints for A.
    std::ostringstream evaluated, evaluateErr;
    REQUIRE(cs::cli::run({"evaluate", args[0], args[1], "--json"}, {evaluated, evaluateErr}) ==
            cs::cli::kExitOk);
    CHECK(j.at("a") == nlohmann::json::parse(evaluated.str()));
    CHECK(j.at("a").at("uncertainty").at("basis") == cs::kMaxBasis);
    const auto& perGpu = j.at("normalized").at("tokens_per_s_per_gpu");
    REQUIRE(perGpu.size() == 2);
    CHECK(j.at("normalized").at("ratio").get<double>() ==
          Approx(perGpu[1].get<double>() / perGpu[0].get<double>()));
    bool hbm = false;
    for (const auto& d : j.at("differences")) {
        CHECK(d.contains("path"));
        CHECK(d.contains("a"));
        CHECK(d.contains("b"));
        hbm |= d["path"] == "/cluster/gpu/hbm_gib";
    }
    CHECK(hbm);
    CHECK(j.at("breakdown_delta").contains("compute"));

    std::ostringstream text, err2;
    REQUIRE(cs::cli::runCompare(args, {text, err2}) == cs::cli::kExitOk);
    CHECK_THAT(text.str(), Catch::Contains("tokens per second per GPU"));
    CHECK_THAT(text.str(), Catch::Contains("HBM per GPU (GiB)"));
    CHECK_THAT(text.str(), Catch::Contains("notes: 64 ND H200 v5 VMs"));

    std::ostringstream out3, err3;
    CHECK(cs::cli::runCompare({args[0], args[1]}, {out3, err3}) == cs::cli::kExitUsage);
    CHECK(cs::cli::runCompare({args[0], args[1], args[2], args[2]}, {out3, err3}) ==
          cs::cli::kExitBadInput);
}

TEST_CASE("errors and differences read as one signed percentage everywhere")
{
    struct Case {
        double fraction;
        const char* text;
    };
    const Case cases[] = {
        {0.049, "+4.9 %"},    {-0.0083, "-0.8 %"}, {0, "+0.0 %"},
        {0.68157, "+68.2 %"}, {-0.5, "-50.0 %"},
    };
    for (const Case& c : cases) {
        INFO(c.fraction);
        CHECK(cs::signedPercentText(c.fraction) == c.text);
    }
}
