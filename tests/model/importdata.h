#pragma once
// The import tests' inputs (tests/data/imports/) and what they share: reading them, building one
// from text, and comparing an imported run with a sample's.

#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "description.h"
#include "importreport.h"
#include <nlohmann/json.hpp>

#include "loader.h"

// An import's run (nothing when refused) and what it reported.
struct Imported {
    std::optional<nlohmann::json> run;
    cs::ImportReport report;
};

inline std::string importPath(const std::string& name)
{
    return std::string(CS_TEST_DATA_DIR) + "/imports/" + name;
}

inline cs::SourceText importSource(const std::string& name)
{
    cs::ImportReport report;
    auto source = cs::readSource(importPath(name), report);
    INFO(report.errors.formatAll());
    REQUIRE(source);
    return *source;
}

// True when some diagnostic's formatted line contains every one of the texts.
inline bool hasLine(const cs::Diagnostics& diags, std::initializer_list<std::string> texts)
{
    for (const cs::Diagnostic& d : diags.items()) {
        const std::string line = d.format();
        bool all = true;
        for (const std::string& t : texts)
            all = all && line.find(t) != std::string::npos;
        if (all)
            return true;
    }
    return false;
}

// The layout of two runs: the model (its name aside), precision, batch, parallelism, placement.
inline void requireSameLayout(const cs::RunDesc& imported, const cs::RunDesc& sample)
{
    cs::ModelShape model = imported.model;
    model.name = sample.model.name;
    CHECK(model == sample.model);
    CHECK(imported.precision == sample.precision);
    CHECK(imported.batch == sample.batch);
    CHECK(imported.parallelism == sample.parallelism);
    CHECK(imported.placement == sample.placement);
}

// An imported run as the loader reads it; the test fails with the problems when it does not load.
inline cs::RunDesc loadedRun(const nlohmann::json& run)
{
    cs::Diagnostics diags;
    auto r = cs::runFromJson(run, "imported.run.json", "", diags);
    INFO(diags.formatAll() << run.dump(2));
    REQUIRE(r);
    return *r;
}

// `text` `times` over: the runaway inputs of the hostile tests.
inline std::string repeated(const std::string& text, size_t times)
{
    std::string out;
    out.reserve(text.size() * times);
    for (size_t i = 0; i < times; ++i)
        out += text;
    return out;
}
