#include "placejob.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "fabricshape.h"
#include "jobs.h"
#include "text.h"

namespace cs {

namespace {

// Ties within a microsecond of cost are no real difference.
constexpr double kTieS = 1e-6;

// The cluster cut into units (racks or nodes): which hold a running job's GPU, and the healthy
// GPUs before each, so that any range's count is one subtraction.
class FreeUnits {
public:
    FreeUnits(const ClusterDesc& cluster, const std::vector<RunDesc>& running,
              Allocation::Unit unit)
        : m_nodesPerUnit(unit == Allocation::Unit::Racks ? cluster.nodesPerRack : 1)
        , m_gpusPerNode(cluster.gpusPerNode)
    {
        const int64_t perUnit = int64_t(m_nodesPerUnit) * cluster.gpusPerNode;
        const int64_t units = perUnit > 0 ? cluster.gpuCount() / perUnit : 0;
        m_held.assign(size_t(units), false);
        for (const RunDesc& run : running) {
            for (const auto& [first, end] : allocatedGpuRanges(cluster, *run.allocation))
                for (int64_t u = first / perUnit; u < units && u * perUnit < end; ++u)
                    m_held[size_t(u)] = true;
        }
        const std::vector<bool> healthy = cluster.healthyGpus();
        m_healthyBefore.assign(size_t(units) + 1, 0);
        for (int64_t u = 0; u < units; ++u) {
            int64_t count = 0;
            for (int64_t g = u * perUnit; g < (u + 1) * perUnit; ++g)
                count += healthy[size_t(g)] ? 1 : 0;
            m_healthyBefore[size_t(u) + 1] = m_healthyBefore[size_t(u)] + count;
        }
    }

    int count() const { return int(m_held.size()); }
    int nodesPerUnit() const { return m_nodesPerUnit; }
    int gpusPerNode() const { return m_gpusPerNode; }
    bool anyFree() const { return std::find(m_held.begin(), m_held.end(), false) != m_held.end(); }
    int64_t freeHealthyGpus() const
    {
        int64_t n = 0;
        for (int u = 0; u < count(); ++u)
            n += m_held[size_t(u)] ? 0 : healthy(u, u);
        return n;
    }

    // The last unit of the shortest free range from `first` with `gpus` healthy GPUs; -1 when
    // none.
    int lastUnitFor(int first, int64_t gpus) const
    {
        for (int u = first; u < count() && !m_held[size_t(u)]; ++u)
            if (healthy(first, u) >= gpus)
                return u;
        return -1;
    }

private:
    int64_t healthy(int first, int last) const
    {
        return m_healthyBefore[size_t(last) + 1] - m_healthyBefore[size_t(first)];
    }

