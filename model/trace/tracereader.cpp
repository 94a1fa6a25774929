// One rank's trace file read into its figures: the SAX pass (tracehandler.cpp), then what the
// file says about the run (distributedInfo), the collective each communication kernel runs,
// the step each kernel belongs to, and each step's interval arithmetic (intervals.h).

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <sys/stat.h>

#include "intervals.h"
#include "loader.h"
#include "profile.h"
#include "text.h"
#include "tracehandler.h"
#include "tracesource.h"

namespace cs {

using nlohmann::json;

namespace {

// A non-negative int from distributedInfo, or nothing.
std::optional<int64_t> countOf(const json& info, const char* key)
{
    const auto it = info.find(key);
    if (it == info.end() || !it->is_number_integer() || it->get<int64_t>() < 0)
        return std::nullopt;
    return it->get<int64_t>();
}

std::string textOf(const json& j, const char* key)
{
    const auto it = j.find(key);
    if (it == j.end())
        return {};
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_number_integer())
        return std::to_string(it->get<int64_t>());
    return {};
}

// distributedInfo: rank, world size and the process groups of pg_config. False (the file
// refused) when the rank or world size is not one.
bool readDistributedInfo(const std::string& file, RawTrace& raw, RankProfile& rank,
                         Diagnostics& notes, Diagnostics& errors)
{
    if (!raw.distributedInfo || !raw.distributedInfo->contains("rank")) {
        rank.distributedInfo = false;
        notes.atPointer(file, "",
                        std::string(raw.distributedInfo ? "distributedInfo has no rank"
                                                        : "no distributedInfo") +
                            ": read as rank 0 of a run of 1");
        return true;
    }
    const json& info = *raw.distributedInfo;
    const std::optional<int64_t> r = countOf(info, "rank");
    const std::optional<int64_t> world = countOf(info, "world_size");
    if (!r || *r >= kMaxGpus) {
        errors.atPointer(file, "/distributedInfo/rank", "not a rank: a whole number from 0 up");
        return false;
    }
    if (!world) {
        notes.atPointer(file, "/distributedInfo", "no world_size: taken as rank + 1");
    } else if (*world < 1 || *world > kMaxGpus || *r >= *world) {
        errors.atPointer(file, "/distributedInfo/world_size",
                         "world size " + std::to_string(*world) + " does not hold rank " +
                             std::to_string(*r));
        return false;
    }
    rank.rank = int(*r);
    rank.worldSize = int(world.value_or(*r + 1));
    const auto pgs = info.find("pg_config");
    if (pgs == info.end() || !pgs->is_array())
        return true;
    for (const json& pg : *pgs) {
        if (!pg.is_object())
            continue;
        std::vector<int> ranks;
        const auto list = pg.find("ranks");
        if (list != pg.end() && list->is_array()) {
            for (const json& x : *list)
                if (x.is_number_integer() && x.get<int64_t>() >= 0 && x.get<int64_t>() < kMaxGpus)
                    ranks.push_back(x.get<int>());
        } else if (list != pg.end() && list->is_string()) {
            ranks = ranksOfText(list->get<std::string>());
        }
        raw.groupOf(textOf(pg, "pg_name"), textOf(pg, "pg_desc"), std::move(ranks));
    }
    return true;
}

// The record_param_comms operator that launched a communication kernel: the one with the
// kernel's External id, or the launch's, or the one running on the launching thread when the
// launch happened.
const RawCommOp* launchingOp(const RawKernel& k, const RawTrace& raw,
                             const std::unordered_map<int64_t, size_t>& opByExternal)
{
    auto byExternal = [&](int64_t id) -> const RawCommOp* {
        const auto it = id >= 0 ? opByExternal.find(id) : opByExternal.end();
        return it == opByExternal.end() ? nullptr : &raw.commOps[it->second];
    };
    if (const RawCommOp* op = byExternal(k.externalId))
        return op;
    const auto launch = k.correlation >= 0 ? raw.launches.find(k.correlation) : raw.launches.end();
    if (launch == raw.launches.end())
        return nullptr;
    if (const RawCommOp* op = byExternal(launch->second.externalId))
        return op;
    // commOps are by start: the last one starting before the launch, on its thread
    const auto after = std::upper_bound(raw.commOps.begin(), raw.commOps.end(), launch->second.ts,
                                        [](double ts, const RawCommOp& op) { return ts < op.ts; });
    for (auto it = after; it != raw.commOps.begin();) {
        --it;
        if (it->ts + it->dur < launch->second.ts - 1e6)
            break; // a second before: not this launch's
        if (it->tid == launch->second.tid && launch->second.ts <= it->ts + it->dur)
            return &*it;
    }
    return nullptr;
}

void settleCommKernels(RawTrace& raw)
{
    std::sort(raw.commOps.begin(), raw.commOps.end(),
              [](const RawCommOp& a, const RawCommOp& b) { return a.ts < b.ts; });
    std::unordered_map<int64_t, size_t> opByExternal;
    for (size_t i = 0; i < raw.commOps.size(); ++i)
        if (raw.commOps[i].externalId >= 0)
            opByExternal.emplace(raw.commOps[i].externalId, i);
    for (RawKernel& k : raw.kernels) {
        if (!isComm(k.kind) || (k.kindSettled && k.group >= 0))
            continue;
        const RawCommOp* op = launchingOp(k, raw, opByExternal);
        if (!op)
            continue;
        if (!k.kindSettled && op->kind)
            k.kind = *op->kind; // as commKindOf, with the operator's collective
        if (k.group < 0)
            k.group = op->group;
    }
}

// The step (index in `steps`, by start) whose annotation holds `ts`, or -1.
int32_t stepAt(const std::vector<RawStep>& steps, double ts)
{
    const auto after = std::upper_bound(steps.begin(), steps.end(), ts,
                                        [](double t, const RawStep& s) { return t < s.ts; });
    if (after == steps.begin())
        return -1;
    const RawStep& s = *(after - 1);
    return ts <= s.ts + s.dur ? int32_t(after - 1 - steps.begin()) : -1;
}

// Steps by start, each number once (a repeated one noted and left out).
void orderSteps(const std::string& file, RawTrace& raw, Diagnostics& notes)
{
    std::stable_sort(raw.steps.begin(), raw.steps.end(),
                     [](const RawStep& a, const RawStep& b) { return a.ts < b.ts; });
    std::vector<RawStep> kept;
    std::vector<int64_t> seen;
    for (const RawStep& s : raw.steps) {
        if (std::find(seen.begin(), seen.end(), s.number) != seen.end()) {
            notes.atPointer(file, "",
                            "ProfilerStep#" + std::to_string(s.number) +
                                " appears twice: the later one left out");
            continue;
        }
        seen.push_back(s.number);
        kept.push_back(s);
    }
    raw.steps = std::move(kept);
}

StepFigures figuresOf(const RawStep& step, const std::vector<RawKernel>& kernels,
                      const std::vector<size_t>& members, int groups)
{
    StepFigures f;
    f.number = step.number;
    f.name = "ProfilerStep#" + std::to_string(step.number);
    f.startS = step.ts * 1e-6;
    f.durationS = step.dur * 1e-6;
    std::vector<BusySpan> compute;
    std::vector<BusySpan> comm;
    for (size_t i : members) {
        const RawKernel& k = kernels[i];
        const BusySpan s{k.ts, k.ts + k.dur, k.group};
        f.kernelS[k.kind] += k.dur * 1e-6;
        (isComm(k.kind) ? comm : compute).push_back(s);
    }
    const BusyFigures sf = spanFigures(compute, comm, groups - 1);
    f.computeBusyS = sf.computeBusyS * 1e-6;
    f.commBusyS = sf.commBusyS * 1e-6;
    f.exposedCommS = sf.exposedCommS * 1e-6;
    for (size_t slot = 0; slot < sf.exposedByKey.size(); ++slot)
        if (sf.exposedByKey[slot] > 0)
            f.exposedByGroup.push_back({int(slot) - 1, sf.exposedByKey[slot] * 1e-6});
    f.idleS = std::max(0.0, f.durationS - sf.busyS * 1e-6);
    return f;
}

// Every time from the rank's own origin (its first step's start, or its first kernel's), so that
// sums and unions keep the file's nanosecond digits: a clock of 1.7e15 us (epoch microseconds,
// as older PyTorch writes) has a grain of 0.25 us in a double, a start and a duration added
// there lose it kernel by kernel. Steps must be ordered.
void rebase(RawTrace& raw, RankProfile& rank)
{
    double originUs = 0;
    if (!raw.steps.empty())
        originUs = raw.steps.front().ts;
    else if (!raw.kernels.empty())
        originUs =
            std::min_element(raw.kernels.begin(), raw.kernels.end(),
                             [](const RawKernel& a, const RawKernel& b) { return a.ts < b.ts; })
                ->ts;
    rank.originNs = raw.baseTimeNanoseconds.value_or(0) + int64_t(std::llround(originUs * 1000.0));
    for (RawKernel& k : raw.kernels)
        k.ts -= originUs;
    for (auto& [correlation, launch] : raw.launches)
        launch.ts -= originUs;
    for (RawCommOp& op : raw.commOps)
        op.ts -= originUs;
    for (RawStep& s : raw.steps)
        s.ts -= originUs;
}

void assemble(RawTrace& raw, RankProfile& rank, bool keepKernels)
{
    std::sort(raw.kernels.begin(), raw.kernels.end(),
              [](const RawKernel& a, const RawKernel& b) { return a.ts < b.ts; });
    const int groups = int(raw.groups.size());
    std::vector<std::vector<size_t>> byStep(raw.steps.size());
    std::vector<int32_t> stepOf(raw.kernels.size(), -1);
    std::vector<BusySpan> compute;
    for (size_t i = 0; i < raw.kernels.size(); ++i) {
        const RawKernel& k = raw.kernels[i];
        const auto launch =
            k.correlation >= 0 ? raw.launches.find(k.correlation) : raw.launches.end();
        stepOf[i] = stepAt(raw.steps, launch != raw.launches.end() ? launch->second.ts : k.ts);
        if (stepOf[i] >= 0)
            byStep[size_t(stepOf[i])].push_back(i);
        rank.totalKernelS[k.kind] += k.dur * 1e-6;
        if (!isComm(k.kind))
            compute.push_back({k.ts, k.ts + k.dur, -1});
        else if (k.kind != KernelKind::SendRecv && k.kind != KernelKind::OtherComm)
            rank.collectiveEnds.push_back({k.group, (k.ts + k.dur) * 1e-6});
        rank.streams.push_back(k.stream);
    }
    rank.totalComputeBusyS = unionLength(compute) * 1e-6;
    std::sort(rank.streams.begin(), rank.streams.end());
    rank.streams.erase(std::unique(rank.streams.begin(), rank.streams.end()), rank.streams.end());
    rank.kernelCount = raw.kernels.size();
    for (size_t s = 0; s < raw.steps.size(); ++s)
        rank.steps.push_back(figuresOf(raw.steps[s], raw.kernels, byStep[s], groups));
    rank.groups = std::move(raw.groups);
    if (!keepKernels)
        return;
    rank.kernels.reserve(raw.kernels.size());
    for (size_t i = 0; i < raw.kernels.size(); ++i) {
        const RawKernel& k = raw.kernels[i];
        rank.kernels.push_back(
            {k.ts * 1e-6, (k.ts + k.dur) * 1e-6, k.stream, k.name, k.group, stepOf[i], k.kind});
    }
    rank.kernelNames = std::move(raw.kernelNames);
}

// Refused before reading: not a regular file, or unreadable.
bool readable(const std::string& path, Diagnostics& errors)
{
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
        errors.atPointer(path, "", "cannot be read: " + std::string(std::strerror(errno)));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        errors.atPointer(path, "",
                         S_ISDIR(st.st_mode) ? "a directory inside a profile folder"
                                             : "not a regular file");
        return false;
    }
    return true;
}

} // namespace

