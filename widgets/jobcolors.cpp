#include "jobcolors.h"

#include <QObject>
#include <algorithm>

#include "allocationtext.h"
#include "jobs.h"
#include "linkloadink.h"
#include "text.h"
#include "topology.h"
#include "topologylayout.h"

std::vector<int> jobOfEachGpu(const cs::Topology& topology, const std::vector<cs::RunDesc>& runs)
{
    const cs::ClusterDesc& cluster = topology.cluster();
    std::vector<int> job(topology.gpus().size(), -1);
    for (size_t r = 0; r < runs.size(); ++r) {
        if (!runs[r].allocation)
            continue;
        for (const auto& [first, end] : cs::allocatedGpuRanges(cluster, *runs[r].allocation))
            for (int64_t g = first; g < end && g < int64_t(job.size()); ++g)
                job[size_t(g)] = int(r);
    }
    for (size_t r = 0; r < runs.size(); ++r)
        if (!runs[r].allocation)
            std::replace(job.begin(), job.end(), -1, int(r));
    return job;
}

GpuColoring jobColoring(const cs::Topology& topology, const std::vector<cs::RunDesc>& runs)
{
    GpuColoring out;
    const std::vector<int> job = jobOfEachGpu(topology, runs);
    const int jobs = int(runs.size());
    for (int j = 0; j < jobs; ++j)
        out.colors.palette.push_back(categoricalColor(j).rgb());
    const auto idle = uint16_t(jobs);
    out.colors.palette.push_back(kIdleGrey);
    out.colors.palette.push_back(kOutOfService);
    const std::vector<bool> healthy = topology.cluster().healthyGpus();
    out.colors.index.resize(job.size());
    for (size_t g = 0; g < job.size(); ++g)
        out.colors.index[g] = !healthy[g]  ? uint16_t(idle + 1)
                              : job[g] < 0 ? idle
                                           : uint16_t(job[g]);
    out.legend.title =
        jobs > 1 ? QObject::tr("Job: the job whose allocation holds each GPU (%1 jobs)").arg(jobs)
                 : QObject::tr("Job: one job on this cluster (Jobs > Add Job adds "
                               "another)");
    for (int j = 0; j < jobs; ++j)
        out.legend.entries.push_back(
            {categoricalColor(j),
             QStringLiteral("%1: %2").arg(
                 QString::fromStdString(cs::printable(runs[size_t(j)].name)),
                 QString::fromStdString(cs::allocationText(runs[size_t(j)].allocation)))});
    if (std::count(job.begin(), job.end(), -1) > 0)
        out.legend.entries.push_back({QColor(kIdleGrey), QObject::tr("no job")});
    return out;
}

namespace {

// The racks all of whose GPUs are the job's as one rectangle each, else the job's trays.
std::vector<QRectF> allocationAreas(const TopologyLayout& layout, const std::vector<int>& jobOfGpu,
                                    int job)
{
    const cs::Topology& topo = layout.topology();
    const auto& gpus = topo.gpus();
    std::vector<int> perRack(topo.racks().size(), 0);
    std::vector<int> perNode(topo.nodes().size(), 0);
    for (size_t g = 0; g < gpus.size(); ++g)
        if (jobOfGpu[g] == job) {
            ++perRack[size_t(gpus[g].rack)];
            ++perNode[size_t(gpus[g].node)];
        }
    const cs::ClusterDesc& c = topo.cluster();
    std::vector<QRectF> areas;
    for (size_t r = 0; r < perRack.size(); ++r)
        if (perRack[r] == c.nodesPerRack * c.gpusPerNode)
            areas.push_back(layout.rackRect(int(r)));
    for (size_t n = 0; n < perNode.size(); ++n)
        if (perNode[n] > 0 &&
            perRack[size_t(topo.nodes()[n].rack)] < c.nodesPerRack * c.gpusPerNode)
            areas.push_back(layout.trayRect(int(n)));
    return areas;
}

} // namespace

JobLight jobLight(const TopologyLayout& layout, const std::vector<int>& jobOfGpu, int job,
                  const cs::JobsTraffic* traffic)
{
    JobLight light;
    light.areas = allocationAreas(layout, jobOfGpu, job);
    if (!traffic || job < 0 || job >= cs::kMaxJobs)
        return light;
    const std::vector<int> bundleOf = bundleOfEachLink(layout);
    std::vector<uint8_t> bundleLit(layout.bundles().size(), 0);
    for (size_t l = 0; l < traffic->jobsOn.size(); ++l) {
        if (!traffic->carries(l, job))
            continue;
        light.links.push_back(int(l));
        if (l < bundleOf.size() && bundleOf[l] >= 0 && !bundleLit[size_t(bundleOf[l])]) {
            bundleLit[size_t(bundleOf[l])] = 1;
            light.bundles.push_back(bundleOf[l]);
        }
    }
    return light;
}
