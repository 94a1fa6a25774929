#pragma once
// Two runs side by side, each on its cluster, both answered by the one evaluation
// (cs::evaluate): the raw figures and the same figures per GPU and per token, every input that
// differs, the breakdown of each step and the difference per component, and what the
// difference comes from (the GPU alone, the layout its memory allows). The compare panel and
// `clusterscope-cli compare` show this and nothing else.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "costmodel.h"
#include "uncertainty.h"

namespace cs {

// How a figure is read and printed.
enum class FigureUnit : uint8_t {
    Count,        // 1,024
    Seconds,      // a step: "6.197 s"
    Rate,         // per second: "676,859"
    Fraction,     // "35.5 %"
    GiB,          // "63.8 GiB"
    GpuSeconds,   // GPU time per token: "1.513 GPU-ms"
    TrainingTime, // hours or days: "9.9 h", "3.2 days"
    GpuHours,     // "10,118 GPU-h"
};

// One quantity of both runs.
struct Figure {
    std::string key;   // as in `compare --json`: "tokens_per_s_per_gpu"
    std::string label; // in words: "tokens per second per GPU"
    FigureUnit unit = FigureUnit::Count;
    bool normalized = false; // per GPU or per token: comparable across cluster sizes
    bool higherIsBetter = false;
    double a = 0;
    double b = 0;

    double difference() const { return b - a; }
    // b over a; nothing when a is 0.
    std::optional<double> ratio() const;
};

// An input (a field of either description) whose value differs.
struct InputDifference {
    std::string path;  // JSON pointer into {"cluster": ..., "run": ...}: "/cluster/gpu/hbm_gib"
    std::string label; // "HBM per GPU (GiB)"
    nlohmann::json a;  // null where that side has no such field
    nlohmann::json b;
};

// One component of the step's critical path in both runs.
struct BreakdownRow {
    std::string key;   // "compute", "tp_exposed", ...
    std::string label; // "compute", "TP exposed", ...
    std::optional<Dim> dim;
    double a = 0; // seconds
    double b = 0;
    double aPerToken = 0; // GPU-seconds per token: seconds x GPUs / tokens per step
    double bPerToken = 0;

    double delta() const { return b - a; }
    double deltaPerToken() const { return bPerToken - aPerToken; }
};

// A run between the two, to tell what each difference is worth: one side's layout on the other
// side's GPU (the GPU's share against the layout's), or B with one input put back to A's value.
struct WhatIf {
    std::string label;  // "A's layout on B's GPU (H200)", "B with micro-batch 1 (A's)"
    std::string path;   // the input put back, for the second kind
    bool valid = false; // false: the run is not valid there (why says why)
    std::string why;
    double tokensPerSPerGpu = 0;
    double memoryGiBPerGpu = 0;
    double hbmGiB = 0;
    bool fitsMemory = true;
};

struct Comparison {
    ClusterRun a;
    ClusterRun b;
    Evaluation evalA;
    Evaluation evalB;
    std::vector<Figure> figures; // raw first, then normalized
    std::vector<InputDifference> differences;
    std::vector<BreakdownRow> breakdown; // in Breakdown::parts() order, dimensions the runs use
    std::vector<WhatIf> whatIfs;         // when the GPUs differ
    std::vector<WhatIf> oneAtATime;      // B with each other differing input at A's value
    std::vector<std::string> findings;   // where the difference comes from, in sentences
    Uncertainty rangeA;                  // where each measured step should lie (uncertainty.h)
    Uncertainty rangeB;

    const Figure* figure(std::string_view key) const;
};

// Both runs must be valid on their clusters. The first form evaluates both; the second takes
// evaluations the caller already has (cs::evaluate's, of exactly these descriptions).
Comparison compareRuns(const ClusterRun& a, const ClusterRun& b);
Comparison compareRuns(const ClusterRun& a, const Evaluation& evalA, const ClusterRun& b,
                       const Evaluation& evalB);

// Every leaf of both descriptions that differs, as JSON pointers with labels: the fields of
// writer.h's toJson, with a catalog GPU written as its figures and a derived dp and row count
// resolved, so that what the cost model reads is what is compared. Names, notes, x-* keys and
// the run's cluster path are not inputs and are left out.
std::vector<InputDifference> inputDifferences(const ClusterRun& a, const ClusterRun& b);
// A field's label from its JSON pointer: "/run/batch/micro" -> "micro-batch".
std::string inputLabel(const std::string& pointer);

// A figure's value as the views and the command line print it.
std::string figureText(FigureUnit unit, double value);
// A JSON leaf as a person reads it: strings bare, numbers as written, arrays joined.
std::string inputText(const nlohmann::json& value);
// The notes of a cluster or run description ("notes" key), or empty.
std::string notesOf(const ClusterDesc& cluster);
std::string notesOf(const RunDesc& run);

// `compare --json`: `a` and `b` as `evaluate --json`; `normalized` (each normalized figure as
// [a, b], and `ratio`: tokens per second per GPU, b over a); `raw` (the other figures as
// [a, b]); `differences` (each `path`, `label`, `a`, `b`); `breakdown` and
// `breakdown_gpu_s_per_token` (per component [a, b]); `breakdown_delta` (per component, b minus
// a, seconds); `what_if`; `one_at_a_time` (each with `path`, `valid` and the figures, or
// `why`); `findings`.
nlohmann::json comparisonJson(const Comparison& c);

} // namespace cs
