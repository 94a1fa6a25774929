#include "profilejson.h"

#include "evaluationjson.h"

namespace cs {

using nlohmann::json;

namespace {

json stepJson(const StepFigures& s)
{
    return {{"name", s.name},
            {"number", s.number},
            {"start_s", s.startS},
            {"duration_s", s.durationS},
            {"kernel_s", kernelSecondsJson(s.kernelS)},
            {"compute_busy_s", s.computeBusyS},
            {"exposed_comm_s", s.exposedCommS},
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

} // namespace cs
