#pragma once
// What a measured row's software set, as the run extensions the cost model reads
// (docs/formats.md, "Extensions the cost model reads"): the framework era its source names, and
// the switches of the Megatron-Bridge recipe of its container, model and GPU, or of the software
// its source names (AutoModel, the Model Zoo, MLPerf).

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace cs {

// A string member of an object, or "" when it is missing or not a string; and the same of a
// member object, object[member][key].
std::string rowString(const nlohmann::json& object, const char* key);
std::string rowString(const nlohmann::json& object, const char* member, const char* key);

// Adds to `run`, the run a row describes (its parallelism read already), the `x-` keys its
// software implies.
void addRowSoftware(const nlohmann::json& row, nlohmann::json& run);

} // namespace cs
