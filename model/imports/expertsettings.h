#pragma once
// A run's mixture of experts from Megatron-Core settings: the experts, their router and the
// dense layers before them (--moe-layer-freq), and group-limited routing.

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "settingsreader.h"

namespace cs {

// The run's `moe` object; nothing for a dense model (and when a setting is wrong: reported).
std::optional<nlohmann::json> moe(SettingsReader& r, int64_t layers, int64_t ffn);

// Group-limited routing (moe_router_num_groups, moe_router_group_topk), kept as the run's
// extensions when both are given and limit anything (a group top-k under the groups).
void routerGroups(SettingsReader& r, nlohmann::json& run);
// `x-moe_flex_dispatcher` from the token dispatcher the settings name.
void tokenDispatcher(SettingsReader& r, nlohmann::json& run);

} // namespace cs
