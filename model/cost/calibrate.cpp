#include "calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "costmodel.h"
#include "fitsearch.h"
#include "text.h"

namespace cs {

using namespace fit;

namespace {

constexpr double kSettled = 1e-4;       // a sweep that moves no constant by more ends the fit
constexpr double kEfficiencyMin = 0.05; // the bounds of every fitted GEMM efficiency
constexpr double kEfficiencyMax = 0.98;

// A BF16 efficiency's range from its architecture's FP8 one, when the fit has one.
std::function<std::pair<double, double>(const Calibration&)>
bf16Bounds(const std::string& architecture)
{
    return [architecture](const Calibration& c) -> std::pair<double, double> {
        for (const GemmEfficiency& e : c.gemm)
            if (e.gpu == architecture && e.precision == Precision::FP8)
                return {kBf16OverFp8Min * e.efficiency, kBf16OverFp8Max * e.efficiency};
        return {kEfficiencyMin, kEfficiencyMax};
    };
}

// One efficiency knob per GPU architecture and precision of the rows.
void addEfficiencyKnobs(const std::vector<const MeasuredRun*>& rows, Calibration& cal,
                        std::vector<FitKnob>& knobs)
{
    // Each architecture and precision with a GPU of that architecture, whose efficiency it
    // starts from (NVFP4 from FP8, BF16 from FP8 x bf16_over_fp8, as the model derives them).
    std::map<std::pair<std::string, Precision>, const GpuSpec*> keys;
    for (const MeasuredRun* r : rows)
        keys.emplace(std::pair{r->cluster.gpu.architectureName(), r->run.precision},
                     &r->cluster.gpu);
    for (const auto& [archPrecision, gpu] : keys) {
        const auto& [key, precision] = archPrecision;
        // Copies, not the bindings: lambdas capture them (clang 14 cannot capture a binding).
        const std::string architecture = key;
        const Precision p = precision;
        const auto found =
            std::find_if(cal.gemm.begin(), cal.gemm.end(), [&](const GemmEfficiency& e) {
                return e.gpu == architecture && e.precision == p;
            });
        if (found == cal.gemm.end())
            cal.gemm.push_back({architecture, p, cal.gemmEfficiency(*gpu, p)});
        knobs.push_back({"gemm " + architecture + " " + toString(p),
                         kEfficiencyMin,
                         kEfficiencyMax,
                         [architecture, p](Calibration& c) -> double& {
                             for (GemmEfficiency& e : c.gemm)
                                 if (e.gpu == architecture && e.precision == p)
                                     return e.efficiency;
                             return c.defaultGemmEfficiency; // not reached: added above
                         },
                         {},
                         {},
                         p == Precision::BF16 ? bf16Bounds(architecture) : nullptr,
                         architecture});
    }
}

std::set<std::string> familiesOf(const std::vector<const MeasuredRun*>& rows)
{
    std::set<std::string> families;
    for (const MeasuredRun* r : rows)
        families.insert(modelFamilyOf(*r));
    return families;
}

// A knob that fewer than two model families inform is not fitted (refuseOneFamilyKnobs).
bool chosenByFit(const FitKnob& k)
{
    return familiesOf(k.informing).size() >= 2;
}

KnobBasis basisOf(const FitKnob& k)
{
    const std::set<std::string> families = familiesOf(k.informing);
    return {k.name, int(k.informing.size()), {families.begin(), families.end()}};
}

} // namespace

std::pair<double, double> knobRange(const FitKnob& knob, const Calibration& cal)
{
    if (!knob.bounds)
        return {knob.min, knob.max};
    const auto [lo, hi] = knob.bounds(cal);
    const double least = std::clamp(lo, knob.min, knob.max);
    return {least, std::clamp(hi, least, knob.max)};
}

std::vector<FitKnob> fitKnobs(const std::vector<MeasuredRun>& rows, Calibration& cal)
{
    const std::vector<const MeasuredRun*> all = pointersTo(rows);
    std::vector<FitKnob> knobs;
    if (all.empty())
        return knobs;
    addEfficiencyKnobs(all, cal, knobs);
    for (const FittedConstant& k : fittedConstants()) {
        const auto field = k.field;
        knobs.push_back(
            {k.key, k.min, k.max, [field](Calibration& c) -> double& { return c.*field; }, {}, {}});
    }
    // A knob is seen by the rows it moves: an architecture's efficiency by its runs (and by the
    // BF16 routers and LM heads of its other precisions), a host cost by the runs whose framework
    // has it.
    const std::vector<double> before = stepTimes(all, cal, false);
    for (FitKnob& k : knobs) {
        // Only an efficiency's own architecture's runs are evaluated again for it.
        std::vector<const MeasuredRun*> candidates;
        std::vector<double> times;
        for (size_t i = 0; i < all.size(); ++i)
            if (k.architecture.empty() ||
                all[i]->cluster.gpu.architectureName() == k.architecture) {
                candidates.push_back(all[i]);
                times.push_back(before[i]);
            }
        findRows(k, candidates, times, cal);
    }
    return knobs;
}

namespace {

// Says where the fit is at most every few seconds, so that a fit of thousands of rows, whose
// sweep takes minutes, shows it is moving.
class ThrottledProgress {
public:
    explicit ThrottledProgress(const std::function<void(const std::string&)>& report)
        : m_report(report)
    {
    }
    void operator()(const std::string& line, bool always = false)
    {
        constexpr auto kEvery = std::chrono::seconds(5);
        if (!m_report || (!always && Clock::now() - m_last < kEvery))
            return;
        m_report(line);
        m_last = Clock::now();
    }

private:
    const std::function<void(const std::string&)>& m_report;
    Clock::time_point m_last = Clock::now();
};

// One sweep over the knobs: the largest change, or nothing when the deadline came first.
std::optional<double> sweep(std::vector<FitKnob>& knobs, Calibration& cal, bool closedForm,
                            const std::string& where, Clock::time_point deadline,
                            ThrottledProgress& progress, FitRows& fitRows)
{
    double moved = 0;
    for (size_t k = 0; k < knobs.size(); ++k) {
        progress(where + ": constant " + std::to_string(k + 1) + " of " +
                 std::to_string(knobs.size()) + " (" + knobs[k].name + ")");
        const std::optional<double> change = tune(knobs[k], cal, closedForm, deadline, fitRows);
        if (!change)
            return std::nullopt;
        moved = std::max(moved, *change);
    }
    return moved;
}

std::string summary(const std::vector<MeasuredRun>& rows, const Calibration& cal, bool closedForm)
{
    const std::vector<const MeasuredRun*> all = pointersTo(rows);
    const std::vector<double> times = stepTimes(all, cal, closedForm);
    double sum = 0, worst = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const double e = std::abs(times[i] / rows[i].run.measured->stepTimeS - 1);
        sum += e;
        worst = std::max(worst, e);
    }
    return "MAPE " + fixed(100 * sum / double(std::max<size_t>(1, rows.size())), 2) +
           " %, worst row " + fixed(100 * worst, 1) + " %, objective " +
           fixed(objective(all, times), 4);
}

// Knobs that fewer than two model families inform are not fitted: an architecture's efficiency
// is dropped (its GPUs take the default, or BF16 from FP8), a shared constant keeps its
// physical default; each is named in the fit. So are efficiencies of architectures no row
// measures, carried over from the start.
void refuseOneFamilyKnobs(std::vector<FitKnob>& knobs, Fit& fit)
{
    Calibration physical{};
    Calibration& cal = fit.calibration;
    std::vector<GemmEfficiency> fitted;
    std::vector<FitKnob> kept;
    for (FitKnob& k : knobs) {
        if (chosenByFit(k)) {
            if (k.name.rfind("gemm ", 0) == 0)
                for (const GemmEfficiency& e : cal.gemm)
                    if (&k.value(cal) == &e.efficiency)
                        fitted.push_back(e);
            kept.push_back(std::move(k));
            continue;
        }
        fit.refused.push_back(basisOf(k));
        if (k.name.rfind("gemm ", 0) != 0)
            k.value(cal) = k.value(physical);
    }
    cal.gemm = fitted;
    cal.grouped.clear();
    // The kept knobs point into the table by architecture and precision, not by address.
    knobs = std::move(kept);
}

// The closed form stands in for the evaluation in the first sweeps, to be fast, but its optimum
// can evaluate worse than where the fit started; the evaluation's sweeps then start from the
// start (its evaluated times `initialTimes`), so that no fit ends worse than it.
void startEvaluationFromBetter(const Calibration& initial, const std::vector<double>& initialTimes,
                               Calibration& cal, FitRows& rows)
{
    if (objective(rows.all, initialTimes) < objective(rows.all, rows.times)) {
        cal = initial;
        rows.times = initialTimes;
    }
}

// A bound that moved after its knob was tuned (an FP8 efficiency tuned after its BF16 one)
// holds again.
void holdBounds(std::vector<FitKnob>& knobs, Calibration& cal)
{
    for (FitKnob& k : knobs) {
        const auto [least, most] = knobRange(k, cal);
        setKnob(k, cal, std::clamp(k.value(cal), least, most));
    }
}

} // namespace

