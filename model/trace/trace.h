#pragma once
// The predicted step as Chrome trace events (Perfetto, chrome://tracing): one process per
// pipeline stage with rows for compute, TP/CP collectives, PP sends and the DP fabric.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "costmodel.h"

namespace cs {

nlohmann::json chromeTrace(const Evaluation& evaluation, const RunDesc& run);
// Evaluates the run with its events and returns the trace as text.
std::string chromeTraceJson(const ClusterDesc& cluster, const RunDesc& run);

} // namespace cs
