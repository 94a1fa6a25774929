#include "attention.h"

#include <algorithm>

namespace cs {

AttentionSeconds flashAttentionSeconds(double flops, double scores, double flopRate, double expRate)
{
    const double exponentials = expRate > 0 ? scores / expRate : 0;
    return {std::max(flops / flopRate, exponentials),
            std::max(kAttentionBackwardRatio * flops / flopRate, exponentials)};
}

} // namespace cs
