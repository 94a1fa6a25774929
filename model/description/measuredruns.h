#pragma once
// Measured training runs (*.jsonl, one published run a line; see
// ../shared/reference/validation/README.md), each turned into the cluster and run files it
// describes and read by the same code as those files, so that a row is held to every rule a
// run file is.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "description.h"
#include "diagnostics.h"

namespace cs {

struct MeasuredRun {
    std::string id;
    int line = 0;       // 1-based line in the file
    std::string family; // the row's `family`, when it has one: groups rows in reports
    ClusterDesc cluster;
    RunDesc run; // run.measured holds the measured step time
};

// Rows a file may hold: each is evaluated when the file is validated.
inline constexpr int kMaxMeasuredRuns = 10000;

// Problems are reported per row, as FILE:LINE:COLUMN for JSON syntax and FILE:LINE: /pointer
// (the row's own pointer) for a wrong value; a row with a problem is left out, the others are
// kept. Blank lines are skipped. Reading stops, said so, at a row past kMaxMeasuredRuns.
std::vector<MeasuredRun> parseMeasuredRuns(std::string_view text, const std::string& file,
                                           Diagnostics& diags);
std::vector<MeasuredRun> readMeasuredRuns(const std::string& path, Diagnostics& diags);

// Where a row's run keeps the row's `precision_recipe` (how the GEMMs scale: "mxfp8", "fp8
// per-tensor current scaling", ...), which no cost-model input names.
inline constexpr const char* kPrecisionRecipeKey = "x-precision_recipe";
// The recipe, or "" when the run has none (or not as text).
std::string precisionRecipeOf(const RunDesc& run);

// The capacity factor a row's `routing` prose gives its experts when tokens are dropped or
// padded ("token-drop: capacity factor 1.0", "drops tokens at capacity factor 1.25",
// "--moe-expert-capacity-factor 1.25"); nothing for dropless routing, which may still name a
// capacity buffer ("dropless with per-rank capacity buffer factor 4").
std::optional<double> capacityFactorOfRouting(std::string_view routing);

// One row. `where` names it in diagnostics ("FILE:LINE").
std::optional<MeasuredRun> measuredRunFromJson(const nlohmann::json& row, const std::string& where,
                                               Diagnostics& diags);

} // namespace cs
