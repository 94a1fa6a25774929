// The rules between several jobs on one cluster (formats.md "Several jobs on one cluster"):
// how many, that each says where it runs, that no two hold the same node, and where a job's
// allocation splits an NVLink domain.

#include <algorithm>

#include "loader.h"
#include "text.h"
#include "validation.h"

namespace cs {

namespace {

using NodeRanges = std::vector<std::pair<int64_t, int64_t>>; // [first, last] node indices

// The nodes an allocation holds, in order and merged, clipped to the cluster.
NodeRanges nodeRangesOf(const ClusterDesc& cluster, const Allocation& allocation)
{
    NodeRanges nodes;
    for (const auto& [first, end] : allocatedGpuRanges(cluster, allocation))
        nodes.emplace_back(first / cluster.gpusPerNode, (end - 1) / cluster.gpusPerNode);
    return nodes;
}

// The lowest node both hold; -1 when none. Both lists are in order: one walk.
int64_t firstSharedNode(const NodeRanges& a, const NodeRanges& b)
{
    size_t i = 0, k = 0;
    while (i < a.size() && k < b.size()) {
        const int64_t first = std::max(a[i].first, b[k].first);
        if (first <= std::min(a[i].second, b[k].second))
            return first;
        if (a[i].second < b[k].second)
            ++i;
        else
            ++k;
    }
    return -1;
}

std::string jobName(const RunDesc& run)
{
    return inQuotes(run.name);
}

void checkAllocated(const std::vector<RunDesc>& runs, const std::vector<RunSource>& sources,
                    Diagnostics& diags)
{
    for (size_t j = 0; j < runs.size(); ++j) {
        if (!runs[j].allocation)
            diags.atPointer(sources[j].file, sources[j].pointer,
                            "job " + jobName(runs[j]) + " needs an allocation: with " +
                                std::to_string(runs.size()) +
                                " jobs on the cluster each says which racks or nodes it "
                                "occupies");
    }
}

void checkApart(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
                const std::vector<RunSource>& sources, Diagnostics& diags)
{
    std::vector<NodeRanges> nodes(runs.size());
    for (size_t j = 0; j < runs.size(); ++j)
        if (runs[j].allocation)
            nodes[j] = nodeRangesOf(cluster, *runs[j].allocation);
    for (size_t later = 1; later < runs.size(); ++later) {
        for (size_t earlier = 0; earlier < later; ++earlier) {
            const int64_t node = firstSharedNode(nodes[earlier], nodes[later]);
            if (node < 0)
                continue;
            diags.atPointer(sources[later].file, sources[later].pointer + "/allocation",
                            "jobs " + jobName(runs[earlier]) + " and " + jobName(runs[later]) +
                                " both hold node " + std::to_string(node) + " (rack " +
                                std::to_string(node / cluster.nodesPerRack) + ")");
        }
    }
}

// A rack-wide NVLink domain (NVL72) belongs to one job: a job holding part of a rack's nodes is
// said once, at its first such rack.
void warnSplitDomains(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
                      const std::vector<RunSource>& sources, Diagnostics& warnings)
{
    if (cluster.scaleUp.domain != DomainKind::Rack || cluster.nodesPerRack <= 1)
        return;
    const int64_t perRack = cluster.nodesPerRack;
    for (size_t j = 0; j < runs.size(); ++j) {
        const std::optional<Allocation>& a = runs[j].allocation;
        if (!a || a->unit != Allocation::Unit::Nodes)
            continue;
        for (const auto& [first, last] : nodeRangesOf(cluster, *a)) {
            const bool split = first % perRack != 0 || (last + 1) % perRack != 0;
            if (!split)
                continue;
            const int64_t rack = (first % perRack != 0 ? first : last) / perRack;
            const int64_t held =
                std::min(last, (rack + 1) * perRack - 1) - std::max(first, rack * perRack) + 1;
            warnings.atPointer(sources[j].file, sources[j].pointer + "/allocation",
                               "job " + jobName(runs[j]) + " splits the NVLink domain of rack " +
                                   std::to_string(rack) + ": it holds " + std::to_string(held) +
                                   " of the rack's " + std::to_string(perRack) +
                                   " nodes; NVLink domains are not shared between jobs, so "
                                   "the rest of the domain serves no other job");
            break;
        }
    }
}

} // namespace

std::vector<RunSource> sessionRunSources(const std::string& file, size_t jobs)
{
    std::vector<RunSource> sources{{file, "/run"}};
    for (size_t j = 0; j < jobs; ++j)
        sources.push_back({file, "/jobs/" + std::to_string(j) + "/run"});
    return sources;
}

void checkJobs(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
               const std::vector<RunSource>& sources, Diagnostics& diags, Diagnostics* warnings)
{
    if (runs.size() != sources.size() || runs.empty())
        return; // a caller's mistake, not a file's
    if (runs.size() > size_t(kMaxSessionJobs)) {
        diags.atPointer(sources[kMaxSessionJobs].file, sources[kMaxSessionJobs].pointer,
                        withThousands(int64_t(runs.size())) + " jobs on one cluster; at most " +
                            std::to_string(kMaxSessionJobs) + " are evaluated together");
        return;
    }
    if (runs.size() > 1)
        checkAllocated(runs, sources, diags);
    checkApart(cluster, runs, sources, diags);
    if (warnings)
        warnSplitDomains(cluster, runs, sources, *warnings);
}

} // namespace cs