const std::vector<FittedConstant>& fittedConstants()
{
    static const std::vector<FittedConstant> constants{
        {"gemm_half_width", &Calibration::gemmHalfWidth, 0, 4000},
        {"grouped_efficiency", &Calibration::groupedEfficiency, 0.1, 1.0},
        {"bf16_over_fp8", &Calibration::bf16OverFp8, kBf16OverFp8Min, kBf16OverFp8Max},
        {"grouped_2026_factor", &Calibration::grouped2026Factor, 0.8, 3.0},
        {"attention_efficiency", &Calibration::attentionEfficiency, 0.1, 0.9},
        {"memory_efficiency", &Calibration::memoryEfficiency, 0.3, 0.95},
        {"scale_out_efficiency", &Calibration::scaleOutEfficiency, 0.3, 1.0},
        {"all_to_all_efficiency", &Calibration::allToAllEfficiency, 0.1, 1.0},
        {"tp_overlap", &Calibration::tpOverlap, 0, 1},
        {"ep_overlap", &Calibration::epOverlap, 0, 1},
        {"dp_contention", &Calibration::dpContention, 0, 1},
        {"layer_host_us", &Calibration::layerHostUs, 0, 4000},
        {"moe_layer_host_us", &Calibration::moeLayerHostUs, 0, 20000},
        {"expert_host_us", &Calibration::expertHostUs, 0, 2000},
        {"expert_kernel_us", &Calibration::expertKernelUs, 0, 200},
        {"a2a_overlap_host_us", &Calibration::a2aOverlapHostUs, 0, 60000},
    };
    return constants;
}

