#include "expertsettings.h"

#include <string>
#include <vector>

#include "layerpattern.h"

namespace cs {

using nlohmann::json;

namespace {

constexpr int kDefaultTopK = 2; // --moe-router-topk

// The leading dense layers --moe-layer-freq describes; the format knows no other pattern.
int denseLayers(SettingsReader& r, int64_t layers)
{
    const auto text = r.word("moe_layer_freq");
    if (!text || *text == "1")
        return 0;
    const SourcePlace& at = r.placeOf("moe_layer_freq");
    std::vector<int> pattern;
    if (std::all_of(text->begin(), text->end(), [](unsigned char c) { return std::isdigit(c); })) {
        r.assume(at, "one MoE layer in every " + *text +
                         " is not a pattern the run format holds: every layer taken as MoE");
        return 0;
    }
    const auto evaluated = evaluateLayerPattern(*text);
    if (!evaluated || int64_t(evaluated->size()) != layers) {
        r.error(at, r.spell("moe_layer_freq") + " = " + cs::inQuotes(*text) + " is not a list of " +
                        std::to_string(layers) + " zeros and ones such as ([0]*3+[1]*58)");
        return 0;
    }
    const auto firstMoe = std::find(evaluated->begin(), evaluated->end(), 1);
    const int dense = int(firstMoe - evaluated->begin());
    if (std::find(firstMoe, evaluated->end(), 0) != evaluated->end())
        r.assume(at, "dense layers between MoE layers are taken as MoE: the run format holds "
                     "leading dense layers only");
    return dense;
}

} // namespace

std::optional<json> moe(SettingsReader& r, int64_t layers, int64_t ffn)
{
    const auto experts = r.integer("num_experts", "routed experts");
    if (!experts)
        return std::nullopt;
    json m = {{"experts", *experts}};
    const auto topK = r.integer("moe_router_topk", "experts per token");
    if (!topK)
        r.assume(r.placeOf("num_experts"),
                 "top-k " + std::to_string(kDefaultTopK) + " (Megatron's default)");
    m["top_k"] = topK.value_or(kDefaultTopK);
    m["ffn_hidden"] = r.integer("moe_ffn_hidden_size", "expert FFN width").value_or(ffn);
    if (const auto shared =
            r.integer("moe_shared_expert_intermediate_size", "shared experts' FFN width")) {
        m["shared_experts"] = 1;
        m["shared_ffn_hidden"] = *shared;
    }
    const int dense = denseLayers(r, layers);
    if (dense > 0) {
        m["dense_layers"] = dense;
        m["dense_ffn_hidden"] = ffn;
    }
    if (r.find("moe_expert_capacity_factor")) {
        if (const auto factor = r.number("moe_expert_capacity_factor"))
            m["capacity_factor"] = *factor;
    }
    return m;
}

void routerGroups(SettingsReader& r, json& run)
{
    const auto groups = r.integer("moe_router_num_groups", "expert groups");
    const auto topK = r.integer("moe_router_group_topk", "expert groups per token");
    if (!groups || !topK || *topK >= *groups)
        return;
    run[kRouterGroupsKey] = *groups;
    run[kRouterGroupTopKKey] = *topK;
}

// Megatron-Core's token dispatcher: flex (DeepEP or HybridEP: `moe_token_dispatcher_type` flex,
// or the older `moe_enable_deepep`) sends a token once to each GPU that holds one of its
// experts, alltoall once per expert; allgather is neither, and left to the default.
void tokenDispatcher(SettingsReader& r, json& run)
{
    const auto type = r.word("moe_token_dispatcher_type");
    if (r.flag("moe_enable_deepep") || type == "flex")
        run[kFlexDispatcherKey] = true;
    else if (type == "alltoall")
        run[kFlexDispatcherKey] = false;
}

} // namespace cs
