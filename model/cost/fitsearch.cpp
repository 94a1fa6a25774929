#include "fitsearch.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "costmodel.h"

namespace cs::fit {

namespace {

constexpr int kGoldenSteps = 14; // the bracket shrinks to 0.1 % of its width

} // namespace

bool hasExperts(const MeasuredRun& r)
{
    return r.run.model.moe.has_value();
}

std::vector<const MeasuredRun*> pointersTo(const std::vector<MeasuredRun>& rows)
{
    std::vector<const MeasuredRun*> all;
    for (const MeasuredRun& r : rows)
        all.push_back(&r);
    return all;
}

std::vector<double> stepTimes(const std::vector<const MeasuredRun*>& rows, const Calibration& cal,
                              bool closedForm)
{
    std::vector<double> times(rows.size());
    const EvalOptions opts{&cal, false};
    auto work = [&](size_t first) {
        for (size_t i = first; i < rows.size(); i += 2) {
            const MeasuredRun& r = *rows[i];
            times[i] =
                (closedForm ? estimate(r.cluster, r.run, opts) : evaluate(r.cluster, r.run, opts))
                    .stepTimeS;
        }
    };
    std::thread second(work, 1);
    work(0);
    second.join();
    return times;
}

double objective(const std::vector<const MeasuredRun*>& rows, const std::vector<double>& times)
{
    constexpr double kTarget[2] = {0.04, 0.08};
    constexpr double kWorst[2] = {0.12, 0.20};
    double sum[2] = {0, 0};
    int count[2] = {0, 0};
    double excess = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const double error = std::abs(times[i] / rows[i]->run.measured->stepTimeS - 1);
        const int set = hasExperts(*rows[i]) ? 1 : 0;
        sum[set] += error;
        ++count[set];
        excess += std::max(0.0, error - kWorst[set]) / kWorst[set];
    }
    double mean = 0;
    int sets = 0;
    for (int s = 0; s < 2; ++s) {
        if (count[s] > 0) {
            mean += sum[s] / count[s] / kTarget[s];
            ++sets;
        }
    }
    return (sets ? mean / sets : 0) + excess / double(std::max<size_t>(1, rows.size()));
}

void findRows(FitKnob& knob, const std::vector<const MeasuredRun*>& rows,
              const std::vector<double>& before, Calibration& cal)
{
    double& value = knob.value(cal);
    const double original = value;
    const double step = 0.1 * (knob.max - knob.min);
    value = original + step <= knob.max ? original + step : original - step;
    const std::vector<double> after = stepTimes(rows, cal, false);
    value = original;
    knob.rows.clear();
    knob.informing.clear();
    for (size_t i = 0; i < rows.size(); ++i) {
        const double change = std::abs(after[i] - before[i]);
        if (change > 1e-12 * before[i])
            knob.rows.push_back(rows[i]);
        if (change >= kInforms * before[i])
            knob.informing.push_back(rows[i]);
    }
}

double medianEfficiency(std::vector<GemmEfficiency> table, double fallback)
{
    if (table.empty())
        return fallback;
    std::sort(table.begin(), table.end(), [](const GemmEfficiency& a, const GemmEfficiency& b) {
        return a.efficiency < b.efficiency;
    });
    const size_t n = table.size();
    return n % 2 ? table[n / 2].efficiency
                 : (table[n / 2 - 1].efficiency + table[n / 2].efficiency) / 2;
}

void setKnob(FitKnob& knob, Calibration& cal, double value)
{
    knob.value(cal) = value;
    if (!knob.architecture.empty())
        cal.defaultGemmEfficiency = medianEfficiency(cal.gemm, cal.defaultGemmEfficiency);
}

namespace {

// The rows whose GEMMs run at the default efficiency: those it moves, as a knob of its own.
std::vector<const MeasuredRun*> rowsOnDefault(const FitRows& fitRows, Calibration& cal)
{
    FitKnob knob{"default_gemm_efficiency",
                 0,
                 1,
                 [](Calibration& c) -> double& { return c.defaultGemmEfficiency; },
                 {},
                 {}};
    findRows(knob, fitRows.all, fitRows.times, cal);
    return knob.rows;
}

} // namespace