std::vector<KnobBasis> knobBases(const std::vector<MeasuredRun>& rows)
{
    Calibration scratch = defaultCalibration();
    std::vector<KnobBasis> bases;
    for (const FitKnob& k : fitKnobs(rows, scratch))
        bases.push_back(basisOf(k));
    return bases;
}

std::vector<RowError> predictRows(const std::vector<MeasuredRun>& rows, const Calibration& cal)
{
    const std::vector<double> times = stepTimes(pointersTo(rows), cal, false);
    std::vector<RowError> errors;
    for (size_t i = 0; i < rows.size(); ++i)
        errors.push_back({rows[i].id, rows[i].family.empty() ? gpuOf(rows[i]) : rows[i].family,
                          times[i], rows[i].run.measured->stepTimeS});
    return errors;
}

FitStop fitStopOf(const std::vector<MeasuredRun>& rows, const Calibration& cal, double fraction)
{
    // The knobs as the fit has them: those it chooses, over the efficiency table as given (an
    // efficiency the fit leaves out derives from another, as when it ran).
    Calibration moved = cal;
    std::vector<FitKnob> knobs = fitKnobs(rows, moved);
    knobs.erase(std::remove_if(knobs.begin(), knobs.end(),
                               [](const FitKnob& k) { return !chosenByFit(k); }),
                knobs.end());
    moved.gemm = cal.gemm;
    FitRows fitRows{pointersTo(rows), {}};
    fitRows.times = stepTimes(fitRows.all, moved, false);
    refreshRows(knobs, fitRows, moved);
    const double at = objective(fitRows.all, fitRows.times);
    FitStop stop;
    for (FitKnob& k : knobs) {
        stop.fitted.push_back(k.name);
        const double original = k.value(moved);
        const auto [least, most] = knobRange(k, moved);
        auto improves = [&](double to) {
            stop.improvable.push_back(k.name + ": " + fixed(original, 6) + " -> " + fixed(to, 6));
        };
        if (original < least - 1e-9 || original > most + 1e-9)
            improves(std::clamp(original, least, most));
        for (double sign : {-1.0, 1.0}) {
            const double to = original + sign * fraction * (k.max - k.min);
            // A constant that close to a bound is where the fit stops that way.
            if (to < least || to > most)
                continue;
            setKnob(k, moved, to);
            if (objective(fitRows.all, fitRows.with(k, moved, false)) < at - 1e-9)
                improves(to);
        }
        setKnob(k, moved, original);
    }
    return stop;
}

