#include "unfused.h"

namespace cs {

namespace {

constexpr double kBf16 = 2, kFlag = 1;

} // namespace

PassBytes gluClampBytes(double elements)
{
    // Forward: clamp (read, write) then concatenate (read, write), 4 BF16 accesses an element.
    const double forward = 4 * kBf16;
    // Backward, per element of a half: the gate's clamp compares once (read BF16, write a flag)
    // and selects (read the gradient and the flag, write); the linear half compares twice and
    // combines the flags (read two, write one) before selecting; the two gradients are then
    // concatenated (read, write). Averaged over both halves.
    const double compare = kBf16 + kFlag;
    const double select = kBf16 + kFlag + kBf16;
    const double gate = compare + select;
    const double linear = 2 * compare + 3 * kFlag + select;
    const double backward = (gate + linear) / 2 + 2 * kBf16;
    return {forward * elements, backward * elements};
}

PassBytes unfusedRopeBytes(double elements)
{
    // Forward: t cos, the half's negation, the concatenation, x sin, the sum and a final copy,
    // 12 BF16 accesses against the fused kernel's 2. Backward: two products, the negation, the
    // split's concatenation, the gradients' sum and the slices' zero-fill and copy, about 15
    // against 2 (Megatron-Core's rope_utils.py, _apply_rotary_pos_emb_bshd, and its autograd).
    return {(12 - 2) * kBf16 * elements, (15 - 2) * kBf16 * elements};
}

} // namespace cs
