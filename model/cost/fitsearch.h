#pragma once
// The search under calibrate() (calibrate.h): the fit's objective, the rows each constant
// moves, and the steps that lower the objective, a golden-section search per constant and a
// polish of small steps.

#include <chrono>
#include <optional>
#include <vector>

#include "calibrate.h"

namespace cs::fit {

using Clock = std::chrono::steady_clock;

// A knob's tenth of its range moves a row it informs by this.
inline constexpr double kInforms = 0.01;

bool hasExperts(const MeasuredRun& r);
std::vector<const MeasuredRun*> pointersTo(const std::vector<MeasuredRun>& rows);
// Evaluations of rows on both threads; `closedForm` chooses estimate() over evaluate().
std::vector<double> stepTimes(const std::vector<const MeasuredRun*>& rows, const Calibration& cal,
                              bool closedForm);
// Each set's mean absolute error over its target (dense runs, runs with experts: issue
// targets 4 % and 8 %), averaged, plus every row's excess over its set's worst-row bound
// (12 %, 20 %) over that bound, so that neither set nor any row is given up for the others.
double objective(const std::vector<const MeasuredRun*>& rows, const std::vector<double>& times);
// The rows of `rows` a knob moves (knob.rows), and among them those it informs: whose step moves
// by kInforms or more when the knob moves by a tenth of its range (an architecture's BF16
// efficiency barely moves its FP8 runs through their BF16 routers and LM heads); `before`: their
// times now.
void findRows(FitKnob& knob, const std::vector<const MeasuredRun*>& rows,
              const std::vector<double>& before, Calibration& cal);

// The efficiency that architectures without one of their own take (the A100 in the public
// rows): the median of the table, `fallback` when it is empty.
double medianEfficiency(std::vector<GemmEfficiency> table, double fallback);
// Sets a knob, and with an efficiency of the table the default that follows the table's median,
// so that every objective the fit compares is of constants as the fit leaves them.
void setKnob(FitKnob& knob, Calibration& cal, double value);

// The rows of a fit and their step times with the current constants: a knob's search evaluates
// only the rows it moves, while the objective stays the whole fit's.
struct FitRows {
    std::vector<const MeasuredRun*> all;
    std::vector<double> times;
    // The times with the knob's rows evaluated again under `cal`.
    std::vector<double> with(const FitKnob& knob, const Calibration& cal, bool closedForm) const
    {
        const std::vector<double> moved = stepTimes(knob.rows, cal, closedForm);
        std::vector<double> out = times;
        for (size_t i = 0; i < knob.rows.size(); ++i)
            out[size_t(knob.rows[i] - all.front())] = moved[i];
        return out;
    }
};

// Each knob's rows found again among all the fit's rows where the constants now are: a row can
// come to depend on a constant as others move (launch-bound or not), and an efficiency the fit
// does not choose follows the one it derives from (NVFP4 from FP8). An efficiency's rows include
// those on the default (setKnob can move it), which never inform it.
void refreshRows(std::vector<FitKnob>& knobs, const FitRows& fitRows, Calibration& cal);

// Golden-section search of one knob inside its bounds, starting from a bracket around the
// current value; returns the change, or nothing when the deadline came first (the knob then
// keeps its value).
std::optional<double> tune(FitKnob& knob, Calibration& cal, bool closedForm,
                           Clock::time_point deadline, FitRows& fitRows);

// Golden-section search assumes one minimum along a knob; where the objective has several (rows
// that switch between launch-bound and GPU-bound, an efficiency meeting its bound), it can stop
// beside a better value. Steps of a hundredth, then a thousandth, of each knob's range, either
// way, kept while they improve the objective, and again until neither size moves a knob (a
// thousandth's steps can open a hundredth's), leave every constant at a local minimum. False
// when the deadline came first.
bool polish(std::vector<FitKnob>& knobs, Calibration& cal, Clock::time_point deadline,
            FitRows& fitRows);

} // namespace cs::fit