double meanAbsoluteError(const std::vector<RowError>& errors)
{
    double sum = 0;
    for (const RowError& e : errors)
        sum += std::abs(e.error());
    return errors.empty() ? 0 : sum / double(errors.size());
}

Fit calibrate(const std::vector<MeasuredRun>& rows, const Calibration& start,
              const FitOptions& options)
{
    Fit fit;
    fit.calibration = start;
    std::vector<FitKnob> knobs = fitKnobs(rows, fit.calibration);
    for (const FitKnob& k : knobs)
        fit.bases.push_back(basisOf(k));
    refuseOneFamilyKnobs(knobs, fit);
    // The default efficiency follows the fitted ones (setKnob), so that the GPUs it stands in
    // for are settled with the others, from the start.
    fit.calibration.defaultGemmEfficiency =
        medianEfficiency(fit.calibration.gemm, fit.calibration.defaultGemmEfficiency);
    const Calibration initial = fit.calibration;
    ThrottledProgress progress(options.progress);
    FitRows fitRows{pointersTo(rows), {}};
    // The knobs were found with every efficiency in the table; the ones left out now derive
    // from those kept (NVFP4 from FP8), whose rows they join.
    const std::vector<double> initialTimes = stepTimes(fitRows.all, initial, false);
    fitRows.times = initialTimes;
    refreshRows(knobs, fitRows, fit.calibration);
    for (bool closedForm : {true, false}) {
        if ((!closedForm && options.closedFormOnly) || fit.stoppedEarly)
            break;
        fitRows.times = stepTimes(fitRows.all, fit.calibration, closedForm);
        if (!closedForm)
            startEvaluationFromBetter(initial, initialTimes, fit.calibration, fitRows);
        for (int s = 0; s < options.maxSweeps; ++s) {
            const std::string where = std::string(closedForm ? "closed form" : "evaluation") +
                                      ", sweep " + std::to_string(s + 1);
            const std::optional<double> moved = sweep(knobs, fit.calibration, closedForm, where,
                                                      options.deadline, progress, fitRows);
            if (!moved) {
                fit.stoppedEarly = true;
                progress(where + ": stopped at the time limit", true);
                break;
            }
            ++fit.sweeps;
            holdBounds(knobs, fit.calibration);
            fitRows.times = stepTimes(fitRows.all, fit.calibration, closedForm);
            progress(where + ": " + summary(rows, fit.calibration, closedForm), true);
            if (*moved < kSettled)
                break;
        }
        if (!closedForm && !fit.stoppedEarly) {
            fit.stoppedEarly = !polish(knobs, fit.calibration, options.deadline, fitRows);
            holdBounds(knobs, fit.calibration);
            progress("evaluation, polished: " + summary(rows, fit.calibration, false), true);
        }
    }
    std::sort(fit.calibration.gemm.begin(), fit.calibration.gemm.end(),
              [](const GemmEfficiency& a, const GemmEfficiency& b) {
                  return a.gpu != b.gpu ? a.gpu < b.gpu : a.precision < b.precision;
              });
    fit.rows = predictRows(rows, fit.calibration);
    return fit;
}

} // namespace cs
