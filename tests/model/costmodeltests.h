#pragma once
// What the cost model's tests share: the reference samples as cluster and run, the public
// measured runs, and checks every evaluation keeps.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "calibration.h"
#include "clicommands.h"
#include "costmodel.h"
#include "extensions.h"
#include "measuredruns.h"
#include "rates.h"
#include "samplefiles.h"
#include "validation.h"
#include "workload.h"

namespace costmodeltests {

using namespace cs;

// A sample run file with the cluster its `cluster` path names (samplefiles.h).
using Sample = ClusterRun;

inline Sample sample(const std::string& runFile)
{
    return loadSampleRun(runFile);
}

inline Sample fairwater128()
{
    return sample("fairwater-gb200-128-llama405b.run.json");
}
inline Sample fairwater112()
{
    return sample("fairwater-gb200-112-llama405b.run.json");
}
inline Sample ndv5()
{
    return sample("ndv5-h100-1344-gpt3-175b.run.json");
}

constexpr const char* kDenseRuns = "public.jsonl";
constexpr const char* kMoeRuns = "moe-public.jsonl";

inline std::vector<MeasuredRun> publicRuns(const char* file = kDenseRuns)
{
    Diagnostics diags;
    auto runs =
        readMeasuredRuns(std::string(CS_SHARED_DIR) + "/reference/validation/" + file, diags);
    INFO(diags.formatAll());
    REQUIRE(diags.empty());
    return runs;
}

inline void checkBreakdownAddsUp(const Evaluation& e)
{
    CHECK(e.breakdown.total() == Approx(e.stepTimeS).epsilon(1e-12));
    for (const cs::Breakdown::Part& part : e.breakdown.parts()) {
        INFO(part.key);
        CHECK(part.seconds >= 0);
    }
}

inline double step(const ClusterDesc& c, const RunDesc& r, bool events = true)
{
    return (events ? evaluate(c, r) : cs::estimate(c, r)).stepTimeS;
}

} // namespace costmodeltests
