#pragma once
// The layouts a search tries: every valid tp, cp, pp, vp, ep and micro-batch of a run on a
// cluster, and the placements worth trying for each (search.h says what is left out and why).

#include <functional>
#include <vector>

#include "description.h"

namespace cs {

// One configuration: what the search varies, ready to put into a run (withLayout).
struct Layout {
    Parallelism parallelism; // dp resolved
    PlacementOrder placement = kPlacedDims;
    int microBatch = 1;
    bool operator==(const Layout&) const = default;
};

// A run stripped of everything the cost model does not read, so that workers can change it
// in place and copy it cheaply.
RunDesc probeRun(const RunDesc& run);

// The placements worth trying for these dimension sizes, one per class of equivalent
// orderings, in a fixed order.
std::vector<PlacementOrder> distinctPlacements(const PerDim<int>& sizes, int domainSize);

// The valid layouts before placement and recompute are chosen: placement is the default and
// recompute none. Deterministic order, whatever the number of threads that check them. Once
// `stop` returns true no further (tp, cp) is enumerated: the layouts found so far are returned.
std::vector<Layout> enumerateLayouts(const ClusterDesc& cluster, const RunDesc& run,
                                     int threads = 1, const std::function<bool()>& stop = {});

} // namespace cs
