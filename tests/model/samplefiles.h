#pragma once
// Loading the shipped samples in tests.

#include <string>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "loader.h"
#include "measuredruns.h"
#include "validation.h"
#include "writer.h"

inline std::string samplePath(const std::string& name)
{
    return std::string(CS_SAMPLES_DIR) + "/" + name;
}

// Loads a sample and fails the test with every problem printed when it does not load cleanly.
inline cs::LoadedFile loadSample(const std::string& name)
{
    cs::Diagnostics diags;
    auto loaded = cs::loadFile(samplePath(name), diags);
    INFO(diags.formatAll());
    REQUIRE(diags.empty());
    REQUIRE(loaded.has_value());
    return *loaded;
}

// A sample run file with the cluster its `cluster` path names.
inline cs::ClusterRun loadSampleRun(const std::string& runFile)
{
    const cs::LoadedFile f = loadSample(runFile);
    REQUIRE(f.cluster.has_value());
    REQUIRE(f.run.has_value());
    return {*f.cluster, *f.run};
}

// A sample session's cluster and every job on it: its run first, then its jobs.
struct SampleJobs {
    cs::ClusterDesc cluster;
    std::vector<cs::RunDesc> runs;
};
inline SampleJobs loadSampleJobs(const std::string& sessionFile)
{
    const cs::LoadedFile f = loadSample(sessionFile);
    REQUIRE(f.session.has_value());
    return {f.session->cluster, cs::sessionRuns(*f.session)};
}

// DeepSeek-V3's shape cut to 8 layers (2 dense) on 2 GB200 NVL72 racks, data parallel only:
// an MoE run whose search is quick.
inline cs::ClusterRun smallDeepSeekV3()
{
    auto [cluster, run] = loadSampleRun("gb200-16-deepseek-v3.run.json");
    cluster.racks = 2;
    run.model.layers = 8;
    run.model.moe->denseLayers = 2;
    run.batch.global = 256;
    run.parallelism = cs::Parallelism{};
    run.parallelism.distributedOptimizer = true;
    run.parallelism.dp = 128;
    run.placement = cs::kPlacedDims;
    return {cluster, run};
}

// The public measured runs, dense and with experts, as the fit and the range read them.
inline std::vector<cs::MeasuredRun> publicMeasuredRuns()
{
    std::vector<cs::MeasuredRun> rows;
    cs::Diagnostics diags;
    for (const char* file : {"public.jsonl", "moe-public.jsonl"}) {
        std::vector<cs::MeasuredRun> some = cs::readMeasuredRuns(
            std::string(CS_SHARED_DIR) + "/reference/validation/" + file, diags);
        rows.insert(rows.end(), some.begin(), some.end());
    }
    return rows;
}
