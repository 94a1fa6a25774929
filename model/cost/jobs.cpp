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

// The fabric as each job sees it with the others running, from every job timed alone.
class SharedFabric {
public:
    SharedFabric(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
                 const std::vector<const Evaluation*>& alone)
        : m_cluster(cluster)
        , m_runs(runs)
        , m_topology(cachedTopology(cluster))
    {
        for (size_t j = 0; j < runs.size(); ++j) {
            m_loads.push_back(cachedJobLoads(cluster, runs[j]));
            m_busy.push_back(busyOf(*alone[j]));
        }
    }

    // Job j's factors with the others running; `neighbourJobs` gets the others' indices in
    // the order of SharedFactors::blame.
    SharedFactors factorsOf(size_t j, std::vector<size_t>& neighbourJobs) const
    {
        std::vector<NeighbourJob> neighbours;
        neighbourJobs.clear();
        for (size_t k = 0; k < m_runs.size(); ++k) {
            if (k == j)
                continue;
            neighbours.push_back({m_loads[k].get(), m_busy[k]});
            neighbourJobs.push_back(k);
        }
        const std::shared_ptr<const FabricFactors> alone =
            cachedFabricFactors(m_cluster, m_runs[j]);
        return sharedFactors(*m_topology, *alone, {m_loads[j].get(), m_busy[j]}, neighbours);
    }

    static bool changes(const SharedFactors& shared, const FabricFactors& alone)
    {
        return shared.factors.fabric != alone.fabric || shared.factors.hopFabric != alone.hopFabric;
    }

private:
    const ClusterDesc& m_cluster;
    const std::vector<RunDesc>& m_runs;
    std::shared_ptr<const Topology> m_topology;
    std::vector<std::shared_ptr<const JobLoads>> m_loads;
    std::vector<PerDim<double>> m_busy;
};

// Where nothing can hold a flow but its own ends, no job slows another (fabricshape.h).
bool jobsCanContend(const ClusterDesc& cluster, const std::vector<RunDesc>& runs)
{
    return runs.size() > 1 && fabricCanContend(cluster);
}

} // namespace

JobsEvaluation evaluateJobs(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
                            const EvalOptions& opts)
{
    JobsEvaluation out;
    out.jobs.resize(runs.size());
    std::vector<const Evaluation*> alone;
    for (size_t j = 0; j < runs.size(); ++j) {
        out.jobs[j].alone = evaluate(cluster, runs[j], opts);
        out.jobs[j].shared = out.jobs[j].alone;
        out.jobs[j].slowedByS.assign(runs.size(), 0.0);
        alone.push_back(&out.jobs[j].alone);
    }
    if (!jobsCanContend(cluster, runs))
        return out;
    const SharedFabric fabric(cluster, runs, alone);
    std::vector<size_t> neighbourJobs;
    for (size_t j = 0; j < runs.size(); ++j) {
        const SharedFactors shared = fabric.factorsOf(j, neighbourJobs);
        if (!SharedFabric::changes(shared, *cachedFabricFactors(cluster, runs[j])))
            continue;
        JobResult& r = out.jobs[j];
        EvalOptions withOthers = opts;
        withOthers.fabric = std::make_shared<const FabricFactors>(shared.factors);
        r.shared = evaluate(cluster, runs[j], withOthers);
        r.slowedByS = slowedBy(r, shared, neighbourJobs, runs.size());
    }
    return out;
}

Evaluation evaluateJob(const ClusterDesc& cluster, const std::vector<RunDesc>& runs, size_t job,
                       const EvalOptions& opts)
{
    if (!jobsCanContend(cluster, runs))
        return evaluate(cluster, runs[job], opts);
    EvalOptions figures = opts;
    figures.timeline = false;
    std::vector<Evaluation> alone;
    alone.reserve(runs.size());
    std::vector<const Evaluation*> pointers;
    for (const RunDesc& run : runs) {
        alone.push_back(evaluate(cluster, run, figures));
        pointers.push_back(&alone.back());
    }
    std::vector<size_t> neighbourJobs;
    const SharedFactors shared =
        SharedFabric(cluster, runs, pointers).factorsOf(job, neighbourJobs);
    EvalOptions withOthers = opts;
    if (SharedFabric::changes(shared, *cachedFabricFactors(cluster, runs[job])))
        withOthers.fabric = std::make_shared<const FabricFactors>(shared.factors);
    return evaluate(cluster, runs[job], withOthers);
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
