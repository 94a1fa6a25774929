#pragma once
// How sure a prediction is: the range in which the measured step should lie, from the cost
// model's own errors on the measured runs most like the layout (docs/cost-model.md,
// "How sure a prediction is").
//
// Alike means the same generation of tensor cores and the same kind of model (dense, or with
// experts), then the nearest in precision and scale. The range is the prediction divided by
// (1 + error) for the least and the largest error of the kMaxBasis nearest runs: for a run drawn
// like them, the measured step falls inside the range of k others with probability
// (k - 1) / (k + 1), 85 % for 12. Fewer than kMinBasis alike: no range. A model of a family no
// measured run has is not drawn like them: its range is widened (kUnseenFamilyWidening).

#include <string>

#include <nlohmann/json_fwd.hpp>
#include <string_view>
#include <vector>

#include "calibration.h"
#include "description.h"
#include "measuredruns.h"

namespace cs {

inline constexpr int kMaxBasis = 12;
inline constexpr int kMinBasis = 4;
// For a model of a family that no measured run has, the range's half-width in log(1 + error),
// about its middle, is this much wider: the constants were fitted without such a model, and its
// errors are larger than those the range is made of. The least widening, in steps of 0.05, at
// which `calibrate --cross-validate` finds the ranges of each model family held out holding the
// measured step as often as the fitted rows' ranges do (83 %; docs/cost-model.md, "How sure a
// prediction is").
inline constexpr double kUnseenFamilyWidening = 0.75;

// What makes two runs alike for the cost model's errors.
struct Likeness {
    int tensorCoreGeneration = 0; // 1 BF16 only (Ampere), 2 with FP8 (Hopper), 3 with FP4
    Precision precision = Precision::BF16;
    bool experts = false;
    double gpus = 1;
    // The model's family (calibrate.h, familyOfModel): not a measure of likeness, but whether
    // any measured run has it says whether the fit has seen such a model.
    std::string family;
    // The model's shape (shapeOfModel: layers, widths, heads, experts), which says the same of
    // a model whose name names no family, as an imported one's does not: a measured run of that
    // very shape is of its family.
    std::string architecture;
};
Likeness likenessOf(const ClusterDesc& cluster, const RunDesc& run);

// A measured run and the model's error on it: predicted / measured - 1.
struct ReferenceRun {
    std::string id;
    Likeness likeness;
    double error = 0;
};
std::vector<ReferenceRun> referenceRuns(const std::vector<MeasuredRun>& rows,
                                        const Calibration& calibration);

struct Uncertainty {
    double lowS = 0;
    double highS = 0;
    std::vector<std::string> nearest; // the ids of the runs the range comes from
    // Whether a measured run of the model's family (or its shape) is among the references:
    // where none is, the constants were fitted without such a model and its errors are larger
    // than those the range is made of, so the range is widened (kUnseenFamilyWidening).
    bool familyMeasured = false;
    int basis() const { return int(nearest.size()); }
    bool known() const { return !nearest.empty(); }
};

// The range for a prediction of `predictedS` of a run like `likeness`, leaving out the reference
// run `without` (a measured run's own range is made without it).
Uncertainty uncertaintyOf(double predictedS, const Likeness& likeness,
                          const std::vector<ReferenceRun>& references,
                          std::string_view without = {});

// As `evaluate --json` gives it: `low_s`, `high_s`, `basis` (how many runs), `nearest` (their
// ids) and `family_measured`; `basis` 0 alone where no measured run is like it.
nlohmann::json uncertaintyJson(const Uncertainty& u);

// "1.191-1.371 s, from 12 measured runs like this one", with "; none of its model family, so
// widened" where no measured run is of its family, or "no measured run like this one".
std::string rangeText(const Uncertainty& u);

// Whether the measured steps of two predictions could be in either order: their ranges overlap,
// so the faster prediction is a tie, not a win. Unknown ranges never tie.
bool tied(const Uncertainty& a, const Uncertainty& b);

// How often ranges hold the measured step, and how wide they are: what the range is worth. A
// range that holds everything is no answer, so both are told (validate-runs, and calibrate
// --cross-validate on rows no constant was fitted on).
class RangeCoverage {
public:
    void add(const Uncertainty& u, double measuredS);
    void merge(const RangeCoverage& other);
    int inside() const { return m_inside; }
    int withRange() const { return int(m_halfWidths.size()); }
    int withoutRange() const { return m_unknown; }
    // Half the range over its middle.
    double medianHalfWidth() const;

private:
    int m_inside = 0;
    int m_unknown = 0;
    std::vector<double> m_halfWidths;
};

// The measured runs that ship with ClusterScope (samples/measured/), with the model's errors on
// them under this calibration; read and evaluated once per calibration (about 0.2 s).
const std::vector<ReferenceRun>& shippedReferenceRuns(const Calibration& calibration);

} // namespace cs
