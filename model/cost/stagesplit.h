#pragma once
// Splitting a model's layers over pipeline chunks: consecutive groups of items (each layer's
// share of the model's FLOPs), as even as whole items allow.

#include <vector>

namespace cs {

// Layers per virtual stage so that no pipeline chunk carries many more FLOPs than another, as
// tuned recipes lay out uneven models (Megatron's --account-for-loss-in-pipeline-split, custom
// pipeline layouts): the LM head, the loss and the MTP layers weigh on the last chunk. FLOPs,
// not times, so that the split, and with it each stage's memory, does not move with the
// micro-batch or recomputation. Chunk boundaries fall where the running FLOPs cross each
// multiple of the mean; every chunk keeps at least one layer.
//
// The last item is the head. When the last chunk, with the head, sets the lightest heaviest
// chunk alone, the others are held to the lightest heaviest of their own layers, as the
// frameworks' layouts do ("Et|(tt|)*30mL": two layers a chunk, the MTP layer and the loss on
// the last), rather than to the head's weight.
std::vector<int> splitByShares(const std::vector<double>& items, int chunks);

// The split Megatron-Core makes from the counts alone, with no layout given: as many layers on
// each virtual stage where they divide evenly; else, where the layers and two do, the embedding
// and the loss counted as a layer each (account_for_embedding_in_pipeline_split and
// account_for_loss_in_pipeline_split, the only way Megatron-Core runs such counts evenly, as
// Llama 3.1 405B's and Qwen3-235B's recipes and MLPerf's 405B configs do), the first and the
// last virtual stage a layer short. Empty where neither divides: the run needs a layout of its
// own, which a split by FLOPs (splitByShares) stands in for.
std::vector<int> megatronSplit(int layers, int chunks);

} // namespace cs
