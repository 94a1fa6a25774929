#pragma once
// Lights the links the step's traffic uses at the current time: fabric bundles for dimensions
// that cross NVLink domains, domain outlines for traffic that stays inside them, each in its
// dimension's colour, brighter with more of it in use. Drawn over the renderer's frame,
// because the renderer keeps links in its cached static layer.

#include <vector>

#include "activity.h"

class QPainter;
class TopologyLayout;
struct ViewTransform;
namespace cs {
struct StepTraffic;
}

// The routed paths of each dimension's traffic: every link some group of it sends over (the
// step's link traffic, routed by the fabric model), and far out the bundles holding them.
struct DimRoutes {
    cs::PerDim<std::vector<int>> links;   // scale-out and NVLink links, in link order
    cs::PerDim<std::vector<int>> bundles; // layout bundles
    cs::PerDim<bool> nvLink{};            // some of its traffic stays on NVLink
};
DimRoutes dimRoutes(const TopologyLayout& layout, const cs::StepTraffic& traffic);

// Draws the lit links of `use` over a topology drawn with `view` (also for --render): each
// active dimension's routed paths when `routes` is given, else every bundle up to the tier
// its traffic reaches.
void paintActivityLinks(QPainter& p, const TopologyLayout& layout, const ViewTransform& view,
                        const cs::LinkUse& use, const DimRoutes* routes = nullptr);
