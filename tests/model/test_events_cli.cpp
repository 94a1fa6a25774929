// The step's events, and evaluate, trace and validate-runs on the command line.

#include "costmodeltests.h"

using namespace cs;
using namespace costmodeltests;

TEST_CASE("events are well formed: ordered, one compute op at a time per stage, PP order kept, "
          "hidden collectives start with their op's compute")
{
    for (const Sample& s : {fairwater128(), ndv5(), sample("gb200-16-deepseek-v3.run.json")}) {
        INFO(s.run.name);
        const Evaluation e = evaluate(s.cluster, s.run);
        std::map<int, double> computeStart; // by op
        for (const Event& ev : e.events)
            if (ev.kind == EventKind::Forward || ev.kind == EventKind::Backward)
                computeStart[ev.op] = ev.start;
        std::map<Dim, int> hiddenByDim;
        for (const Event& ev : e.events) {
            if (!ev.isComm() || ev.exposed || ev.dim == Dim::DP || ev.dim == Dim::PP)
                continue;
            ++hiddenByDim[ev.dim];
            REQUIRE(computeStart.count(ev.op) == 1);
            CHECK(ev.start == computeStart.at(ev.op));
        }
        // TP is partly hidden where the run overlaps it (not Fairwater's NVFP4); the expert
        // all-to-all of the MoE sample (MXFP8 on GB200) wholly.
        CHECK((hiddenByDim[Dim::TP] > 0) ==
              (s.run.parallelism.tp > 1 &&
               tpCommOverlapOf(s.run, s.cluster.gpu, frameworkOf(s.run, s.cluster.gpu))));
        CHECK((hiddenByDim[Dim::EP] > 0) == s.run.model.moe.has_value());
        std::map<int, std::vector<const Event*>> computeByStage;
        // (forward?, micro-batch, virtual stage) -> [start, end] of its compute segments
        std::map<std::tuple<bool, int, int>, std::pair<double, double>> ops;
        const int p = s.run.parallelism.pp;
        for (const Event& ev : e.events) {
            CHECK(ev.end >= ev.start);
            CHECK(ev.start >= 0);
            CHECK(ev.end <= e.stepTimeS + 1e-12);
            const bool onStream =
                ev.kind == EventKind::Forward || ev.kind == EventKind::Backward ||
                ev.kind == EventKind::Recompute ||
                (ev.isComm() && ev.exposed &&
                 (ev.dim == cs::Dim::TP || ev.dim == cs::Dim::CP || ev.dim == cs::Dim::EP));
            if (!onStream)
                continue;
            computeByStage[ev.stage].push_back(&ev);
            const bool forward = ev.kind == EventKind::Forward;
            if (forward || ev.kind == EventKind::Backward) {
                auto& span = ops[{forward, ev.microBatch, ev.chunk * p + ev.stage}];
                span = {ev.start, ev.end};
            }
        }
        for (auto& [stage, events] : computeByStage) {
            std::sort(events.begin(), events.end(),
                      [](const Event* a, const Event* b) { return a->start < b->start; });
            for (size_t i = 1; i < events.size(); ++i)
                CHECK(events[i]->start >= events[i - 1]->end - 1e-12);
        }
        for (const auto& [key, span] : ops) {
            const auto [forward, mb, vs] = key;
            if (forward && vs > 0)
                CHECK(span.first >= ops.at({true, mb, vs - 1}).second);
            if (!forward && vs + 1 < p * s.run.parallelism.vp)
                CHECK(span.first >= ops.at({false, mb, vs + 1}).second);
        }
    }
}

TEST_CASE("evaluate and trace on the command line")
{
    const std::string cluster = samplePath("fairwater-gb200-128.cluster.json");
    const std::string run = samplePath("fairwater-gb200-128-llama405b.run.json");
    std::ostringstream out, err;
    REQUIRE(cli::runEvaluate({cluster, run, "--json"}, {out, err}) == cli::kExitOk);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    double sum = 0;
    for (const auto& [name, seconds] : j.at("breakdown").items())
        sum += seconds.get<double>();
    CHECK(sum == Approx(j.at("step_time_s").get<double>()));
    for (const char* key : {"comm_total_s", "exposed_scale_out_s", "mfu", "tokens_per_s",
                            "memory_gib_per_gpu", "fits_memory", "time_to_train_s", "error"})
        CHECK(j.contains(key));
    CHECK(j.at("comm_total_s").size() == 4);

    std::ostringstream out2, err2;
    CHECK(cli::runEvaluate({cluster}, {out2, err2}) == cli::kExitUsage);
    CHECK(cli::runEvaluate({cluster, cluster}, {out2, err2}) == cli::kExitBadInput);

    const std::string trace =
        (std::filesystem::temp_directory_path() / "clusterscope-trace-test.json").string();
    std::ostringstream out3, err3;
    REQUIRE(cli::runTrace({cluster, run, "-o", trace}, {out3, err3}) == cli::kExitOk);
    std::ifstream in(trace);
    const nlohmann::json t = nlohmann::json::parse(in);
    std::remove(trace.c_str());
    int complete = 0, names = 0;
    for (const auto& ev : t.at("traceEvents")) {
        if (ev.at("ph") == "X") {
            ++complete;
            CHECK(ev.at("dur").get<double>() >= 0);
            CHECK(ev.contains("ts"));
            CHECK(ev.contains("tid"));
        } else if (ev.at("name") == "thread_name" && ev.at("args").at("name") == "DP fabric") {
            ++names;
        }
    }
    CHECK(complete > 1000);
    CHECK(names == 8);
}

TEST_CASE("validate-runs prints every row and the MAPE, and bad rows exit 1")
{
    std::ostringstream out, err;
    const std::string publicFile =
        std::string(CS_SHARED_DIR) + "/reference/validation/public.jsonl";
    // The public rows with one broken copy of the 405B row on 16 x 8 virtual stages: only 100 of
    // its layers, which leaves stages without one even with the embedding and the loss on two.
    std::ifstream in(publicFile);
    std::string text, line, broken;
    while (std::getline(in, line)) {
        text += line + "\n";
        if (broken.empty() && line.find("\"layers\":126") != std::string::npos &&
            line.find("\"pp\":16,\"vp\":8") != std::string::npos) {
            nlohmann::json row = nlohmann::json::parse(line);
            row["id"] = "broken";
            row["model"]["layers"] = 100;
            broken = row.dump();
        }
    }
    REQUIRE_FALSE(broken.empty());
    const std::string file =
        (std::filesystem::temp_directory_path() / "cs-validate-runs.jsonl").string();
    std::ofstream(file) << text << broken << "\n";
    REQUIRE(cli::runValidateRuns({file, "--json"}, {out, err}) == cli::kExitBadInput);
    CHECK(err.str().find("cs-validate-runs.jsonl:57: /model/layers: layers = 100 and the "
                         "embedding and the loss") != std::string::npos);
    CHECK(err.str().find("(row \"broken\")") != std::string::npos);
    std::filesystem::remove(file);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    CHECK(j.at("rows").size() == 56);
    double sum = 0;
    for (const auto& r : j.at("rows")) {
        CHECK(r.at("error").get<double>() ==
              Approx(r.at("predicted_s").get<double>() / r.at("measured_s").get<double>() - 1));
        sum += std::abs(r.at("error").get<double>());
    }
    CHECK(j.at("mape").get<double>() == Approx(sum / 56));
    std::ostringstream out2, err2;
    CHECK(cli::runValidateRuns({}, {out2, err2}) == cli::kExitUsage);
    CHECK(cli::runValidateRuns({file, "--bogus"}, {out2, err2}) == cli::kExitUsage);
}
