#include "trace.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "alltoall.h"
#include "text.h"

namespace cs {

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

// Appends JSON text piece by piece.
class JsonText {
public:
    explicit JsonText(std::string& out)
        : m_out(out)
    {
    }

    JsonText& raw(std::string_view text)
    {
        m_out += text;
        return *this;
    }
    JsonText& string(std::string_view text)
    {
        m_out +=
            nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return *this;
    }
    JsonText& number(double x)
    {
        char buffer[32];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
        m_out.append(buffer, end);
        return *this;
    }
    JsonText& number(int64_t n)
    {
        char buffer[24];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, n).ptr;
        m_out.append(buffer, end);
        return *this;
    }
    JsonText& number(int n) { return number(int64_t(n)); }
    JsonText& boolean(bool b) { return raw(b ? "true" : "false"); }

private:
    std::string& m_out;
};

void metadata(JsonText& j, const char* what, int pid, int tid, std::string_view name)
{
    j.raw("{\"name\":\"").raw(what).raw("\",\"ph\":\"M\",\"pid\":").number(pid);
    if (tid >= 0)
        j.raw(",\"tid\":").number(tid);
    j.raw(",\"args\":{\"name\":").string(name).raw("}},\n");
}

// An expert all-to-all is named as the timeline names it ("dispatch + combine").
void completeEvent(JsonText& j, const std::vector<Event>& events, size_t index)
{
    const Event& ev = events[index];
    const std::optional<AllToAllLabel> allToAll = allToAllLabel(events, index);
    j.raw("{\"name\":\"").raw(allToAll ? allToAll->brief : eventName(ev));
    if (ev.microBatch >= 0)
        j.raw(" mb").number(ev.microBatch);
    if (ev.chunk >= 0 && ev.kind != EventKind::Bubble)
        j.raw(" c").number(ev.chunk);
    j.raw("\",\"cat\":\"").raw(eventName(ev)).raw("\",\"ph\":\"X\",\"ts\":");
    j.number(ev.start * 1e6).raw(",\"dur\":").number((ev.end - ev.start) * 1e6);
    j.raw(",\"pid\":").number(ev.stage + 1).raw(",\"tid\":").number(ev.stage < 0 ? 0 : rowOf(ev));
    j.raw(",\"args\":{\"link\":\"").raw(toString(ev.link)).raw("\",\"exposed\":");
    j.boolean(ev.exposed).raw(",\"critical\":").boolean(ev.critical);
    if (ev.microBatch >= 0)
        j.raw(",\"micro_batch\":").number(ev.microBatch);
    if (ev.chunk >= 0)
        j.raw(",\"chunk\":").number(ev.chunk);
    j.raw("}},\n");
}

std::string leftOutNoteOf(const Evaluation& e)
{
    if (e.eventsLeftOut == 0)
        return {};
    return "the trace leaves out about " + withThousands(e.eventsLeftOut) + " events from " +
           fixed(e.leftOutFromS, 3) + " s to " + fixed(e.leftOutToS, 3) +
           " s of the step: it holds at most " + withThousands(int64_t(kMaxStepEvents));
}

} // namespace

ChromeTrace chromeTrace(const Evaluation& e, const RunDesc& run)
{
    ChromeTrace trace;
    trace.leftOut = e.eventsLeftOut;
    trace.leftOutNote = leftOutNoteOf(e);
    const int stages = std::max(1, run.parallelism.pp);
    std::string& text = trace.text;
    text.reserve(e.events.size() * 200 + size_t(stages) * 512 + 1024);
    JsonText j(text);
    j.raw("{\"traceEvents\":[\n");
    metadata(j, "process_name", 0, -1, "Step: " + run.name);
    metadata(j, "thread_name", 0, 0, "optimizer");
    for (int s = 0; s < stages; ++s) {
        const int pid = s + 1;
        metadata(j, "process_name", pid, -1, "PP stage " + std::to_string(s));
        j.raw("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":").number(pid);
        j.raw(",\"args\":{\"sort_index\":").number(pid).raw("}},\n");
        metadata(j, "thread_name", pid, kComputeRow, "compute");
        for (const DimInfo& d : kDims)
            metadata(j, "thread_name", pid, 1 + int(d.dim), rowName(d));
    }
    for (size_t i = 0; i < e.events.size(); ++i)
        completeEvent(j, e.events, i);
    trace.events = e.events.size();
    text.erase(text.size() - 2); // the last ",\n"
    j.raw("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"step_time_s\":").number(e.stepTimeS);
    if (e.eventsLeftOut > 0) {
        j.raw(",\"events_left_out\":").number(e.eventsLeftOut);
        j.raw(",\"left_out_from_s\":").number(e.leftOutFromS);
        j.raw(",\"left_out_to_s\":").number(e.leftOutToS);
        j.raw(",\"note\":").string(trace.leftOutNote);
    }
    j.raw("}}\n");
    return trace;
}

ChromeTrace chromeTraceOf(const ClusterDesc& cluster, const RunDesc& run)
{
    return chromeTrace(evaluate(cluster, run), run);
}

} // namespace cs
