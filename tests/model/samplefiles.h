#pragma once
// Loading the shipped samples in tests.

#include <string>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "loader.h"
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

// DeepSeek-V3's shape cut to 8 layers (2 dense) on 2 GB200 NVL72 racks, data parallel only:
// an MoE run whose search is quick.
inline std::pair<cs::ClusterDesc, cs::RunDesc> smallDeepSeekV3()
{
    const cs::LoadedFile loaded = loadSample("gb200-16-deepseek-v3.run.json");
    cs::ClusterDesc cluster = *loaded.cluster;
    cluster.racks = 2;
    cs::RunDesc run = *loaded.run;
    run.model.layers = 8;
    run.model.moe->denseLayers = 2;
    run.batch.global = 256;
    run.parallelism = cs::Parallelism{};
    run.parallelism.distributedOptimizer = true;
    run.parallelism.dp = 128;
    run.placement = cs::kPlacedDims;
    return {cluster, run};
}
