#include "jobs.h"

#include <algorithm>

#include "fabricfactors.h"
#include "fabricshape.h"
#include "sharedfabric.h"

namespace cs {

namespace {

// The fraction of its step each dimension's collectives run: how long a job's traffic keeps its
// links busy. From the job timed alone (not iterated to the shared steps).
PerDim<double> busyOf(const Evaluation& alone)
{
    PerDim<double> busy;
    if (alone.stepTimeS <= 0)
        return busy;
    for (Dim d : kAllDims)
        busy[d] = std::clamp(alone.commTotalS[d] / alone.stepTimeS, 0.0, 1.0);
    return busy;
}

// The seconds of the shared step each neighbour costs: the step's added time split by the
// added communication of each dimension, each dimension's part by the neighbours' blame.
std::vector<double> slowedBy(const JobResult& r, const SharedFactors& shared,
                             const std::vector<size_t>& neighbourJobs, size_t jobs)
{
    std::vector<double> out(jobs, 0.0);
    const double added = r.shared.stepTimeS - r.alone.stepTimeS;
    if (added <= 0)
        return out;
    std::vector<double> weight(neighbourJobs.size(), 0.0);
    double total = 0;
    for (size_t k = 0; k < neighbourJobs.size(); ++k) {
        for (Dim d : kAllDims) {
            const double dimAdded = std::max(0.0, r.shared.commTotalS[d] - r.alone.commTotalS[d]);
            weight[k] += dimAdded * shared.blame[k][d];
        }
        total += weight[k];
    }
    for (size_t k = 0; k < neighbourJobs.size(); ++k)
        out[neighbourJobs[k]] = total > 0 ? added * weight[k] / total : 0.0;
    return out;
}

// A link carries each job for the fraction of time its traffic keeps it busy: busy times and
// bytes (each in its own job's step) add, and so do utilizations, up to 1.
void addTraffic(const StepTraffic& job, StepTraffic& total)
{
    for (size_t l = 0; l < total.links.size(); ++l) {
        LinkTraffic& t = total.links[l];
        const LinkTraffic& add = job.links[l];
        t.bytes += add.bytes;
        t.busyS += add.busyS;
        t.utilization = std::min(1.0, t.utilization + add.utilization);
        t.dims |= add.dims;
    }
    total.stepTimeS = std::max(total.stepTimeS, job.stepTimeS);
}

void sumTiers(const Topology& topology, StepTraffic& traffic)
{
    traffic.tiers = {};
    for (size_t l = 0; l < traffic.links.size(); ++l) {
        TierTraffic& tier = traffic.tiers[size_t(topology.links()[l].cls)];
        tier.links += 1;
        tier.bytes += traffic.links[l].bytes;
        tier.maxUtilization = std::max(tier.maxUtilization, traffic.links[l].utilization);
    }
}

} // namespace

JobsEvaluation evaluateJobs(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
                            const EvalOptions& opts)
{
    JobsEvaluation out;
    out.jobs.resize(runs.size());
    for (size_t j = 0; j < runs.size(); ++j) {
        out.jobs[j].alone = evaluate(cluster, runs[j], opts);
        out.jobs[j].slowedByS.assign(runs.size(), 0.0);
    }
    // Where nothing can hold a flow but its own ends, no job slows another (fabricshape.h).
    if (runs.size() < 2 || !fabricCanContend(cluster)) {
        for (JobResult& r : out.jobs)
            r.shared = r.alone;
        return out;
    }
    const std::shared_ptr<const Topology> topology = cachedTopology(cluster);
    std::vector<std::shared_ptr<const JobLoads>> loads;
    std::vector<PerDim<double>> busy;
    for (size_t j = 0; j < runs.size(); ++j) {
        loads.push_back(cachedJobLoads(cluster, runs[j]));
        busy.push_back(busyOf(out.jobs[j].alone));
    }
    for (size_t j = 0; j < runs.size(); ++j) {
        std::vector<NeighbourJob> neighbours;
        std::vector<size_t> neighbourJobs;
        for (size_t k = 0; k < runs.size(); ++k) {
            if (k == j)
                continue;
            neighbours.push_back({loads[k].get(), busy[k]});
            neighbourJobs.push_back(k);
        }
        const std::shared_ptr<const FabricFactors> alone = cachedFabricFactors(cluster, runs[j]);
        const SharedFactors shared =
            sharedFactors(*topology, *alone, {loads[j].get(), busy[j]}, neighbours);
        JobResult& r = out.jobs[j];
        if (shared.factors.fabric == alone->fabric &&
            shared.factors.hopFabric == alone->hopFabric) {
            r.shared = r.alone;
            continue;
        }
        EvalOptions withOthers = opts;
        withOthers.fabric = std::make_shared<const FabricFactors>(shared.factors);
        r.shared = evaluate(cluster, runs[j], withOthers);
        r.slowedByS = slowedBy(r, shared, neighbourJobs, runs.size());
    }
    return out;
}

JobsTraffic jobsTraffic(const Topology& topology, const std::vector<RunDesc>& runs,
                        const JobsEvaluation& evaluation, const Calibration* calibration)
{
    JobsTraffic out;
    for (size_t j = 0; j < runs.size(); ++j) {
        const StepTraffic t =
            stepTraffic(topology, runs[j], evaluation.jobs[j].shared.stepTimeS, calibration);
        if (j == 0) {
            out.total = t;
            out.jobsOn.assign(t.links.size(), 0);
        } else {
            addTraffic(t, out.total);
        }
        for (size_t l = 0; l < t.links.size(); ++l)
            if (t.links[l].bytes > 0)
                out.jobsOn[l] |= uint64_t(1) << j;
    }
    if (runs.size() > 1)
        sumTiers(topology, out.total);
    return out;
}

} // namespace cs
