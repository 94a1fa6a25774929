#pragma once
// Fitting the cost model's constants (calibration.h) to measured runs, reproducibly: what
// `clusterscope-cli calibrate` runs and what produced the built-in constants.
//
// Fitted: one GEMM efficiency per GPU architecture and precision present in the runs, and the
// shared constants listed by fittedConstants() within their bounds, each only where at least two
// model families inform it (Fit::refused names the others). Not fitted: NVLink efficiency (0.8,
// the bus bandwidth NCCL reaches on NVSwitch systems), the framework's memory; architectures and
// precisions with no run take the median of the fitted efficiencies.
//
// The objective is the mean absolute error of each set of runs over its target (dense rows 4 %,
// rows with experts 8 %: each set weighs the same however many rows it has) plus the excess of
// any row over its set's worst-row bound (12 %, 20 %). It is minimized by coordinate descent: each
// constant in turn by golden-section search inside its bounds, sweep after sweep until no constant
// moves, first on the closed form (fast), then on the cost model's own evaluation. Deterministic:
// the same runs and start give the same constants.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "calibration.h"
#include "measuredruns.h"

namespace cs {

struct RowError {
    std::string id;
    std::string family; // the row's `family`, or its GPU when it has none
    double predictedS = 0;
    double measuredS = 0;
    double error() const { return predictedS / measuredS - 1; }
};

struct FittedConstant {
    std::string key; // as in the calibration file
    double Calibration::*field;
    double min;
    double max;
};
const std::vector<FittedConstant>& fittedConstants();

// The model family a row measures, by its model's name: "GPT-3", "Llama 3", "DeepSeek-V3",
// "Qwen3", "gpt-oss" ...; a name no family knows is its own first word.
std::string modelFamilyOf(const MeasuredRun& row);
std::string familyOfModel(const std::string& modelName);
// A model's shape (layers, widths, heads, experts) as text: "48 layers, 2048 wide, 32/4 heads,
// FFN 768, 128 experts of 768, top 8". Rows of one shape measure one model, whatever they call
// it; an imported model, which names none, is the model of a measured row of its shape.
std::string shapeOfModel(const ModelShape& model);
std::string modelShapeOf(const MeasuredRun& row);

// Every row predicted by evaluate() with the calibration.
std::vector<RowError> predictRows(const std::vector<MeasuredRun>& rows, const Calibration& cal);
double meanAbsoluteError(const std::vector<RowError>& errors);

// One constant the fit chooses: a shared one, or the GEMM efficiency of an architecture and
// precision; seen by the rows whose prediction it moves.
struct FitKnob {
    std::string name;
    double min = 0, max = 1;
    std::function<double&(Calibration&)> value;
    std::vector<const MeasuredRun*> rows;      // whose step it moves at all
    std::vector<const MeasuredRun*> informing; // whose step it moves by 1 % or more
    // Bounds that move with other constants, inside min and max (a BF16 efficiency within
    // kBf16OverFp8Min to kBf16OverFp8Max of its architecture's FP8 one); none when empty.
    std::function<std::pair<double, double>(const Calibration&)> bounds = {};
    // An efficiency's architecture, whose runs alone it can move; empty: any run.
    std::string architecture = {};
};
// Where the knob may lie with these constants: its min and max narrowed by its bounds.
std::pair<double, double> knobRange(const FitKnob& knob, const Calibration& cal);

// An architecture's BF16 GEMM efficiency (of the BF16 peak) over its FP8 one (of the twice higher
// FP8 peak), the range the fit keeps it in. At least 1: an FP8 GEMM does a BF16 GEMM's work per
// tile plus its scales, on operands of half the bytes at twice the rate, so it reaches no larger
// a fraction of its peak. At most 1.45: Transformer Engine's GEMM profiling on B300 measures
// MXFP8 and FP8 current scaling 1.42 and 1.39 times faster than BF16, quantization included
// (NVIDIA/TransformerEngine PR 2863, docs/features/low_precision_training/speedups.rst,
// 2026-05), that is BF16 at 2 / 1.42 = 1.41 and 2 / 1.39 = 1.44 times FP8's fraction. Without
// it the fit set BF16 from the one family with BF16 runs on Blackwell Ultra (gpt-oss: 0.85
// times FP8) and on Hopper (1.6 times), and applied it to every model.
inline constexpr double kBf16OverFp8Min = 1.0;
inline constexpr double kBf16OverFp8Max = 1.45;
// The knobs of a fit on these rows, each with the rows it moves; GEMM efficiencies missing from
// `cal` are added to it.
std::vector<FitKnob> fitKnobs(const std::vector<MeasuredRun>& rows, Calibration& cal);

// Whether `cal` is where a fit on `rows` stops: each constant the fit chooses (two or more model
// families inform it) within its bounds, and no step of `fraction` of its range, either way,
// lowering the fit's objective (its last polish takes steps of a hundredth, then a thousandth).
// The built-in constants are such a stop on the public runs (test_calibration).
struct FitStop {
    std::vector<std::string> fitted;     // the constants the fit chooses
    std::vector<std::string> improvable; // "NAME: FROM -> TO", each step that lowers it
};
FitStop fitStopOf(const std::vector<MeasuredRun>& rows, const Calibration& cal, double fraction);

struct FitOptions {
    int maxSweeps = 12;
    // Fit on the closed form only, skipping the evaluation pass: for exploring, minutes faster;
    // the built-in constants come from the full fit.
    bool closedFormOnly = false;
    // Called after each sweep with a line saying where the fit is, and within a sweep every
    // few seconds with the constant being tuned.
    std::function<void(const std::string&)> progress;
    // When to stop tuning: the constants are then the best found so far (the one being tuned
    // keeps its value from before), and the rows are predicted once more with them.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// What informs a fitted constant: the rows whose prediction it moves and the model families among
// them. A constant that one model family alone informs explains that family's rows, not
// hardware: the fit does not choose it.
struct KnobBasis {
    std::string knob;
    int rows = 0;
    std::vector<std::string> modelFamilies; // sorted
};
std::vector<KnobBasis> knobBases(const std::vector<MeasuredRun>& rows);

struct Fit {
    Calibration calibration;
    // Constants not fitted, as one model family or none informs them: an architecture's
    // efficiency is left out (the default stands in), a shared constant keeps its physical
    // default (calibration.h).
    std::vector<KnobBasis> refused;
    std::vector<KnobBasis> bases; // what informs each constant, fitted or not (knobBases)
    std::vector<RowError> rows;   // by evaluate() with the fitted constants
    int sweeps = 0;
    bool stoppedEarly = false; // at the deadline, before the fit settled
};

Fit calibrate(const std::vector<MeasuredRun>& rows, const Calibration& start,
              const FitOptions& options = {});

// Leave-one-family-out cross-validation: each family predicted by constants fitted on the
// others (its GPUs' efficiencies from other families' rows, or the default). Past the
// deadline no further family is started: fewer families than the rows have are returned.
struct FamilyError {
    std::string family;
    int rows = 0;
    double fittedMape = 0;  // with constants fitted on every row
    double heldOutMape = 0; // with constants fitted without this family
    Calibration heldOutFit; // the constants fitted without this family
};
// What groups rows into the families held out: modelFamilyOf, or the row's GPU.
using FamilyOf = std::function<std::string(const MeasuredRun&)>;
std::string gpuOf(const MeasuredRun& row);
std::vector<FamilyError> crossValidate(const std::vector<MeasuredRun>& rows,
                                       const Calibration& fitted, const FitOptions& options = {},
                                       const FamilyOf& familyOf = gpuOf);

} // namespace cs
