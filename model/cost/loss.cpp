#include "loss.h"

namespace cs {

namespace {

constexpr double kBf16 = 2, kFp32 = 4;

} // namespace

LossBytes lossBytesPerLogit(bool teCrossEntropy)
{
    // Transformer Engine's: the online softmax reads, the loss kernel reads and writes the
    // gradient in place; backward the scale reads and writes it.
    if (teCrossEntropy)
        return {{3 * kBf16, 2 * kBf16}, kBf16};
    return {{3 * kFp32, 3 * kFp32}, 2 * kFp32};
}

} // namespace cs
