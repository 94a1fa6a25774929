#pragma once
// A measured profile as `import trace --json` prints it (formats.md): `ranks` (each `rank`,
// `file`, `steps` with `name`, `duration_s`, `kernel_s` by kind, `exposed_comm_s`, `idle_s`),
// `totals` per rank (`kernel_s` by kind, `compute_busy_s`), `step_time_s`, `slowest_rank`,
// `alignment`; with a run, `measured_breakdown` beside the prediction's `breakdown`.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "profilemapping.h"

namespace cs {

nlohmann::json profileJson(const MeasuredProfile& profile);

// A profile back from profileJson's object (a session keeps it, so that a presentation opens
// without the traces): every figure but the kernels. Nothing, with the problem at `pointer` of
// `file`, when the object is not one.
std::optional<MeasuredProfile> profileFromJson(const nlohmann::json& j, const std::string& file,
                                               const std::string& pointer, Diagnostics& diags);

// Adds `groups`, `measured_breakdown`, `predicted_rank_breakdown`, `breakdown` (the
// evaluation's), `comparison` and `summary` to profileJson's object.
void addComparisonJson(nlohmann::json& j, const ProfileComparison& run,
                       const Evaluation& evaluation);

// PerKernelKind seconds as an object keyed by kind.
nlohmann::json kernelSecondsJson(const PerKernelKind<double>& seconds);

} // namespace cs
