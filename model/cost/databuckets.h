#pragma once
// The data-parallel traffic of one pipeline stage on its NICs, shared by the simulation and
// the closed form: parameter all-gathers at the start of the step (distributed optimizer),
// then the gradient buckets as the backward releases them, drained one after another.

#include <vector>

#include "evaluation.h"
#include "workload.h"

namespace cs {

struct Bucket {
    double release = 0;
    double denseBytes = 0;  // gradients of dense parameters, reduced over data parallelism
    double expertBytes = 0; // of expert parameters, over expert data parallelism
    int chunk = 0;
    double reduceS(const Workload& w) const { return w.gradientReduceS(denseBytes, expertBytes); }
};

// Gathers each chunk's parameters in turn; readyOut[op(s, k)] is when chunk k's are in.
// Returns when the last gather ends.
double gatherChunks(const Workload& w, int s, std::vector<double>& readyOut);

// One bucket per layer, released as the chunk's last backward passes the layer; parameters
// outside layers (embedding, LM head) go with the chunk's last bucket. None with FSDP, which
// reduces each layer's gradients as it goes (workload.cpp).
void addBuckets(const Workload& w, int s, int k, double start, double end,
                std::vector<Bucket>& out);

// Drains buckets in release order on one stage's NICs, from `fabricFree` on; returns when the
// last one ends. Each bucket becomes a DP event when `events` is given.
double drainBuckets(const Workload& w, std::vector<Bucket>& buckets, double fabricFree, int s,
                    std::vector<Event>* events);

} // namespace cs
