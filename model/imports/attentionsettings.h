#pragma once
// A run's attention from Megatron-Core settings: multi-latent attention and its ranks, or a
// sliding window and the layers it is on (window_size, window_attn_skip_freq).

#include <optional>

#include <nlohmann/json.hpp>

#include "settingsreader.h"

namespace cs {

// The model's `attention` object; nothing for full attention on every layer.
std::optional<nlohmann::json> attention(SettingsReader& r);

} // namespace cs
