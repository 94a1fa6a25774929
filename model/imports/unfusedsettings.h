#pragma once
// What a run's settings leave outside Megatron-Core's fused kernels, as the run extensions the
// cost model reads (docs/formats.md): the experts' linear biases (x-add_bias_linear), the GLU
// clamp that runs as kernels of its own (x-activation_clamp) and rotary embeddings without
// Transformer Engine's fused kernel (x-rope_unfused). gpt-oss sets all three.

#include <nlohmann/json.hpp>

#include "settingsreader.h"

namespace cs {

// Sets the extensions the settings call for in `run`, each assumption noted.
void unfusedWork(SettingsReader& r, const RunTraits& traits, nlohmann::json& run);

// YaRN's attention factor (Megatron-Core's concentration factor): RoPE's sines and cosines are
// scaled by it, and Transformer Engine's fused RoPE takes only 1. `mscale` and `mscaleAllDim`
// as the settings give them (Megatron-LM's --mscale 1 and --mscale-all-dim 0 by default).
double yarnAttentionFactor(double scalingFactor, double mscale, double mscaleAllDim);

} // namespace cs
