#include "fabricshape.h"

#include <algorithm>
#include <cmath>

namespace cs {

namespace {

int ceilDiv(int64_t a, int64_t b)
{
    return int((a + b - 1) / b);
}

// Ports a radix-port switch puts down at oversubscription o (down / up = o).
int downPorts(int radix, double o)
{
    return std::clamp(int(std::lround(radix * o / (1 + o))), 1, radix - 1);
}

// The fewest upper switches d (a divisor of `uplinks`, so that each lower switch has an equal
// bundle to each) whose ports, `lowers` x uplinks / d, fit the radix; all `uplinks` when none.
int fewestUppers(int uplinks, int lowers, int radix)
{
    for (int d = 1; d <= uplinks; ++d)
        if (uplinks % d == 0 && int64_t(lowers) * (uplinks / d) <= radix)
            return d;
    return uplinks;
}

} // namespace

int FabricShape::topTierPorts() const
{
    if (tiers == 1)
        return nodesPerLeaf * (railLeaves ? 1 : nicsPerNode);
    if (tiers == 2)
        return leaves * cablesLeafSpine;
    return pods * cablesSpineCore;
}

FabricShape fabricShape(const ClusterDesc& c)
{
    const FabricTopology& f = c.scaleOut.topology;
    FabricShape s;
    s.tiers = std::clamp(f.tiers, 1, 3);
    s.radix = std::max(4, f.switchRadix);
    s.gpusPerNode = std::max(1, c.gpusPerNode);
    s.nicsPerNode = f.kind == FabricKind::RailOptimized && f.rails > 0
                        ? std::clamp(f.rails, 1, s.gpusPerNode)
                        : s.gpusPerNode;
    s.railLeaves = f.kind == FabricKind::RailOptimized && s.tiers > 1;
    const int nicsOnLeafPerNode = s.railLeaves ? 1 : s.nicsPerNode;
    const double leafOver = std::max(1.0, f.oversubscriptionAt(0));
    const int ports = s.tiers == 1 ? s.radix : downPorts(s.radix, leafOver);
    s.nodesPerLeaf = f.nodesPerLeaf > 0 ? f.nodesPerLeaf : std::max(1, ports / nicsOnLeafPerNode);
    s.nodesPerLeaf = std::min(s.nodesPerLeaf, std::max(1, c.nodeCount()));
    s.leafDown = s.nodesPerLeaf * nicsOnLeafPerNode;
    s.leafUp = s.tiers == 1 ? 0 : std::max(1, int(std::lround(s.leafDown / leafOver)));
    s.nodeGroups = ceilDiv(c.nodeCount(), s.nodesPerLeaf);
    s.leaves = s.nodeGroups * s.leavesPerGroup();
    s.leavesPerPod = s.leaves;
    if (s.tiers == 1)
        return s;
    if (s.tiers == 2) {
        s.spinesPerPod = fewestUppers(s.leafUp, s.leaves, s.radix);
        s.cablesLeafSpine = s.leafUp / s.spinesPerPod;
        s.spineDown = s.leaves * s.cablesLeafSpine;
        return s;
    }
    const double spineOver = std::max(1.0, f.oversubscriptionAt(1));
    s.spinesPerPod = s.leafUp;
    s.cablesLeafSpine = 1;
    s.spineDown = downPorts(s.radix, spineOver);
    s.spineUp = std::max(1, int(std::lround(s.spineDown / spineOver)));
    s.leavesPerPod = std::min(s.leaves, s.spineDown);
    s.pods = ceilDiv(s.leaves, s.leavesPerPod);
    s.coresPerPlane = fewestUppers(s.spineUp, s.pods, s.radix);
    s.cablesSpineCore = s.spineUp / s.coresPerPlane;
    return s;
}

bool fabricCanContend(const ClusterDesc& c)
{
    const FabricTopology& f = c.scaleOut.topology;
    if (!c.failures.switches.empty() || !c.failures.links.empty())
        return true;
    const int tiers = std::clamp(f.tiers, 1, 3);
    if (tiers == 1)
        return fabricShape(c).leaves > 1;
    if (f.routing == Routing::Ecmp)
        return true;
    for (int b = 0; b + 1 < tiers; ++b)
        if (f.oversubscriptionAt(b) > 1)
            return true;
    return false;
}

} // namespace cs
