#pragma once
// What the loss over the vocabulary moves through HBM, per logit (a token's score for one
// vocabulary entry on this GPU), and what it keeps for the backward pass (docs/cost-model.md,
// "LM head and loss").

#include "unfused.h"

namespace cs {

struct LossBytes {
    PassBytes pass;  // read and written, forward and backward
    double kept = 0; // held from the loss's forward to its backward, at the loss's peak
};

// Megatron-Core's own cross-entropy (vocab_parallel_cross_entropy, or its jit-fused variant):
// the logits cast to FP32, their maximum, exponentials and sum, the softmax kept in FP32 for
// the gradient; counted as three FP32 passes each way, with the FP32 copy and the softmax held.
// Transformer Engine's (`cross_entropy_fusion_impl` "te", Megatron-Bridge's performance recipes
// from 25.11): two Triton kernels read the BF16 logits twice, the second writing each logit's
// gradient into them in place; backward one kernel scales that gradient (a read and a write).
LossBytes lossBytesPerLogit(bool teCrossEntropy);

} // namespace cs
