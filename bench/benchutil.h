#pragma once
// Timing for the benchmarks: the median of repeated runs, in milliseconds.

#include <algorithm>
#include <chrono>
#include <vector>

namespace csbench {

template <typename F> double medianMs(int repeats, F&& body)
{
    std::vector<double> ms;
    ms.reserve(size_t(repeats));
    for (int i = 0; i < repeats; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        body(i);
        auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return ms[ms.size() / 2];
}

} // namespace csbench
