#pragma once
// Contention: flows that run at the same time share every link max-min fairly (progressive
// filling: the rates of all flows rise together until a link is full; the flows through it
// keep that rate and the others rise on), each flow also held by its ends: its NICs' links, or
// inside a domain its GPUs' NVLink ports. A collective runs at the rate of its slowest flow.
// Flows come in classes (a dimension's fabric or NVLink traffic, a pipeline hop); a class's
// factor is the rate of its slowest flow over the rate its flows would have if only their ends
// limited them, the class running alone: 1 when nothing but the NICs slows it.

#include <vector>

#include "routing.h"

namespace cs {

struct ClassFlow {
    int src = 0; // GPU
    int dst = 0; // GPU
    int cls = 0;
};

struct Contention {
    std::vector<double> factor; // per class, in (0, 1]; 1 for a class without flows
    int unroutable = -1;        // a flow with no path left, or -1
};

// All flows run at once. Every flow needs a path: with one that has none, its index comes back
// in `unroutable` and the factors are those of the others.
Contention contention(const Router& router, const std::vector<ClassFlow>& flows, int classes);

} // namespace cs
