// An even sample of a long list of step times.

#include "steptimes.h"

#include <cstdint>

#include "text.h"

namespace cs {

std::vector<double> keptStepTimes(const std::vector<double>& times)
{
    const size_t n = times.size();
    if (n <= kMaxKeptStepTimes)
        return times;
    std::vector<double> kept;
    kept.reserve(kMaxKeptStepTimes);
    for (size_t i = 0; i < kMaxKeptStepTimes; ++i)
        kept.push_back(times[i * (n - 1) / (kMaxKeptStepTimes - 1)]);
    return kept;
}

std::string keptStepTimesNote(size_t count)
{
    if (count <= kMaxKeptStepTimes)
        return "";
    return "the measured step time is the median of all " + withThousands(int64_t(count)) +
           " step times; " + withThousands(int64_t(kMaxKeptStepTimes)) +
           " of them, evenly spaced, are kept for the variance view";
}

} // namespace cs
