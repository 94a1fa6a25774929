#pragma once
// The interval arithmetic of a GPU's step, one definition for the measured profile and the
// prediction read the same way: compute busy time (the union of compute intervals), the
// communication not under compute, shared evenly among the keys (process groups, dimensions)
// whose communication runs at that moment, and idle.

#include <vector>

namespace cs {

struct BusySpan {
    double start = 0;
    double end = 0;
    int key = -1; // a communication span's key (>= -1); ignored for compute
};

struct BusyFigures {
    double computeBusyS = 0;
    double commBusyS = 0;
    double exposedCommS = 0;
    std::vector<double> exposedByKey; // index key + 1 (key -1 first)
    double busyS = 0;                 // union of all spans
};

// `maxKey`: the largest key used. Spans may be in any order and overlap.
BusyFigures spanFigures(const std::vector<BusySpan>& compute, const std::vector<BusySpan>& comm,
                        int maxKey);

// The length of the union of the spans (sorted in place).
double unionLength(std::vector<BusySpan>& spans);

} // namespace cs