    int m_nodesPerUnit;
    int m_gpusPerNode;
    std::vector<bool> m_held;
    std::vector<int64_t> m_healthyBefore;
};

struct Candidate {
    Allocation allocation;
    int leaves = 0;
    int64_t gpusHeld = 0;
};

// The free ranges of `units` that fit `gpus`, from the starts `starts` says yes to.
template <typename Starts>
std::vector<Candidate> rangesOf(const FreeUnits& units, Allocation::Unit unit, int64_t gpus,
                                int nodesPerLeaf, Starts starts)
{
    std::vector<Candidate> out;
    for (int first = 0; first < units.count(); ++first) {
        if (!starts(first))
            continue;
        const int last = units.lastUnitFor(first, gpus);
        if (last < 0)
            continue;
        const int firstNode = first * units.nodesPerUnit();
        const int lastNode = (last + 1) * units.nodesPerUnit() - 1;
        out.push_back({Allocation{unit, {{first, last}}},
                       lastNode / nodesPerLeaf - firstNode / nodesPerLeaf + 1,
                       int64_t(lastNode - firstNode + 1) * units.gpusPerNode()});
    }
    return out;
}

// At most `budget` of `all`, spread evenly over them, appended to `chosen`; returns how many
// there were.
int takeSpread(std::vector<Candidate> all, int budget, std::vector<Candidate>& chosen)
{
    const size_t n = all.size();
    const size_t take = std::min(n, size_t(std::max(0, budget)));
    for (size_t i = 0; i < take; ++i)
        chosen.push_back(std::move(all[i * n / take]));
    return int(n);
}

std::string gpusText(int64_t gpus)
{
    return withThousands(gpus) + (gpus == 1 ? " GPU" : " GPUs");
}

} // namespace

PlaceJobResult placeJob(const ClusterDesc& cluster, const RunDesc& job,
                        const std::vector<RunDesc>& running, const PlaceJobOptions& options)
{
    PlaceJobResult result;
    const Parallelism& par = job.parallelism;
    if (par.dp <= 0) {
        result.nothingFits = "the new run gives no parallelism.dp: its data-parallel size says "
                             "how many GPUs it needs";
        return result;
    }
    if (running.size() >= size_t(kMaxJobs)) {
        result.nothingFits = std::to_string(running.size()) + " jobs are running; at most " +
                             std::to_string(kMaxJobs) +
                             " are evaluated together, the new one among them";
        return result;
    }
    for (const RunDesc& other : running)
        if (!other.allocation) {
            result.nothingFits = "the running job " + inQuotes(other.name) +
                                 " has no allocation: it holds the whole cluster";
            return result;
        }
    const int64_t gpus = int64_t(par.tp) * par.cp * par.pp * par.dp;
    const FabricShape shape = fabricShape(cluster);
    const int nodesPerLeaf = std::max(1, shape.nodesPerLeaf);

    const FreeUnits racks(cluster, running, Allocation::Unit::Racks);
    std::vector<Candidate> chosen;
    const auto onLeafStart = [&](int rack) {
        return rack * cluster.nodesPerRack % nodesPerLeaf == 0;
    };
    int found =
        takeSpread(rangesOf(racks, Allocation::Unit::Racks, gpus, nodesPerLeaf, onLeafStart),
                   options.maxCandidates, chosen);
    found += takeSpread(rangesOf(racks, Allocation::Unit::Racks, gpus, nodesPerLeaf,
                                 [&](int rack) { return !onLeafStart(rack); }),
                        options.maxCandidates - int(chosen.size()), chosen);
    const int64_t rackGpus = int64_t(cluster.nodesPerRack) * cluster.gpusPerNode;
    const bool nodeRanges = gpus < rackGpus && cluster.scaleUp.domain == DomainKind::Node;
    if (nodeRanges) {
        const FreeUnits nodes(cluster, running, Allocation::Unit::Nodes);
        found += takeSpread(
            rangesOf(nodes, Allocation::Unit::Nodes, gpus, nodesPerLeaf, [](int) { return true; }),
            options.maxCandidates - int(chosen.size()), chosen);
    }
    result.candidatesFound = found;
    if (chosen.empty()) {
        const int64_t freeGpus =
            nodeRanges ? FreeUnits(cluster, running, Allocation::Unit::Nodes).freeHealthyGpus()
                       : racks.freeHealthyGpus();
        result.nothingFits = "no free range of " + std::string(nodeRanges ? "nodes" : "racks") +
                             " holds the " + gpusText(gpus) +
                             " the new run needs (tp x cp x pp x dp); the running jobs leave " +
                             gpusText(freeGpus) + " in service free";
        return result;
    }

    std::vector<RunDesc> runs = running;
    const JobsEvaluation before = evaluateJobs(cluster, running, options.eval);
    runs.push_back(job);
    const int total = int(chosen.size());
    for (const Candidate& c : chosen) {
        if (options.progress)
            options.progress(int(result.placements.size()), total);
        if (options.cancel && options.cancel->load()) {
            result.placements.clear();
            result.cancelled = true;
            return result;
        }
        runs.back().allocation = c.allocation;
        const JobsEvaluation with = evaluateJobs(cluster, runs, options.eval);
        JobPlacement p{c.allocation, with.jobs.back().shared.stepTimeS, 0, c.leaves, c.gpusHeld};
        for (size_t j = 0; j < running.size(); ++j)
            p.othersSlowedS += with.jobs[j].shared.stepTimeS - before.jobs[j].shared.stepTimeS;
        result.placements.push_back(std::move(p));
    }
    if (options.progress)
        options.progress(total, total);
    std::stable_sort(result.placements.begin(), result.placements.end(),
                     [](const JobPlacement& a, const JobPlacement& b) {
                         const auto key = [](const JobPlacement& p) {
                             return std::tuple(std::llround(p.costS() / kTieS), p.leaves,
                                               p.gpusHeld);
                         };
                         return key(a) < key(b);
                     });
    return result;
}

} // namespace cs
