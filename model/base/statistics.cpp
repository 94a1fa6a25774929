#include "statistics.h"

#include <algorithm>

namespace cs {

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    const size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(mid), values.end());
    if (values.size() % 2 == 1)
        return values[mid];
    const double upper = values[mid];
    return (*std::max_element(values.begin(), values.begin() + std::ptrdiff_t(mid)) + upper) / 2;
}

} // namespace cs
