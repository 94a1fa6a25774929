#include "collectives.h"

#include <algorithm>
#include <cmath>

namespace cs {
namespace {

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
    if (g.domains <= 1)
        return allReduce(bytes, g.perDomain, g.inner).seconds;
    const double inner = 2 * ringReduceScatter(bytes, g.perDomain, g.inner);
    return inner + allReduce(bytes / g.perDomain, g.domains, g.outer).seconds;
}

} // namespace cs
