#include "jobsedit.h"

#include <algorithm>

#include "diagnostics.h"
#include "editcheck.h"
#include "jobcolors.h"
#include "messagetext.h"
#include "placement.h"
#include "topology.h"
#include "validation.h"

QString jobsProblems(const cs::ClusterDesc& cluster, const std::vector<cs::RunDesc>& runs)
{
    cs::Diagnostics diags;
    for (const cs::RunDesc& run : runs)
        cs::checkEdit(cluster, run, diags);
    if (diags.empty()) {
        // Each message names its jobs; the place is a run's field ("Allocation: jobs ... both
        // hold node 16"), not where a session file would hold it ("0 run: allocation").
        const std::vector<cs::RunSource> sources(runs.size(), {"", "/run"});
        cs::checkJobs(cluster, runs, sources, diags);
    }
    return problemsForPeople(diags);
}

int64_t gpusNeeded(const cs::RunDesc& run, int64_t whenDerived)
{
    const cs::Parallelism& p = run.parallelism;
    return p.dp > 0 ? int64_t(p.tp) * p.cp * p.pp * p.dp : whenDerived;
}

std::optional<cs::Allocation> firstFreeRacks(const cs::Topology& topology,
                                             const std::vector<cs::RunDesc>& runs, int64_t gpus)
{
    const std::vector<int> jobOf = jobOfEachGpu(topology, runs);
    const std::vector<bool> healthy = topology.cluster().healthyGpus();
    const size_t racks = topology.racks().size();
    std::vector<uint8_t> taken(racks, 0);
    std::vector<int64_t> healthyIn(racks, 0);
    for (size_t g = 0; g < jobOf.size(); ++g) {
        const auto rack = size_t(topology.gpus()[g].rack);
        taken[rack] |= jobOf[g] >= 0;
        healthyIn[rack] += healthy[g];
    }
    cs::Allocation allocation{cs::Allocation::Unit::Racks, {}};
    int64_t held = 0;
    for (size_t r = 0; r < racks && held < gpus; ++r) {
        if (taken[r] || healthyIn[r] == 0)
            continue;
        held += healthyIn[r];
        auto& ranges = allocation.ranges;
        if (!ranges.empty() && ranges.back().second == int(r) - 1)
            ranges.back().second = int(r);
        else
            ranges.emplace_back(int(r), int(r));
    }
    if (held < gpus)
        return std::nullopt;
    return allocation;
}

cs::RunDesc withOwnRacks(cs::RunDesc run, const cs::Topology& topology,
                         const cs::Placement& placement)
{
    if (run.allocation)
        return run;
    int last = 0;
    for (int rank = 0; rank < placement.worldSize(); ++rank)
        last = std::max(last, topology.gpus()[size_t(placement.gpuOfRank(rank))].rack);
    run.allocation = cs::Allocation{cs::Allocation::Unit::Racks, {{0, last}}};
    return run;
}

std::string freeName(const std::string& name, const std::vector<cs::RunDesc>& runs)
{
    const auto taken = [&runs](const std::string& n) {
        return std::any_of(runs.begin(), runs.end(),
                           [&n](const cs::RunDesc& r) { return r.name == n; });
    };
    std::string candidate = name;
    for (int i = 2; taken(candidate); ++i)
        candidate = name + " " + std::to_string(i);
    return candidate;
}

JobsEdit splitRuns(std::vector<cs::RunDesc> runs)
{
    JobsEdit edit;
    edit.run = std::move(runs.front());
    edit.jobs.assign(std::make_move_iterator(runs.begin() + 1),
                     std::make_move_iterator(runs.end()));
    return edit;
}

JobsEdit showInDetail(std::vector<cs::RunDesc> runs, int job)
{
    std::swap(runs.front(), runs[size_t(job)]);
    return splitRuns(std::move(runs));
}
