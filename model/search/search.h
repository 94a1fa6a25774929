#pragma once
// The parallelism search: every valid way to lay a run's model, batch and precision out on a
// cluster (tp, cp, pp, vp, micro-batch, recompute, placement), each evaluated with the fast
// analytical path of the cost model, those that fit in memory ranked by step time.
//
// What is searched and what is left out as equivalent or dominated:
// - tp, cp, pp and micro-batch: every value the loader's rules accept (checkRunShape and
//   checkRunOnCluster); dp is the GPU count divided by tp x cp x pp.
// - vp: every value from 1 to layers / pp (only 1 without a pipeline).
// - placement: the cost model sees the network in two levels, NVLink domains and the fabric
//   above them; what a dimension costs depends on how many members of each of its groups share
//   a domain and how many domains a group spans. Orderings of tp, cp, pp, dp that give every
//   dimension the same two numbers are tried once, as the first of them in the order
//   tp, cp, pp, dp (so dimensions of size 1 and the order among dimensions that stay inside a
//   domain never multiply the search). Orderings that split groups unevenly over domains are
//   all kept.
// - recompute: a heavier setting only trades step time for memory, so it is tried only for
//   layouts that do not fit with the lighter one.
// - sequence parallelism and the distributed optimizer are kept as the run has them.
// - only the fastest `keep` are wanted: each layout is first estimated on a network that costs
//   nothing, which no placement on the real one beats, and the placements of layouts whose
//   bound cannot make the shortlist are not estimated. The shortlist holds the fastest `keep`
//   estimates and those close behind them (the closed form and the simulation agree within a
//   few per cent, so the fastest by the simulation are among them); each is then evaluated
//   and the fastest `keep` by evaluation returned.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "costmodel.h"
#include "description.h"
#include "layouts.h"

namespace cs {

struct SearchResult {
    Layout layout;
    double stepTimeS = 0;
    Breakdown breakdown;
    double memoryGiBPerGpu = 0;
    double mfu = 0;
};

// What a search may not change, and the memory it must leave free.
struct SearchConstraints {
    PerDim<int> fixed; // a dimension held at this size; 0: free
    int fixedVp = 0;   // 0: free
    int fixedMicroBatch = 0;
    double memoryHeadroomGiB = 0; // a configuration fits when its memory + this <= HBM

    bool allows(const Layout& layout) const;
    bool fits(double memoryGiBPerGpu, double hbmGiB) const;
};

struct SearchOptions {
    int threads = 0; // 0: every hardware thread
    SearchConstraints constraints;
    // The fastest this many are returned; 0: every configuration that fits, each evaluated
    // (slow on large clusters: an evaluation simulates the step).
    size_t keep = 1000;
    // Configurations faster than this are returned too, so that a reference (the run's own
    // layout) can be ranked exactly.
    double alsoKeepFasterThanS = 0;
    // Called on the calling thread with steps done and steps in all: two per layout, one
    // (tp, cp, pp, vp, micro-batch), with all its placements and recompute settings.
    std::function<void(int64_t done, int64_t total)> progress;
    // Set from any thread to stop early; the results found so far are returned.
    const std::atomic<bool>* cancel = nullptr;
    // The cost model's constants; nullptr: the built-in ones.
    const Calibration* calibration = nullptr;
    // When to stop at the latest, as if cancelled, everything included: bounding the layouts
    // takes at most 60 % of the time from the start, placing the best bounded so far up to 80 %,
    // and evaluating the shortlist the rest; what a pass had no time for is left out (the first
    // layout of each pass is always done, so an answer may come a single evaluation late).
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct SearchOutcome {
    std::vector<SearchResult> results; // the fastest that fit in memory, fastest first
    int64_t layouts = 0;               // valid (tp, cp, pp, vp, micro-batch) combinations
    int64_t fitting = 0;               // configurations that fit in memory, returned or not
    int64_t estimated = 0;             // closed-form estimates
    int64_t evaluated = 0;             // cost model evaluations of the shortlist
    bool cancelled = false;            // stopped by `cancel`: the fastest found so far
    bool outOfTime = false;            // stopped at the deadline: the fastest found so far
};

// The run with its parallelism, placement and micro-batch replaced by the layout's.
RunDesc withLayout(const RunDesc& run, const Layout& layout);

// The whole search. The result does not depend on the number of threads.
SearchOutcome searchParallelism(const ClusterDesc& cluster, const RunDesc& run,
                                const SearchOptions& options = {});

} // namespace cs
