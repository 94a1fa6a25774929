#pragma once
// The topology's colours of a measured profile (issue 37): "measured step", each GPU's step
// against the median of the ranks' steps, so that stragglers stand out, and "measured
// communication", each GPU's communication not hidden under compute. GPUs without a measured
// rank stay grey (markUnrankedGpus' colours for the others).

#include <optional>
#include <vector>

#include "gpucolors.h"

// What a measured colour mode paints and says: colours and legend together.
struct GpuColoring {
    GpuColors colors;
    Legend legend;
};

// The bins of the step mode: the step over the median, minus one, up to each bound.
inline constexpr double kStepBins[] = {-0.02, -0.005, 0.005, 0.02, 0.05, 0.10};
inline constexpr int kStepColors = int(std::size(kStepBins)) + 1;
inline constexpr int kCommSteps = 8;

bool isMeasuredMode(const cs::ColorMode& mode);

// `values`: one per GPU, as ProfileDocument::valuesPerGpu gives them (the step against the
// median, or exposed communication in seconds); nothing for a GPU without a measured rank.
// `medianStepS`: the median rank's step, for the legend. No profile: every GPU grey and a
// legend that says how to open one.
GpuColoring measuredColoring(const cs::ColorMode& mode,
                             const std::vector<std::optional<double>>& values, bool hasProfile,
                             double medianStepS);
