#include "trace.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

namespace cs {

using nlohmann::json;

namespace {

// Chrome trace rows: one process per pipeline stage, a thread for compute and one for each
// dimension's traffic, in the order of the dimension table.
constexpr int kComputeRow = 0;

int rowOf(const Event& e)
{
    return e.isComm() ? 1 + int(e.dim) : kComputeRow;
}

std::string rowName(const DimInfo& d)
{
    switch (d.dim) {
    case Dim::PP:
        return "PP sends";
    case Dim::DP:
        return "DP fabric";
    default:
        return std::string(d.shortLabel) + " collectives";
    }
}

std::string traceName(const Event& e)
{
    std::string name(eventName(e));
    if (e.microBatch >= 0)
        name += " mb" + std::to_string(e.microBatch);
    if (e.chunk >= 0 && e.kind != EventKind::Bubble)
        name += " c" + std::to_string(e.chunk);
    return name;
}

json metadata(const char* what, int pid, std::optional<int> tid, const std::string& name)
{
    json m{{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
    if (tid)
        m["tid"] = *tid;
    return m;
}

} // namespace

json chromeTrace(const Evaluation& e, const RunDesc& run)
{
    const int stages = std::max(1, run.parallelism.pp);
    json events = json::array();
    events.push_back(metadata("process_name", 0, std::nullopt, "Step: " + run.name));
    events.push_back(metadata("thread_name", 0, 0, "optimizer"));
    for (int s = 0; s < stages; ++s) {
        const int pid = s + 1;
        events.push_back(
            metadata("process_name", pid, std::nullopt, "PP stage " + std::to_string(s)));
        events.push_back({{"name", "process_sort_index"},
                          {"ph", "M"},
                          {"pid", pid},
                          {"args", {{"sort_index", pid}}}});
        events.push_back(metadata("thread_name", pid, kComputeRow, "compute"));
        for (const DimInfo& d : kDims)
            events.push_back(metadata("thread_name", pid, 1 + int(d.dim), rowName(d)));
    }
    for (const Event& ev : e.events) {
        json x{{"name", traceName(ev)},
               {"cat", std::string(eventName(ev))},
               {"ph", "X"},
               {"ts", ev.start * 1e6},
               {"dur", (ev.end - ev.start) * 1e6},
               {"pid", ev.stage + 1},
               {"tid", ev.stage < 0 ? 0 : rowOf(ev)}};
        x["args"] = {
            {"link", toString(ev.link)}, {"exposed", ev.exposed}, {"critical", ev.critical}};
        if (ev.microBatch >= 0)
            x["args"]["micro_batch"] = ev.microBatch;
        if (ev.chunk >= 0)
            x["args"]["chunk"] = ev.chunk;
        events.push_back(std::move(x));
    }
    return json{{"traceEvents", events},
                {"displayTimeUnit", "ms"},
                {"otherData", {{"step_time_s", e.stepTimeS}}}};
}

std::string chromeTraceJson(const ClusterDesc& cluster, const RunDesc& run)
{
    return chromeTrace(evaluate(cluster, run), run).dump() + "\n";
}

} // namespace cs
