#pragma once
// A measured profile as a session keeps it, under the extension key kMeasuredProfileKey: the
// figures `import trace --json` prints (cs::profileJson) and, in each step, what the window's
// comparison needs besides (the exposed communication by process group, the communication busy
// time). Each process group is stored once (`process_groups`; each rank lists its own by index
// in `groups`), and a profile of more than 16,384 steps over all ranks keeps each rank's median
// step only (`steps_kept`: "median"), so that a session of 10,000 ranks stays within a
// session's limits. The kernels stay in the traces: a session opens, and a presentation shows
// the profile, without them. What the timeline draws of them is kept instead: the measured lane
// of each stage (`measured_lanes`: `stage`, `rank`, `step`, `step_s`, and `intervals` as
// [start_s, duration_s, kind, group], kind "compute", "idle" or the kernel kind of a
// communication interval, group an index in the rank's `groups`; measuredlanes.h). A session
// saved before lanes were kept has none: its timeline draws no measured lane.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "profile.h"

inline constexpr const char* kMeasuredProfileKey = "x-measured_profile";

// What a session stores of a profile (no kernels).
nlohmann::json storedProfileJson(const cs::MeasuredProfile& profile);

// The profile back from storedProfileJson's object, with its figures and without kernels;
// nothing, with *error saying where and what is wrong, when the object is not one.
std::optional<cs::MeasuredProfile> storedProfileFrom(const nlohmann::json& stored,
                                                     std::string* error);
