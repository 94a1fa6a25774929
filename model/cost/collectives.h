#pragma once
// Alpha-beta costs of the collectives a training step uses: a latency per hop plus bytes
// over the bus bandwidth. Bandwidths are per direction and already include link efficiency.

#include <cstdint>

namespace cs {

struct LinkSpeed {
    double GBps = 0;      // effective, per direction, per GPU
    double latencyUs = 0; // per hop
};

enum class CollectiveAlgorithm { Ring, Tree };

struct CollectiveCost {
    double seconds = 0;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
};

// `bytes` is the full tensor each rank ends with (all-gather) or starts with (reduce-scatter,
// all-reduce); n is the group size. A group of one costs nothing.
double ringAllGather(double bytes, int n, LinkSpeed link);
double ringReduceScatter(double bytes, int n, LinkSpeed link);
double ringAllReduce(double bytes, int n, LinkSpeed link);
// NCCL's double binary tree: log2(n) hops each way, the whole buffer pipelined through them.
double treeAllReduce(double bytes, int n, LinkSpeed link);
CollectiveCost allReduce(double bytes, int n, LinkSpeed link); // the cheaper of ring and tree
// NVLink SHARP (NCCL's NVLS): the NVSwitches reduce what every GPU sends and multicast the sum,
// so each GPU moves S (1 + 1/n) each way where a ring moves 2 S (n - 1) / n, at a lower link
// efficiency (kNvlsLinkShare). Only the all-reduce gains: an NVLS reduce-scatter sends S and an
// all-gather receives S, more than a ring's S (n - 1) / n, so NCCL keeps rings for them.
double nvlsAllReduce(double bytes, int n, LinkSpeed link);
double pointToPoint(double bytes, LinkSpeed link);

// HBM bytes one GPU's kernels move for a ring collective over n GPUs of a `bytes` tensor, beside
// what crosses the link: an all-gather reads each chunk it sends and writes each it receives, a
// reduce-scatter also reads its own copy of each chunk it adds to; an all-reduce is both. The
// compute the collective runs under waits for that bandwidth.
double allGatherHbmBytes(double bytes, int n);
double reduceScatterHbmBytes(double bytes, int n);

// A group laid over NVLink domains: `perDomain` members share each of `domains` domains.
// Collectives run in two levels: inside each domain on NVLink, then across domains on the
// scale-out fabric, where each member moves 1/perDomain of the data on its own NIC.
struct HierarchicalGroup {
    int perDomain = 1;
    int domains = 1;
    LinkSpeed inner;
    LinkSpeed outer;
    bool nvls = false; // NCCL may reduce inside a domain with NVLink SHARP, where it is faster
    int size() const { return perDomain * domains; }
};
double reduceScatter(double bytes, const HierarchicalGroup& g);
double allGather(double bytes, const HierarchicalGroup& g);
double allReduce(double bytes, const HierarchicalGroup& g);
// The part of the above that runs on the scale-out fabric.
double reduceScatterScaleOut(double bytes, const HierarchicalGroup& g);

} // namespace cs
