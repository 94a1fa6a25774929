#include "profilesession.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "measuredlanes.h"
#include "profilejson.h"
#include "text.h"

using nlohmann::json;

namespace {

// About 30 values a step: past this many steps over all ranks, each rank keeps its median one.
constexpr size_t kMaxStoredSteps = 16384;
// Distinct process groups over all ranks (a few per rank).
constexpr size_t kMaxStoredGroups = 1u << 18;

// A stored profile that is not one: where (a JSON pointer under the key) and what.
struct StoredError {
    std::string where;
    std::string what;
};

const json& member(const json& object, const char* key, const std::string& where)
{
    if (!object.is_object() || !object.contains(key))
        throw StoredError{where, "has no \"" + std::string(key) + "\""};
    return object.at(key);
}

double secondsAt(const json& object, const char* key, const std::string& where)
{
    const json& v = member(object, key, where);
    if (!v.is_number() || v.get<double>() < 0)
        throw StoredError{where + "/" + key, "is not a number of seconds"};
    return v.get<double>();
}

int intAt(const json& object, const char* key, const std::string& where)
{
    const json& v = member(object, key, where);
    if (!v.is_number_integer())
        throw StoredError{where + "/" + key, "is not a whole number"};
    return v.get<int>();
}

const json& arrayAt(const json& object, const char* key, const std::string& where, size_t limit)
{
    const json& v = member(object, key, where);
    if (!v.is_array())
        throw StoredError{where + "/" + key, "is not a list"};
    if (v.size() > limit)
        throw StoredError{where + "/" + key,
                          "has more than " + cs::withThousands(limit) + " items"};
    return v;
}

std::string textAt(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

cs::StepFigures stepFrom(const json& j, const std::string& where, size_t groups)
{
    cs::StepFigures s;
    s.name = textAt(j, "name");
    s.number = intAt(j, "number", where);
    s.startS = member(j, "start_s", where).is_number() ? j.at("start_s").get<double>() : 0;
    s.durationS = secondsAt(j, "duration_s", where);
    const json& kernels = member(j, "kernel_s", where);
    for (const cs::KernelKindInfo& k : cs::kKernelKinds)
        if (kernels.is_object() && kernels.contains(k.key))
            s.kernelS[k.kind] = secondsAt(kernels, std::string(k.key).c_str(), where + "/kernel_s");
    s.computeBusyS = secondsAt(j, "compute_busy_s", where);
    s.exposedCommS = secondsAt(j, "exposed_comm_s", where);
    s.idleS = secondsAt(j, "idle_s", where);
    if (j.contains("comm_busy_s"))
        s.commBusyS = secondsAt(j, "comm_busy_s", where);
    if (j.contains("exposed_by_group")) {
        const json& byGroup = arrayAt(j, "exposed_by_group", where, cs::kMaxRankGroups + 1);
        for (size_t i = 0; i < byGroup.size(); ++i) {
            const std::string at = where + "/exposed_by_group/" + std::to_string(i);
            const int group = intAt(byGroup[i], "group", at);
            if (group < -1 || group >= int(groups))
                throw StoredError{at + "/group", "names no process group of the rank"};
            s.exposedByGroup.push_back({group, secondsAt(byGroup[i], "seconds", at)});
        }
    }
    return s;
}

cs::ProcessGroup groupFrom(const json& j, const std::string& where, int worldSize)
{
    cs::ProcessGroup g{textAt(j, "name"), textAt(j, "description"), {}};
    for (const json& rank : arrayAt(j, "ranks", where, size_t(worldSize))) {
        if (!rank.is_number_integer() || rank.get<int>() < 0 || rank.get<int>() >= worldSize)
            throw StoredError{where + "/ranks", "holds something other than ranks"};
        g.ranks.push_back(rank.get<int>());
    }
    return g;
}

cs::RankProfile rankFrom(const json& j, const std::string& where,
                         const std::vector<cs::ProcessGroup>& groups)
{
    cs::RankProfile r;
    r.rank = intAt(j, "rank", where);
    r.file = textAt(j, "file");
    r.worldSize = intAt(j, "world_size", where);
    if (r.rank < 0 || r.worldSize < 1 || r.rank >= r.worldSize)
        throw StoredError{where + "/rank", "is not a rank of its world size"};
    r.clockOffsetS =
        member(j, "clock_offset_s", where).is_number() ? j.at("clock_offset_s").get<double>() : 0;
    for (const json& g : arrayAt(j, "groups", where, cs::kMaxRankGroups)) {
        if (!g.is_number_integer() || g.get<int64_t>() < 0 || g.get<size_t>() >= groups.size())
            throw StoredError{where + "/groups", "names a process group that is not there"};
        r.groups.push_back(groups[g.get<size_t>()]);
    }
    const json& steps = arrayAt(j, "steps", where, cs::kMaxRankSteps);
    for (size_t i = 0; i < steps.size(); ++i)
        r.steps.push_back(
            stepFrom(steps[i], where + "/steps/" + std::to_string(i), r.groups.size()));
    return r;
}

// The totals of each rank (profileJson keeps them apart from the ranks).
void addTotals(const json& totals, cs::MeasuredProfile& p)
{
    for (size_t i = 0; i < totals.size() && i < p.ranks.size(); ++i) {
        const std::string at = "/totals/" + std::to_string(i);
        cs::RankProfile& r = p.ranks[i];
        r.totalComputeBusyS = secondsAt(totals[i], "compute_busy_s", at);
        const json& kernels = member(totals[i], "kernel_s", at);
        for (const cs::KernelKindInfo& k : cs::kKernelKinds)
            if (kernels.is_object() && kernels.contains(k.key))
                r.totalKernelS[k.kind] =
                    secondsAt(kernels, std::string(k.key).c_str(), at + "/kernel_s");
    }
}

// A lane interval's kind as stored: "compute", "idle", or the kernel kind of a communication
// interval ("allreduce", ...).
std::string laneKindKey(const cs::LaneInterval& iv)
{
    switch (iv.kind) {
    case cs::LaneIntervalKind::Compute:
        return "compute";
    case cs::LaneIntervalKind::Idle:
        return "idle";
    case cs::LaneIntervalKind::Comm:
        break;
    }
    return std::string(cs::kernelKindInfo(iv.collective).key);
}

json lanesJson(const cs::MeasuredProfile& profile)
{
    json lanes = json::array();
    for (const cs::MeasuredLane& lane : profile.lanes) {
        json intervals = json::array();
        for (const cs::LaneInterval& iv : lane.intervals)
            intervals.push_back({iv.startS, iv.durationS, laneKindKey(iv), iv.group});
        lanes.push_back({{"stage", lane.stage},
                         {"rank", lane.rank},
                         {"step", lane.stepNumber},
                         {"step_s", lane.stepS},
                         {"intervals", std::move(intervals)}});
    }
    return lanes;
}

cs::LaneInterval laneIntervalFrom(const json& j, const std::string& where, size_t groups)
{
    if (!j.is_array() || j.size() != 4 || !j[0].is_number() || !j[1].is_number() ||
        !j[2].is_string() || !j[3].is_number_integer())
        throw StoredError{where, "is not [start, duration, kind, group]"};
    cs::LaneInterval iv;
    iv.startS = j[0].get<double>();
    iv.durationS = j[1].get<double>();
    if (!(iv.startS >= 0) || !(iv.durationS >= 0))
        throw StoredError{where, "is not [start, duration, kind, group] in seconds"};
    const std::string kind = j[2].get<std::string>();
    iv.kind = kind == "compute" ? cs::LaneIntervalKind::Compute
              : kind == "idle"  ? cs::LaneIntervalKind::Idle
                                : cs::LaneIntervalKind::Comm;
    if (iv.kind == cs::LaneIntervalKind::Comm) {
        const auto known = std::find_if(cs::kKernelKinds.begin() + 1, cs::kKernelKinds.end(),
                                        [&](const cs::KernelKindInfo& k) { return k.key == kind; });
        if (known == cs::kKernelKinds.end())
            throw StoredError{where + "/2", "is not compute, idle or a kind of communication"};
        iv.collective = known->kind;
        const int64_t group = j[3].get<int64_t>();
        if (group < -1 || group >= int64_t(groups))
            throw StoredError{where + "/3", "names no process group of the lane's rank"};
        iv.group = int32_t(group);
    }
    return iv;
}

// The lanes a session keeps (none in sessions saved before they were kept).
void addLanes(const json& j, cs::MeasuredProfile& p)
{
    const auto stored = j.find("measured_lanes");
    if (stored == j.end())
        return;
    const json& lanes = arrayAt(j, "measured_lanes", "", cs::kMaxProfileFiles);
    size_t total = 0;
    for (size_t l = 0; l < lanes.size(); ++l) {
        const std::string where = "/measured_lanes/" + std::to_string(l);
        cs::MeasuredLane lane;
        lane.stage = intAt(lanes[l], "stage", where);
        lane.rank = intAt(lanes[l], "rank", where);
        lane.stepNumber = intAt(lanes[l], "step", where);
        lane.stepS = secondsAt(lanes[l], "step_s", where);
        const auto rank =
            std::find_if(p.ranks.begin(), p.ranks.end(),
                         [&](const cs::RankProfile& r) { return r.rank == lane.rank; });
        if (lane.stage < 0 || rank == p.ranks.end())
            throw StoredError{where + "/rank", "is not a rank of the profile"};
        const json& intervals = arrayAt(lanes[l], "intervals", where, cs::kMaxLaneIntervals);
        if ((total += intervals.size()) > cs::kMaxLaneIntervalsTotal)
            throw StoredError{where + "/intervals",
                              "makes more than " + cs::withThousands(cs::kMaxLaneIntervalsTotal) +
                                  " intervals over all lanes"};
        for (size_t i = 0; i < intervals.size(); ++i)
            lane.intervals.push_back(laneIntervalFrom(
                intervals[i], where + "/intervals/" + std::to_string(i), rank->groups.size()));
        p.lanes.push_back(std::move(lane));
    }
}

cs::MeasuredProfile profileFrom(const json& j)
{
    cs::MeasuredProfile p;
    p.worldSize = intAt(j, "world_size", "");
    if (p.worldSize < 1)
        throw StoredError{"/world_size", "is not a world size"};
    std::vector<cs::ProcessGroup> groups;
    const json& table = arrayAt(j, "process_groups", "", kMaxStoredGroups);
    for (size_t i = 0; i < table.size(); ++i)
        groups.push_back(groupFrom(table[i], "/process_groups/" + std::to_string(i), p.worldSize));
    const json& ranks = arrayAt(j, "ranks", "", cs::kMaxProfileFiles);
    for (size_t i = 0; i < ranks.size(); ++i) {
        p.ranks.push_back(rankFrom(ranks[i], "/ranks/" + std::to_string(i), groups));
        if (i > 0 && p.ranks[i].rank <= p.ranks[i - 1].rank)
            throw StoredError{"/ranks/" + std::to_string(i), "is not in rank order, each once"};
    }
    addTotals(arrayAt(j, "totals", "", cs::kMaxProfileFiles), p);
    p.stepTimeS = secondsAt(j, "step_time_s", "");
    const json& slowest = member(j, "slowest_rank", "");
    p.slowestRank = slowest.is_number_integer() ? slowest.get<int>() : -1;
    if (const auto a = j.find("alignment"); a != j.end() && a->is_object())
        p.alignment.summary = textAt(*a, "summary");
    addLanes(j, p);
    return p;
}

// A profile of many ranks and steps keeps each rank's median step only (the one the views
// show), so that its session stays within a session's limits (kMaxJsonValues).
bool keepsAllSteps(const cs::MeasuredProfile& measured)
{
    size_t steps = 0;
    for (const cs::RankProfile& r : measured.ranks)
        steps += r.steps.size();
    return steps <= kMaxStoredSteps;
}

cs::MeasuredProfile withStepsKept(const cs::MeasuredProfile& measured)
{
    cs::MeasuredProfile kept = measured;
    if (keepsAllSteps(measured))
        return kept;
    for (cs::RankProfile& r : kept.ranks) {
        const double median = r.medianStepS();
        const auto closest = std::min_element(
            r.steps.begin(), r.steps.end(),
            [&](const cs::StepFigures& a, const cs::StepFigures& b) {
                return std::abs(a.durationS - median) < std::abs(b.durationS - median);
            });
        if (closest != r.steps.end())
            r.steps = {*closest};
    }
    return kept;
}

} // namespace

json storedProfileJson(const cs::MeasuredProfile& measured)
{
    const cs::MeasuredProfile profile = withStepsKept(measured);
    json j = cs::profileJson(profile);
    // Each process group once: every rank lists its own, and the world's group alone would
    // otherwise be stored once per rank.
    std::map<std::pair<std::string, std::vector<int>>, size_t> index;
    json table = json::array();
    for (size_t r = 0; r < profile.ranks.size(); ++r) {
        const cs::RankProfile& rank = profile.ranks[r];
        json& stored = j["ranks"][r];
        json ids = json::array();
        for (const cs::ProcessGroup& g : rank.groups) {
            const auto [it, added] = index.try_emplace({g.name, g.ranks}, table.size());
            if (added)
                table.push_back(
                    {{"name", g.name}, {"description", g.description}, {"ranks", g.ranks}});
            ids.push_back(it->second);
        }
        stored.erase("process_groups");
        stored["groups"] = std::move(ids);
        for (size_t s = 0; s < rank.steps.size(); ++s) {
            const cs::StepFigures& step = rank.steps[s];
            json byGroup = json::array();
            for (const cs::GroupSeconds& g : step.exposedByGroup)
                byGroup.push_back({{"group", g.group}, {"seconds", g.seconds}});
            stored["steps"][s]["comm_busy_s"] = step.commBusyS;
            stored["steps"][s]["exposed_by_group"] = std::move(byGroup);
        }
    }
    j["process_groups"] = std::move(table);
    if (!profile.lanes.empty())
        j["measured_lanes"] = lanesJson(profile);
    j["steps_kept"] = keepsAllSteps(measured) ? "all" : "median";
    return j;
}

std::optional<cs::MeasuredProfile> storedProfileFrom(const json& stored, std::string* error)
{
    try {
        return profileFrom(stored);
    } catch (const StoredError& e) {
        *error = std::string("/") + kMeasuredProfileKey + e.where + ": " + e.what;
    } catch (const json::exception& e) {
        *error = std::string("/") + kMeasuredProfileKey + ": " + e.what();
    }
    return std::nullopt;
}
