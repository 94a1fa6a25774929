#pragma once
// The traffic of each parallel dimension's collectives as flows between GPUs, from the
// placement of ranks on the topology. Collective groups run hierarchically, as NCCL does
// across NVLink domains: inside each domain on NVLink first, then across domains, where the
// members at the same position in each domain form the outer groups (rail-aligned when the
// placement is).
// - tp and dp rings (all-gather, reduce-scatter, all-reduce; a tree takes the ring's flows):
//   each member sends its part to the next member of its ring, inner and outer.
// - ep all-to-all: each member sends to every other member of its domain, and to the member
//   at its position in every other domain.
// - cp passes K and V round its whole group in rank order, point to point; the pipeline sends
//   from each stage to the next, and from the last back to the first with virtual stages.
// - dp reduces gradients over its group and cp's together (Megatron's data-parallel group with
//   context parallelism).

#include <cstdint>
#include <vector>

#include "placement.h"
#include "routing.h"
#include "topology.h"

namespace cs {

enum class FlowPhase : uint8_t {
    Inner, // the NVLink part of a hierarchical collective
    Outer, // its part across NVLink domains
    Whole, // point to point: the cp ring, pipeline sends
};

struct Flow {
    int src = 0;     // GPU
    int dst = 0;     // GPU
    float share = 1; // of what the source sends in its phase
    FlowPhase phase = FlowPhase::Whole;
    int hop = 0; // pipeline sends: the sending stage
};

// Every flow of dimension d's collectives, all its groups at once. `interleaved`: the pipeline
// also sends from its last stage to the first (virtual pipeline stages).
std::vector<Flow> dimensionFlows(const Topology& topology, const Placement& placement, Dim d,
                                 bool interleaved);

// The flows of one group: the one `rank` belongs to in dimension d (its pipeline for pp).
std::vector<Flow> groupFlows(const Topology& topology, const Placement& placement, int rank, Dim d,
                             bool interleaved);

// The ranks of that group, in rank order (stage order for pp).
std::vector<int> collectiveGroup(const Placement& placement, int rank, Dim d);

// Whether `rank` is the first of its group in dimension d (one per group).
bool leadsGroup(const Placement& placement, int rank, Dim d);

// Whether every group of dimension d stays inside one NVLink domain (for dp: with cp's).
bool staysInDomains(const Placement& placement, Dim d);

// A link a group's traffic crosses, and the share of the group's flows it carries (a flow
// spread over four spines puts a quarter on each of their uplinks).
struct GroupLink {
    int link = 0;
    double flows = 0;
};

// The routed paths of the traffic of `rank`'s group in dimension d (its pipeline for pp),
// every link once, in link order. Flows with no path left are skipped.
std::vector<GroupLink> groupLinks(const Router& router, const Placement& placement, int rank, Dim d,
                                  bool interleaved);

// The groups of dimension d (each by its first rank) whose traffic crosses `link`.
std::vector<int> groupsOnLink(const Router& router, const Placement& placement, int link, Dim d,
                              bool interleaved);

} // namespace cs