std::optional<RankProfile> readRankTrace(const std::string& path, const RankReadContext& context,
                                         Diagnostics& notes, Diagnostics& errors)
{
    if (!readable(path, errors))
        return std::nullopt;
    const ReadProfileOptions* options = context.options;
    std::function<void(int64_t)> progress;
    if (options && options->progress)
        progress = [&](int64_t raw) { options->progress(context.doneBefore + raw, context.total); };
    TraceSource source(path, progress, options ? options->cancel : nullptr);
    if (!source.opened()) {
        errors.atPointer(path, "", "cannot be read: " + source.error());
        return std::nullopt;
    }
    RawTrace raw;
    std::string problem;
    const bool parsed = readRawTrace(source, raw, problem);
    if (source.cancelled())
        return std::nullopt;
    if (!source.error().empty()) {
        errors.atPointer(
            path, "",
            (source.gzip() ? "the gzip stream is broken or cut short: " : "cannot be read: ") +
                source.error() + " (after " + withThousands(source.bytesOut()) + " bytes)");
        return std::nullopt;
    }
    if (!parsed) {
        errors.atPointer(path, "", problem);
        return std::nullopt;
    }
    if (!raw.hasTraceEvents) {
        errors.atPointer(path, "", "not a PyTorch profiler trace: it has no traceEvents");
        return std::nullopt;
    }
    if (raw.events == 0) {
        errors.atPointer(path, "/traceEvents", "the trace holds no events");
        return std::nullopt;
    }
    if (raw.baseTimeNanoseconds && !(*raw.baseTimeNanoseconds >= 0 &&
                                     double(*raw.baseTimeNanoseconds) <= kMaxTraceNanoseconds)) {
        errors.atPointer(path, "/baseTimeNanoseconds",
                         "not a clock: from 0 to 2.5e18 ns (the year 2049)");
        return std::nullopt;
    }
    RankProfile rank;
    rank.file = path;
    if (!readDistributedInfo(path, raw, rank, notes, errors))
        return std::nullopt;
    if (raw.kernels.empty())
        notes.atPointer(path, "/traceEvents", "no GPU kernels: every step is idle");
    if (raw.steps.empty())
        notes.atPointer(path, "/traceEvents",
                        "no ProfilerStep#N annotations: its kernels count in its totals only");
    orderSteps(path, raw, notes);
    rebase(raw, rank);
    settleCommKernels(raw);
    assemble(raw, rank, options ? options->keepKernels : true);
    return rank;
}

} // namespace cs
