#include "profilesession.h"

#include "profilejson.h"
#include "text.h"

using nlohmann::json;

namespace {

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

cs::RankProfile rankFrom(const json& j, const std::string& where)
{
    cs::RankProfile r;
    r.rank = intAt(j, "rank", where);
    r.file = textAt(j, "file");
    r.worldSize = intAt(j, "world_size", where);
    if (r.rank < 0 || r.worldSize < 1 || r.rank >= r.worldSize)
        throw StoredError{where + "/rank", "is not a rank of its world size"};
    r.clockOffsetS =
        member(j, "clock_offset_s", where).is_number() ? j.at("clock_offset_s").get<double>() : 0;
    const json& groups = arrayAt(j, "process_groups", where, cs::kMaxRankGroups);
    for (size_t i = 0; i < groups.size(); ++i) {
        const std::string at = where + "/process_groups/" + std::to_string(i);
        cs::ProcessGroup g{textAt(groups[i], "name"), textAt(groups[i], "description"), {}};
        for (const json& rank : arrayAt(groups[i], "ranks", at, size_t(r.worldSize))) {
            if (!rank.is_number_integer())
                throw StoredError{at + "/ranks", "holds something other than ranks"};
            g.ranks.push_back(rank.get<int>());
        }
        r.groups.push_back(std::move(g));
    }
    const json& steps = arrayAt(j, "steps", where, cs::kMaxRankSteps);
    for (size_t i = 0; i < steps.size(); ++i)
        r.steps.push_back(stepFrom(steps[i], where + "/steps/" + std::to_string(i), groups.size()));
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

cs::MeasuredProfile profileFrom(const json& j)
{
    cs::MeasuredProfile p;
    p.worldSize = intAt(j, "world_size", "");
    const json& ranks = arrayAt(j, "ranks", "", cs::kMaxProfileFiles);
    for (size_t i = 0; i < ranks.size(); ++i) {
        p.ranks.push_back(rankFrom(ranks[i], "/ranks/" + std::to_string(i)));
        if (i > 0 && p.ranks[i].rank <= p.ranks[i - 1].rank)
            throw StoredError{"/ranks/" + std::to_string(i), "is not in rank order, each once"};
    }
    addTotals(arrayAt(j, "totals", "", cs::kMaxProfileFiles), p);
    p.stepTimeS = secondsAt(j, "step_time_s", "");
    const json& slowest = member(j, "slowest_rank", "");
    p.slowestRank = slowest.is_number_integer() ? slowest.get<int>() : -1;
    if (const auto a = j.find("alignment"); a != j.end() && a->is_object())
        p.alignment.summary = textAt(*a, "summary");
    return p;
}

} // namespace

json storedProfileJson(const cs::MeasuredProfile& profile)
{
    json j = cs::profileJson(profile);
    for (size_t r = 0; r < profile.ranks.size(); ++r) {
        const cs::RankProfile& rank = profile.ranks[r];
        for (size_t s = 0; s < rank.steps.size(); ++s) {
            const cs::StepFigures& step = rank.steps[s];
            json byGroup = json::array();
            for (const cs::GroupSeconds& g : step.exposedByGroup)
                byGroup.push_back({{"group", g.group}, {"seconds", g.seconds}});
            json& stored = j["ranks"][r]["steps"][s];
            stored["comm_busy_s"] = step.commBusyS;
            stored["exposed_by_group"] = std::move(byGroup);
        }
    }
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
