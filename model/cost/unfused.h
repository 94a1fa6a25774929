#pragma once
// Elementwise work some models run outside the fused kernels the others use, in HBM bytes per
// element it touches (docs/cost-model.md, "Work outside the fused kernels"). gpt-oss in
// Megatron-Core (25.11 to 26.04 containers) and in AutoModel runs both.

namespace cs {

struct PassBytes {
    double forward = 0, backward = 0;
};

// The clamp of an expert GLU's input applied apart from the fused activation (Megatron-Core's
// weighted_bias_quick_geglu_impl, activation_func_clamp_value): forward a clamp of each half
// and their concatenation, each reading and writing BF16; backward each clamp's comparisons (a
// byte a flag) and select, and the concatenation of the two halves' gradients. Per element of
// the GLU's input (both halves).
PassBytes gluClampBytes(double elements);

// Rotary embeddings applied without Transformer Engine's fused kernel (Megatron-Core falls back
// where YaRN scales the attention by other than 1, as gpt-oss's does): the cosine and sine
// products, the rotated half's negation and concatenation, and a full copy, each in BF16, over
// the fused kernel's one read and write. Per element of the rotated queries and keys.
PassBytes unfusedRopeBytes(double elements);

} // namespace cs
