// validateClusterRun (the edit path) holds descriptions built in memory to the rules of the
// files, including values a file cannot even express; found by fuzz/fuzz_validation.cpp.

#include <catch2/catch.hpp>

#include <cmath>

#include "samplefiles.h"
#include "validation.h"

using namespace cs;

namespace {

struct Edited {
    ClusterDesc cluster = *loadSample("fairwater-gb200-128.cluster.json").cluster;
    RunDesc run = *loadSample("fairwater-gb200-128-llama405b.run.json").run;
};

// The one diagnostic of an edit, as "pointer: message".
std::string problemOf(const Edited& e)
{
    Diagnostics diags;
    validateClusterRun(e.cluster, e.run, diags);
    INFO(diags.formatAll());
    REQUIRE(diags.size() == 1);
    return diags.items()[0].pointer + ": " + diags.items()[0].message;
}

} // namespace

TEST_CASE("the samples pass the edit rules as they are", "[validation][edit]")
{
    const Edited e;
    Diagnostics diags;
    validateClusterRun(e.cluster, e.run, diags);
    INFO(diags.formatAll());
    CHECK(diags.empty());
}

TEST_CASE("a catalog GPU edited away from the catalog has its figures checked",
          "[validation][edit]")
{
    // Written by name only, the NaN would pass unseen and reach the cost model.
    Edited e;
    REQUIRE(e.cluster.gpuByName);
    e.cluster.gpu.peakTflopsBf16 = std::nan("");
    CHECK(problemOf(e) == "/cluster/gpu/peak_tflops/bf16: must be a finite number");
}

TEST_CASE("automatic values are 0, negative ones are refused as a file's would be",
          "[validation][edit]")
{
    Edited e;
    SECTION("layout rows")
    {
        e.cluster.layoutRows = -5;
        CHECK(problemOf(e) == "/cluster/layout/rows: must be between 1 and 128, got -5");
    }
    SECTION("dp")
    {
        e.run.parallelism.dp = -1;
        CHECK(problemOf(e) == "/run/parallelism/dp: must be between 1 and 131072, got -1");
    }
}
