#include "loss.h"

namespace cs {

namespace {

constexpr double kBf16 = 2, kFp32 = 4;

} // namespace

LossBytes lossBytesPerLogit(bool teCrossEntropy)
{
    if (teCrossEntropy) // online softmax (read); loss and gradient (read, write); scale (read,
                        // write)
        return {{3 * kBf16, 2 * kBf16}, kBf16};
    return {{3 * kFp32, 3 * kFp32}, 2 * kFp32};
}

} // namespace cs
