#pragma once
// The recipe switches the cost model reads (docs/formats.md, "Extensions the cost model
// reads"), as a run's settings turn them on or off: the TP collectives under their GEMMs
// (x-tp_comm_overlap), NCCL's NVLink SHARP (x-nvls), the gradients reduced under the backward
// pass (x-overlap_grad_reduce), the expert all-to-all under another
// micro-batch (x-moe_a2a_overlap), FP8 attention (x-fp8_attention), MXFP8 (x-fp8_block_scaling),
// the LM head in MXFP8 (x-fp8_output_proj), Transformer Engine's cross-entropy
// (x-cross_entropy_te) and, for FP8, whether the step runs as one CUDA graph (x-framework).
// Without them an FP8 run
// takes the 2026 full-iteration recipes' switches, which a launch that does not ask for them does
// not have.

#include <string>

#include <nlohmann/json.hpp>

#include "settingsreader.h"

namespace cs {

// Sets the switches the settings decide in `run`; what a launch leaves off is noted once.
void recipeSwitches(SettingsReader& r, const RunTraits& traits, nlohmann::json& run);

} // namespace cs
