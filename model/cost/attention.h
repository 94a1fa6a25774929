#pragma once
// How long flash attention takes on one GPU (docs/cost-model.md, "Attention's exponentials").
//
// Each attention score costs its two matmuls (Q K^T and P V: 2 (d_qk + d_v) FLOPs on the tensor
// cores) and one exponential on the SM's special function units (MUFU.EX2), which run beside
// the tensor cores and at a rate of their own: 16 a clock an SM on Ampere, Hopper and Blackwell,
// 32 on Blackwell Ultra. Blackwell doubled the tensor cores' rate and not the exponentials', so
// attention with narrow heads (64) is bound by its exponentials there; the kernel overlaps the
// two, so the slower one sets the time (FlashAttention-4, Zadouri et al., 2026, arXiv
// 2603.05451). Backward computes 2.5 times the forward's FLOPs (five matmuls to two) and
// recomputes one exponential a score.

namespace cs {

struct AttentionSeconds {
    double forward = 0, backward = 0;
};

inline constexpr double kAttentionBackwardRatio = 2.5; // backward FLOPs over forward

// `flops` of the forward matmuls and `scores` attention scores at `flopRate` FLOP/s and
// `expRate` exponentials a second (0: no bound from the exponentials).
AttentionSeconds flashAttentionSeconds(double flops, double scores, double flopRate,
                                       double expRate);

} // namespace cs
