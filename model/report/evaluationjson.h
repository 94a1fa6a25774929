#pragma once
// One evaluation as the JSON object of `evaluate --json` (formats.md): what the command line
// prints and what `compare --json` puts on each side.

#include <nlohmann/json_fwd.hpp>

namespace cs {

struct Evaluation;
struct RunDesc;

nlohmann::json evaluationJson(const Evaluation& e, const RunDesc& run);

} // namespace cs
