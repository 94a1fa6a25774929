#pragma once
// How a cluster's scale-out fabric is sized, from its description alone: NICs per node, nodes
// per leaf, each tier's ports and switch counts. Topology builds the graph on it; the cost
// model asks it whether the fabric can slow anything down without building the graph.
//
// - NICs: `rails` per node (default gpus_per_node); NIC k of a node serves the GPUs l with
//   l x rails / gpus_per_node = k, at their rates together, so a node's scale-out bandwidth is
//   gpus_per_node x Gbps_per_gpu whatever the rails.
// - Leaves: with two or three tiers, a rail-optimized leaf takes NIC k of `nodes_per_leaf`
//   consecutive nodes (rail k); a fat-tree leaf every NIC of its nodes. One tier has no spine
//   to join rails, so its leaves take every NIC of their nodes either way. Default
//   nodes_per_leaf: the ports a radix-port leaf puts down at the leaf's oversubscription o
//   (radix x o / (1 + o); all of them with one tier), over the NICs a node puts on a leaf.
//   Uplinks: the leaf's NIC ports over o.
// - Two tiers: every leaf has an equal bundle of uplinks to every spine; the fewest spines
//   whose ports fit the radix. Three tiers: pods of as many leaves as a spine puts ports down
//   (radix x o / (1 + o) at the spine boundary's o), one spine per leaf uplink in each pod,
//   each leaf one cable to each; spine j of every pod joins plane j of the cores, with an
//   equal bundle to each core of the plane, the fewest cores whose ports fit the radix.
// - The top tier reaches every switch below it: when that takes more ports than the radix
//   (Fairwater's 256 leaves on two tiers), its switches have the ports it takes, as modular
//   and multi-plane switches do (`topTierPorts`).

#include "description.h"

namespace cs {

struct FabricShape {
    int tiers = 2;
    int radix = 64;
    int gpusPerNode = 1;
    int nicsPerNode = 1;
    bool railLeaves = true; // a leaf serves one rail
    int nodesPerLeaf = 1;
    int leafDown = 1; // NIC ports of a full leaf
    int leafUp = 0;   // uplinks of a leaf
    int nodeGroups = 1;
    int leaves = 1;
    int leavesPerPod = 1;
    int pods = 1;
    int spinesPerPod = 0;
    int cablesLeafSpine = 0; // between a leaf and each spine of its pod
    int spineDown = 0;       // leaf ports of a spine
    int spineUp = 0;         // core ports of a spine (three tiers)
    int coresPerPlane = 0;
    int cablesSpineCore = 0; // between a spine and each core of its plane

    int leavesPerGroup() const { return railLeaves ? nicsPerNode : 1; }
    int spines() const { return pods * spinesPerPod; }
    int cores() const { return spinesPerPod * coresPerPlane; }
    // The NIC of the GPU at `local` in its node (index in the node).
    int nicOfLocal(int local) const { return local * nicsPerNode / gpusPerNode; }
    // The first GPU (index in the node) that NIC k serves.
    int firstLocalOfNic(int k) const { return (k * gpusPerNode + nicsPerNode - 1) / nicsPerNode; }
    // Ports of a switch of the top tier; above the radix when the radix cannot close the tier.
    int topTierPorts() const;
};

FabricShape fabricShape(const ClusterDesc& cluster);

// Whether the fabric can slow any traffic below its NICs' rate: an oversubscribed boundary,
// hashed (ECMP) routing, switches or links out of service, or leaves that no tier joins.
// When it cannot, every flow runs at its NICs' rate and no route needs to be computed.
bool fabricCanContend(const ClusterDesc& cluster);

} // namespace cs
