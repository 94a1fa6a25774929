#include "collectives.h"

#include <algorithm>
#include <cmath>

namespace cs {
namespace {

// NVLS's link efficiency over a ring's: nccl-tests all_reduce_perf on 8 H100 (algorithm
// bandwidth 211 GB/s by ring, 275 by NVLS: 0.82 and 0.69 of 450 GB/s moving 1.75 S and
// 1.125 S) and on 8 B300 (397 and 483 GB/s of 900: 0.77 and 0.60), NCCL issue #2140.
constexpr double kNvlsLinkShare = 0.81;

double transfer(double bytes, LinkSpeed link)
{
    return bytes / (link.GBps * 1e9);
}
double hops(int n, LinkSpeed link)
{
    return n * link.latencyUs * 1e-6;
}

} // namespace

double ringAllGather(double bytes, int n, LinkSpeed link)
{
    if (n <= 1)
        return 0;
    return hops(n - 1, link) + transfer(bytes * (n - 1) / n, link);
}

double ringReduceScatter(double bytes, int n, LinkSpeed link)
{
    return ringAllGather(bytes, n, link);
}

double ringAllReduce(double bytes, int n, LinkSpeed link)
{
    return 2 * ringAllGather(bytes, n, link);
}

double allGatherHbmBytes(double bytes, int n)
{
    return n > 1 ? 2 * bytes * (n - 1) / n : 0.0;
}

double reduceScatterHbmBytes(double bytes, int n)
{
    return n > 1 ? 3 * bytes * (n - 1) / n : 0.0;
}

double treeAllReduce(double bytes, int n, LinkSpeed link)
{
    if (n <= 1)
        return 0;
    const int depth = int(std::ceil(std::log2(double(n))));
    // Reduce up and broadcast down; each link carries the buffer once in each direction.
    return 2 * hops(depth, link) + 2 * transfer(bytes, link);
}

CollectiveCost allReduce(double bytes, int n, LinkSpeed link)
{
    const double ring = ringAllReduce(bytes, n, link);
    const double tree = treeAllReduce(bytes, n, link);
    if (tree < ring)
        return {tree, CollectiveAlgorithm::Tree};
    return {ring, CollectiveAlgorithm::Ring};
}

double nvlsAllReduce(double bytes, int n, LinkSpeed link)
{
    if (n <= 1)
        return 0;
    return hops(2, link) + transfer(bytes * (1 + 1.0 / n), {link.GBps * kNvlsLinkShare, 0});
}

double pointToPoint(double bytes, LinkSpeed link)
{
    return hops(1, link) + transfer(bytes, link);
}

double reduceScatterScaleOut(double bytes, const HierarchicalGroup& g)
{
    return ringReduceScatter(bytes / g.perDomain, g.domains, g.outer);
}

double reduceScatter(double bytes, const HierarchicalGroup& g)
{
    return ringReduceScatter(bytes, g.perDomain, g.inner) + reduceScatterScaleOut(bytes, g);
}

double allGather(double bytes, const HierarchicalGroup& g)
{
    return reduceScatter(bytes, g);
}

double allReduce(double bytes, const HierarchicalGroup& g)
{
    // Across domains: reduce-scattered inside each domain and gathered back after the domains'
    // all-reduce. Inside, NCCL takes NVLink SHARP where it is faster (NVLSTree across domains).
    const double ring = g.domains <= 1 ? allReduce(bytes, g.perDomain, g.inner).seconds
                                       : 2 * ringReduceScatter(bytes, g.perDomain, g.inner);
    const double inner = g.nvls ? std::min(ring, nvlsAllReduce(bytes, g.perDomain, g.inner)) : ring;
    if (g.domains <= 1)
        return inner;
    return inner + allReduce(bytes / g.perDomain, g.domains, g.outer).seconds;
}

} // namespace cs
