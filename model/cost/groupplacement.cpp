#include "groupplacement.h"

#include <algorithm>
#include <optional>

#include "placement.h"

namespace cs {

namespace {

// A group of this shape, its links slowed by the contention of the dimension's routed flows.
DimComm dimCommOf(Dim dim, GroupShape shape, const Links& links)
{
    const FabricFactors* factors = links.factors.get();
    DimComm dc;
    dc.shape = shape;
    dc.group = {shape.perDomain, shape.domains,
                slowedBy(links.nvlink, factors ? factors->nvlink[dim] : 1.0),
                slowedBy(links.fabric, factors ? factors->fabric[dim] : 1.0), links.nvls};
    dc.scaleOut = shape.crossesDomains();
    return dc;
}

// Aligned layouts (every power-of-two case without failures) are solved in closed form, so
// that the search never walks the ranks; anything else asks Placement, which does.
GroupShape shapeOf(Dim d, int size, int stride, int domainSize, const Placement* placement)
{
    const int64_t span = int64_t(stride) * size;
    if (size <= 1)
        return {1, 1};
    if (!placement) {
        if (span <= domainSize && domainSize % span == 0)
            return {size, 1};
        if (stride % domainSize == 0)
            return {1, size};
        if (domainSize % stride == 0 && span % domainSize == 0) {
            const int perDomain = domainSize / stride;
            return {perDomain, size / perDomain};
        }
    }
    const DimensionPlacement& dp = placement->dimension(d);
    if (dp.insideDomain())
        return {size, 1};
    return {std::max(1, size / dp.maxDomainsPerGroup), dp.maxDomainsPerGroup};
}

bool alignedOnDomains(const PerDim<int>& sizes, const PerDim<int>& strides, int domain)
{
    for (Dim d : {Dim::TP, Dim::CP, Dim::DP}) {
        const int64_t span = int64_t(strides[d]) * sizes[d];
        const bool aligned = sizes[d] <= 1 || (span <= domain && domain % span == 0) ||
                             strides[d] % domain == 0 ||
                             (domain % strides[d] == 0 && span % domain == 0);
        if (!aligned)
            return false;
    }
    return true;
}

// Whether the GPUs out of service are whole NVLink domains (or none): then the healthy ones,
// which ranks fill in order, are whole domains too, laid out as if the others did not exist.
bool onlyWholeDomainsOut(const ClusterDesc& cluster)
{
    if (cluster.healthyGpuCount() == cluster.gpuCount())
        return true;
    const std::vector<bool> healthy = cluster.healthyGpus();
    const size_t domain = size_t(cluster.domainSize());
    for (size_t first = 0; first < healthy.size(); first += domain)
        for (size_t g = first + 1; g < std::min(first + domain, healthy.size()); ++g)
            if (healthy[g] != healthy[first])
                return false;
    return true;
}

// Whether the run's allocation, if it has one, is of whole NVLink domains: then its ranks sit
// on domains as they would from GPU 0.
bool allocationOfWholeDomains(const ClusterDesc& cluster, const RunDesc& run)
{
    if (!run.allocation)
        return true;
    const int64_t domain = cluster.domainSize();
    for (const auto& [first, end] : allocatedGpuRanges(cluster, *run.allocation))
        if (first % domain != 0 || end % domain != 0)
            return false;
    return true;
}

// How many of the blocks [0, block), [block, 2 block) ... hold 0, step, 2 step ... (count).
int64_t blocksHit(int64_t step, int64_t count, int64_t block)
{
    if (step % block == 0)
        return count;
    if (block % step == 0)
        return (count + block / step - 1) / (block / step);
    int64_t blocks = 0, last = -1;
    for (int64_t k = 0; k < count; ++k) {
        if (k * step / block != last) {
            ++blocks;
            last = k * step / block;
        }
    }
    return blocks;
}

// How a group of `count` ranks of the first stage sits on NVLink domains, every GPU in service:
// its members are the stage's tp x cp x dp ranks, in placement order, numbered 0, step,
// 2 step ... Below pipeline parallelism's place in the order those ranks are consecutive GPUs
// (`below` of them); above it, each next block of `below` skips the other stages' GPUs.
GroupShape stageGroupShape(const RunDesc& run, const Workload& w, int step, int count,
                           int domainSize)
{
    PerDim<int> sizes;
    sizes[Dim::TP] = w.t;
    sizes[Dim::CP] = w.c;
    sizes[Dim::DP] = w.d;
    int64_t below = 1;
    for (Dim d : run.placement) {
        if (d == Dim::PP)
            break;
        below *= sizes[d];
    }
    count = std::max(1, count);
    int64_t domains = 0;
    if (below % domainSize == 0) {
        domains = blocksHit(step, count, domainSize);
    } else if (domainSize % (below * w.p) == 0) {
        domains = blocksHit(step, count, domainSize / w.p);
    } else {
        int64_t last = -1;
        for (int64_t k = 0; k < count; ++k) {
            const int64_t local = k * step;
            const int64_t domain = (local % below + local / below * below * w.p) / domainSize;
            if (domain != last) {
                ++domains;
                last = domain;
            }
        }
    }
    return {std::max(1, count / int(domains)), int(domains)};
}

} // namespace

LinkSpeed slowedBy(LinkSpeed link, double factor)
{
    return {link.GBps * factor, link.latencyUs};
}

// Strides follow the placement, innermost first; gradients are reduced over the data and
// context parallel ranks together.
void placeDimensions(const ClusterDesc& cluster, const RunDesc& run, Workload& w)
{
    PerDim<int> sizes;
    sizes[Dim::TP] = w.t;
    sizes[Dim::CP] = w.c;
    sizes[Dim::PP] = w.p;
    sizes[Dim::DP] = w.d;
    PerDim<int> strides;
    int stride = 1;
    for (Dim dim : run.placement) {
        strides[dim] = stride;
        stride *= sizes[dim];
    }
    const int domain = cluster.domainSize();
    std::optional<Placement> placement;
    const bool wholeDomains = w.gpus % domain == 0 && onlyWholeDomainsOut(cluster) &&
                              allocationOfWholeDomains(cluster, run);
    if (!wholeDomains || !alignedOnDomains(sizes, strides, domain))
        placement = placeRun(run, cluster);
    auto dimComm = [&](Dim dim, GroupShape shape) { return dimCommOf(dim, shape, w.links); };
    const Placement* p = placement ? &*placement : nullptr;
    for (Dim dim : {Dim::TP, Dim::CP, Dim::DP})
        w.dims[dim] = dimComm(dim, shapeOf(dim, sizes[dim], strides[dim], domain, p));
    GroupShape grad = w.dims[Dim::DP].shape;
    if (w.c > 1) {
        if (w.dims[Dim::CP].scaleOut)
            grad.domains *= w.c;
        else
            grad.perDomain *= w.c;
    }
    w.dims[Dim::DP] = dimComm(Dim::DP, grad);
    // PP hops are placed one by one (pipelineSends).
    const int ppStride = strides[Dim::PP];
    w.sendScaleOut.assign(size_t(w.p), false);
    for (int s = 0; s < w.p && w.p > 1; ++s) {
        const int next = (s + 1) % w.p;
        const int from = p ? p->gpuOfRank(s * ppStride) : s * ppStride;
        const int to = p ? p->gpuOfRank(next * ppStride) : next * ppStride;
        w.sendScaleOut[size_t(s)] = from / domain != to / domain;
    }
}

// Expert layers fold their groups over a stage's tp x cp x dp ranks (placement.h): the expert
// all-to-all runs within the EP groups, expert gradients are reduced over the expert
// data-parallel groups.
void placeExperts(const ClusterDesc& cluster, const RunDesc& run, Workload& w)
{
    const Parallelism& par = run.parallelism;
    const int ep = std::max(1, par.ep), etp = std::max(1, par.etp);
    w.expertDataWidth = std::max(1, w.t * w.c * w.d / (ep * etp));
    // Expert gradients are reduced as the dense ones are: the data-parallel flows' contention.
    auto comm = [&](GroupShape shape) { return dimCommOf(Dim::EP, shape, w.links); };
    auto dataComm = [&](GroupShape shape) { return dimCommOf(Dim::DP, shape, w.links); };
    if (!run.model.moe) {
        w.dims[Dim::EP] = comm({1, 1});
        w.expertData = w.dims[Dim::DP];
        return;
    }
    if (cluster.healthyGpuCount() == cluster.gpuCount() && allocationOfWholeDomains(cluster, run)) {
        // Every group is laid out alike: the one of rank 0 tells, without walking the ranks.
        const int domain = cluster.domainSize();
        w.dims[Dim::EP] = comm(stageGroupShape(run, w, etp, ep, domain));
        w.expertData = dataComm(stageGroupShape(run, w, etp * ep, w.expertDataWidth, domain));
        return;
    }
    const Placement placement = placeRun(run, cluster);
    auto shapeOf = [](const DimensionPlacement& d) {
        if (d.size <= 1)
            return GroupShape{1, 1};
        if (d.insideDomain())
            return GroupShape{d.size, 1};
        return GroupShape{std::max(1, d.size / d.maxDomainsPerGroup), d.maxDomainsPerGroup};
    };
    w.dims[Dim::EP] = comm(shapeOf(placement.dimension(Dim::EP)));
    w.expertData = dataComm(shapeOf(placement.expertData()));
}

} // namespace cs
