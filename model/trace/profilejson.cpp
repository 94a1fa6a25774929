#include "profilejson.h"

#include <stdexcept>

namespace cs {

using nlohmann::json;

namespace {

json exposedByGroupJson(const StepFigures& s)
{
    json list = json::array();
    for (const GroupSeconds& g : s.exposedByGroup)
        list.push_back({{"group", g.group}, {"seconds", g.seconds}});
    return list;
}

json stepJson(const StepFigures& s)
{
    return {{"name", s.name},
            {"number", s.number},
            {"start_s", s.startS},
            {"duration_s", s.durationS},
            {"kernel_s", kernelSecondsJson(s.kernelS)},
            {"compute_busy_s", s.computeBusyS},
            {"comm_busy_s", s.commBusyS},
            {"exposed_comm_s", s.exposedCommS},
            {"exposed_by_group", exposedByGroupJson(s)},
            {"idle_s", s.idleS}};
}

json rankJson(const RankProfile& r)
{
    json steps = json::array();
    for (const StepFigures& s : r.steps)
        steps.push_back(stepJson(s));
    json groups = json::array();
    for (const ProcessGroup& g : r.groups)
        groups.push_back({{"name", g.name}, {"description", g.description}, {"ranks", g.ranks}});
    return {{"rank", r.rank},           {"file", r.file},       {"world_size", r.worldSize},
            {"kernels", r.kernelCount}, {"streams", r.streams}, {"clock_offset_s", r.clockOffsetS},
            {"process_groups", groups}, {"steps", steps}};
}

json breakdownJson(const Breakdown& b)
{
    json j = json::object();
    for (const Breakdown::Part& p : b.parts())
        j[std::string(p.key)] = p.seconds;
    return j;
}

} // namespace

json kernelSecondsJson(const PerKernelKind<double>& seconds)
{
    json j = json::object();
    for (const KernelKindInfo& k : kKernelKinds)
        j[std::string(k.key)] = seconds[k.kind];
    return j;
}

json profileJson(const MeasuredProfile& p)
{
    json ranks = json::array();
    json totals = json::array();
    for (const RankProfile& r : p.ranks) {
        ranks.push_back(rankJson(r));
        totals.push_back({{"rank", r.rank},
                          {"kernel_s", kernelSecondsJson(r.totalKernelS)},
                          {"compute_busy_s", r.totalComputeBusyS}});
    }
    const ClockAlignment& a = p.alignment;
    json j = {{"world_size", p.worldSize},
              {"ranks", ranks},
              {"totals", totals},
              {"step_time_s", p.stepTimeS},
              {"alignment",
               {{"reference_rank", a.referenceRank},
                {"aligned_ranks", a.alignedRanks},
                {"matched_ends", a.matchedEnds},
                {"largest_offset_s", a.largestOffsetS},
                {"residual_s", a.residualS},
                {"unaligned_ranks", a.unaligned},
                {"summary", a.summary}}}};
    j["slowest_rank"] = p.slowestRank >= 0 ? json(p.slowestRank) : json(nullptr);
    return j;
}

void addComparisonJson(json& j, const ProfileComparison& run, const Evaluation& evaluation)
{
    json groups = json::array();
    for (const GroupMatch& g : run.groups) {
        json m = {{"name", g.name},
                  {"description", g.description},
                  {"size", g.ranks.size()},
                  {"role", toString(g.role)},
                  {"label", g.label}};
        m["dim"] = g.dim ? json(dimInfo(*g.dim).key) : json(nullptr);
        groups.push_back(std::move(m));
    }
    json parts = json::array();
    for (const PartComparison& p : run.parts) {
        json row = {{"part", p.key},
                    {"label", p.label},
                    {"measured_s", p.measuredS},
                    {"predicted_s", p.predictedS},
                    {"difference_s", p.difference()}};
        row["relative"] = p.relative() ? json(*p.relative()) : json(nullptr);
        parts.push_back(std::move(row));
    }
    j["groups"] = groups;
    j["compared_rank"] = run.rank;
    j["compared_stage"] = run.stage;
    j["measured_breakdown"] = breakdownJson(run.measured);
    j["measured_breakdown"]["unmatched_exposed"] = run.unmatchedExposedS;
    j["predicted_rank_breakdown"] = breakdownJson(run.predicted);
    j["breakdown"] = breakdownJson(evaluation.breakdown);
    j["predicted_step_time_s"] = evaluation.stepTimeS;
    j["comparison"] = parts;
    j["summary"] = run.summary;
}

namespace {

PerKernelKind<double> kernelSecondsOf(const json& j)
{
    PerKernelKind<double> s;
    for (const KernelKindInfo& k : kKernelKinds)
        s[k.kind] = j.value(std::string(k.key), 0.0);
    return s;
}

StepFigures stepOf(const json& j)
{
    StepFigures s;
    s.name = j.at("name").get<std::string>();
    s.number = j.at("number").get<int64_t>();
    s.startS = j.value("start_s", 0.0);
    s.durationS = j.at("duration_s").get<double>();
    s.kernelS = kernelSecondsOf(j.at("kernel_s"));
    s.computeBusyS = j.value("compute_busy_s", 0.0);
    s.commBusyS = j.value("comm_busy_s", 0.0);
    s.exposedCommS = j.value("exposed_comm_s", 0.0);
    for (const json& g : j.value("exposed_by_group", json::array()))
        s.exposedByGroup.push_back({g.at("group").get<int>(), g.at("seconds").get<double>()});
    s.idleS = j.value("idle_s", 0.0);
    return s;
}

RankProfile rankOf(const json& j, const json& totals)
{
    RankProfile r;
    r.rank = j.at("rank").get<int>();
    r.file = j.at("file").get<std::string>();
    r.worldSize = j.at("world_size").get<int>();
    r.distributedInfo = j.value("distributed_info", true);
    r.kernelCount = j.value("kernels", size_t(0));
    r.streams = j.value("streams", std::vector<int32_t>());
    r.clockOffsetS = j.value("clock_offset_s", 0.0);
    for (const json& g : j.value("process_groups", json::array()))
        r.groups.push_back({g.at("name").get<std::string>(), g.value("description", ""),
                            g.at("ranks").get<std::vector<int>>()});
    for (const json& s : j.at("steps"))
        r.steps.push_back(stepOf(s));
    for (const StepFigures& s : r.steps)
        for (const GroupSeconds& g : s.exposedByGroup)
            if (g.group < -1 || g.group >= int(r.groups.size()))
                throw std::out_of_range("exposed_by_group names a group the rank does not have");
    for (const json& t : totals)
        if (t.at("rank").get<int>() == r.rank) {
            r.totalKernelS = kernelSecondsOf(t.at("kernel_s"));
            r.totalComputeBusyS = t.value("compute_busy_s", 0.0);
        }
    return r;
}

} // namespace

std::optional<MeasuredProfile> profileFromJson(const json& j, const std::string& file,
                                               const std::string& pointer, Diagnostics& diags)
{
    try {
        MeasuredProfile p;
        p.worldSize = j.at("world_size").get<int>();
        const json& totals = j.at("totals");
        for (const json& r : j.at("ranks"))
            p.ranks.push_back(rankOf(r, totals));
        p.stepTimeS = j.at("step_time_s").get<double>();
        p.slowestRank = j.at("slowest_rank").is_null() ? -1 : j.at("slowest_rank").get<int>();
        const json& a = j.at("alignment");
        p.alignment.referenceRank = a.value("reference_rank", 0);
        p.alignment.alignedRanks = a.value("aligned_ranks", 0);
        p.alignment.matchedEnds = a.value("matched_ends", int64_t(0));
        p.alignment.largestOffsetS = a.value("largest_offset_s", 0.0);
        p.alignment.residualS = a.value("residual_s", 0.0);
        p.alignment.unaligned = a.value("unaligned_ranks", std::vector<int>());
        p.alignment.summary = a.value("summary", "");
        return p;
    } catch (const std::exception& e) {
        diags.atPointer(file, pointer,
                        std::string("not a measured profile as ClusterScope writes it: ") +
                            e.what());
        return std::nullopt;
    }
}

} // namespace cs
