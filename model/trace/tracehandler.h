#pragma once
// The SAX pass over one Kineto trace: what the rest of the reading needs from its events, kept
// compactly as they stream by (kernels, launches, steps, the record_param_comms operators that
// name collectives) and distributedInfo as a small document. Everything else is skipped.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelkinds.h"
#include "profile.h"

namespace cs {

// The largest clock reading a trace may give, in nanoseconds (ts, dur, baseTimeNanoseconds each):
// two of them added or subtracted stay within int64.
inline constexpr double kMaxTraceNanoseconds = 2.5e18;

// Times as the file writes them: microseconds (fractions allowed) from the file's own origin.
struct RawKernel {
    double ts = 0;
    double dur = 0;
    int64_t externalId = -1;
    int64_t correlation = -1;
    int32_t stream = 0;
    int32_t name = 0;
    int32_t group = -1;
    KernelKind kind = KernelKind::Compute;
    bool kindSettled = true; // false: a comm kernel whose name does not say, and no collective
};

struct RawLaunch {
    double ts = 0;
    int64_t tid = 0;
    int64_t externalId = -1;
};

// A record_param_comms operator: the collective it names and its process group.
struct RawCommOp {
    double ts = 0;
    double dur = 0;
    int64_t tid = 0;
    int64_t externalId = -1;
    std::optional<KernelKind> kind;
    int32_t group = -1;
};

struct RawStep {
    int64_t number = 0;
    double ts = 0;
    double dur = 0;
};

struct RawTrace {
    std::vector<RawKernel> kernels;
    std::unordered_map<int64_t, RawLaunch> launches; // by correlation id
    std::vector<RawCommOp> commOps;
    std::vector<RawStep> steps;
    std::vector<std::string> kernelNames;
    std::vector<ProcessGroup> groups;
    std::optional<nlohmann::json> distributedInfo;
    std::optional<std::string> displayTimeUnit;
    std::optional<int64_t> baseTimeNanoseconds;
    bool hasTraceEvents = false;
    int64_t events = 0; // in traceEvents, of any kind
    // The first limit passed (the file is refused), or empty.
    std::string overLimit;

    // The group of that name (a trace's "Process Group Name") or those ranks, added when new;
    // -1 when neither is given, and past kMaxRankGroups.
    int32_t groupOf(const std::string& name, const std::string& description,
                    std::vector<int> ranks);
    // The index of a kernel name in kernelNames (added when new), and the kind it says.
    int32_t nameIndex(std::string&& name, KernelKind& kind);

private:
    std::unordered_map<std::string, int32_t> m_names;
    std::vector<KernelKind> m_nameKinds; // per kernelNames entry
};

// Reads the whole source into `trace`. False, with a sentence in `problem`, when the text is
// not JSON (with the byte where it stops being), nests too deep or passes a limit.
class TraceSource;
bool readRawTrace(TraceSource& source, RawTrace& trace, std::string& problem);

// "[0, 1, 2]" (a "Process Group Ranks" argument) as ranks; empty when it is not such a list.
std::vector<int> ranksOfText(const std::string& text);

} // namespace cs
