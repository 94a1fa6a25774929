#pragma once
// Small clusters and runs for the fabric tests: HGX nodes of 8 H100 (one NVLink domain per
// node), four nodes a rack, on a fabric the test shapes; a 7B-class run laid out on them.

#include <catch2/catch.hpp>

#include "description.h"
#include "validation.h"

// `nodes` HGX nodes of 8 H100, rail-optimized, two tiers, four nodes per leaf by default.
inline cs::ClusterDesc hgxCluster(int nodes, int nodesPerLeaf = 4, double oversubscription = 1.0)
{
    cs::ClusterDesc c;
    c.name = "fabric test";
    c.gpu = *cs::findCatalogGpu("H100");
    c.racks = nodes / 4;
    c.nodesPerRack = 4;
    c.gpusPerNode = 8;
    c.scaleUp = {"NVLink 4", cs::DomainKind::Node, 900, 1.0};
    c.scaleOut.name = "NDR";
    c.scaleOut.GbpsPerGpu = 400;
    c.scaleOut.latencyUs = 5.0;
    c.scaleOut.topology.nodesPerLeaf = nodesPerLeaf;
    c.scaleOut.topology.oversubscription = {oversubscription};
    return c;
}

// tp 8 (one node) x pp 4 x dp, laid out innermost first as `placement` says.
inline cs::RunDesc hgxRun(const cs::ClusterDesc& cluster, cs::PlacementOrder placement)
{
    cs::RunDesc r;
    r.name = "fabric test run";
    r.model.name = "7B-class";
    r.model.layers = 32;
    r.model.hidden = 4096;
    r.model.ffnHidden = 16384;
    r.model.heads = 32;
    r.model.kvHeads = 32;
    r.model.vocab = 32000;
    r.model.seqLen = 4096;
    r.model.gatedMlp = true;
    r.precision = cs::Precision::BF16;
    r.parallelism.tp = 8;
    r.parallelism.pp = 4;
    r.parallelism.dp = int(cluster.gpuCount() / 32);
    r.parallelism.sequenceParallel = true;
    r.parallelism.distributedOptimizer = true;
    r.batch = {r.parallelism.dp * 8, 1};
    r.placement = placement;
    cs::Diagnostics diags;
    cs::validateClusterRun(cluster, r, diags);
    INFO(diags.formatAll());
    REQUIRE(diags.empty());
    return r;
}

// Data-parallel groups within a leaf: dp right after tp, so a group's four nodes are
// consecutive (one leaf of four nodes per rail).
inline constexpr cs::PlacementOrder kDpUnderOneLeaf{cs::Dim::TP, cs::Dim::DP, cs::Dim::PP,
                                                    cs::Dim::CP};
// Data-parallel groups across leaves: the pipeline's four nodes first, so a group's members
// are four nodes apart, each under another leaf.
inline constexpr cs::PlacementOrder kDpAcrossLeaves{cs::Dim::TP, cs::Dim::PP, cs::Dim::DP,
                                                    cs::Dim::CP};