void refreshRows(std::vector<FitKnob>& knobs, const FitRows& fitRows, Calibration& cal)
{
    const std::vector<const MeasuredRun*> onDefault = rowsOnDefault(fitRows, cal);
    for (FitKnob& k : knobs) {
        findRows(k, fitRows.all, fitRows.times, cal);
        if (k.architecture.empty())
            continue;
        for (const MeasuredRun* r : onDefault)
            if (std::find(k.rows.begin(), k.rows.end(), r) == k.rows.end())
                k.rows.push_back(r);
    }
}

std::optional<double> tune(FitKnob& knob, Calibration& cal, bool closedForm,
                           Clock::time_point deadline, FitRows& fitRows)
{
    const auto [least, most] = knobRange(knob, cal);
    const double start = std::clamp(knob.value(cal), least, most);
    setKnob(knob, cal, start);
    bool outOfTime = false;
    auto score = [&](double x) {
        outOfTime = outOfTime || Clock::now() >= deadline;
        if (outOfTime)
            return 0.0;
        setKnob(knob, cal, x);
        return objective(fitRows.all, fitRows.with(knob, cal, closedForm));
    };
    const double span = knob.max - knob.min;
    double lo = std::max(least, start - 0.25 * span);
    double hi = std::min(most, start + 0.25 * span);
    constexpr double kRatio = 0.6180339887498949;
    double a = hi - kRatio * (hi - lo), b = lo + kRatio * (hi - lo);
    double fa = score(a), fb = score(b);
    for (int i = 0; i < kGoldenSteps; ++i) {
        if (fa <= fb) {
            hi = b;
            b = a;
            fb = fa;
            a = hi - kRatio * (hi - lo);
            fa = score(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + kRatio * (hi - lo);
            fb = score(b);
        }
    }
    // Keep the old value unless the search found better.
    const double best = fa <= fb ? a : b;
    const double bestScore = std::min(fa, fb);
    const double current = score(start);
    const double kept = bestScore < current && !outOfTime ? best : start;
    setKnob(knob, cal, kept);
    if (outOfTime)
        return std::nullopt;
    fitRows.times = fitRows.with(knob, cal, closedForm);
    return std::abs(kept - start) / std::max(1e-9, std::abs(knob.max - knob.min));
}

// One step of `fraction` of each knob's range, either way, kept where it improves the objective;
// whether any was kept, or nothing when the deadline came first.
std::optional<bool> stepEach(std::vector<FitKnob>& knobs, Calibration& cal, double fraction,
                             Clock::time_point deadline, FitRows& fitRows, double& current)
{
    bool improved = false;
    for (FitKnob& k : knobs) {
        double& value = k.value(cal);
        const auto [least, most] = knobRange(k, cal);
        for (double sign : {-1.0, 1.0}) {
            if (Clock::now() >= deadline)
                return std::nullopt;
            const double start = value;
            const double to = start + sign * fraction * (k.max - k.min);
            if (to < least || to > most)
                continue;
            setKnob(k, cal, to);
            const std::vector<double> times = fitRows.with(k, cal, false);
            const double score = objective(fitRows.all, times);
            if (score < current) {
                current = score;
                fitRows.times = times;
                improved = true;
            } else {
                setKnob(k, cal, start);
            }
        }
    }
    return improved;
}

bool polish(std::vector<FitKnob>& knobs, Calibration& cal, Clock::time_point deadline,
            FitRows& fitRows)
{
    constexpr int kCycles = 4, kRounds = 4;
    refreshRows(knobs, fitRows, cal); // where the sweeps left the constants
    double current = objective(fitRows.all, fitRows.times);
    for (int cycle = 0; cycle < kCycles; ++cycle) {
        bool moved = false;
        for (double fraction : {0.01, 0.001}) {
            for (int round = 0; round < kRounds; ++round) {
                const std::optional<bool> improved =
                    stepEach(knobs, cal, fraction, deadline, fitRows, current);
                if (!improved)
                    return false;
                if (!*improved)
                    break;
                moved = true;
            }
        }
        if (!moved)
            break;
    }
    return true;
}

} // namespace cs::fit
