#pragma once
// Where each parallel dimension's groups sit: how many members share an NVLink domain and how
// many domains a group spans, for the dense dimensions and the experts, and the links each group
// reaches, slowed by the contention of its routed flows. Aligned layouts are solved in closed
// form; anything else walks the ranks (placement.h).

#include "description.h"
#include "workload.h"

namespace cs {

// A link at `factor` of its rate (a contention factor of the fabric).
LinkSpeed slowedBy(LinkSpeed link, double factor);

// The TP, CP and DP groups (DP's gradients reduced over the CP ranks too) and the pipeline's
// hops: which of them leave an NVLink domain.
void placeDimensions(const ClusterDesc& cluster, const RunDesc& run, Workload& w);

// The expert-parallel and expert data-parallel groups, folded over a stage's tp x cp x dp ranks.
void placeExperts(const ClusterDesc& cluster, const RunDesc& run, Workload& w);

} // namespace cs
