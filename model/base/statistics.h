#pragma once
// Statistics the model's parts share.

#include <vector>

namespace cs {

// The median (the mean of the middle two for an even count); 0 for no values.
double median(std::vector<double> values);

} // namespace cs
