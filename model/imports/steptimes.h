#pragma once
// The per-step times an imported run keeps (under kMeasuredStepTimesKey) for the variance view:
// all of them for a log of ordinary length, an even sample of a very long one, so that the run
// written stays within what a run file may hold (kMaxJsonValues values, loader.h).

#include <cstddef>
#include <string>
#include <vector>

namespace cs {

// The most step times a run keeps: far more than a histogram needs, and under a tenth of the
// JSON values a run file may hold. The measured step time is the median of all of them still.
inline constexpr size_t kMaxKeptStepTimes = 100000;

// `times` when there are at most kMaxKeptStepTimes; else that many, evenly spaced through them
// (the first and the last among them), in their order.
std::vector<double> keptStepTimes(const std::vector<double>& times);

// What keptStepTimes did to `count` times, as a note; empty when it kept them all.
std::string keptStepTimesNote(size_t count);

} // namespace cs
