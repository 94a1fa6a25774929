#pragma once
// The `notes` and `x-*` members of a description, kept verbatim so that a round trip
// preserves what other tools wrote there. The value is shared, never copied: an edit of a
// description (one undo step) costs what the edit changed, whatever the extensions hold.

#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace cs {

// The run extensions the cost model reads (docs/formats.md, "Extensions the cost model reads").
inline constexpr const char* kFrameworkKey = "x-framework";
inline constexpr const char* kAllToAllOverlapKey = "x-moe_a2a_overlap";
inline constexpr const char* kFp8AttentionKey = "x-fp8_attention";
inline constexpr const char* kFp8BlockScalingKey = "x-fp8_block_scaling";
inline constexpr const char* kNvlsKey = "x-nvls";
inline constexpr const char* kTpCommOverlapKey = "x-tp_comm_overlap";
inline constexpr const char* kActivationOffloadKey = "x-activation_offload_layers";
inline constexpr const char* kRouterGroupsKey = "x-moe_router_num_groups";
inline constexpr const char* kRouterGroupTopKKey = "x-moe_router_group_topk";
inline constexpr const char* kBiasLinearKey = "x-add_bias_linear";
inline constexpr const char* kFlexDispatcherKey = "x-moe_flex_dispatcher";
inline constexpr const char* kGluClampKey = "x-activation_clamp";
inline constexpr const char* kUnfusedRopeKey = "x-rope_unfused";
inline constexpr const char* kOverlapGradReduceKey = "x-overlap_grad_reduce";
inline constexpr const char* kRouterGraphKey = "x-cuda_graph_moe_router";
inline constexpr const char* kAttentionGraphKey = "x-cuda_graph_attn";
inline constexpr const char* kTeCrossEntropyKey = "x-cross_entropy_te";
inline constexpr const char* kFp8OutputProjKey = "x-fp8_output_proj";

// Each with the name people know it by (the compare table's labels).
struct ModelExtension {
    const char* key;
    const char* label;
};
// One extension a line, however many fit.
// clang-format off
inline constexpr ModelExtension kModelExtensions[] = {
    {kFrameworkKey, "framework"},
    {kAllToAllOverlapKey, "all-to-all overlap"},
    {kFp8AttentionKey, "FP8 attention"},
    {kFp8BlockScalingKey, "MXFP8"},
    {kNvlsKey, "NVLink SHARP"},
    {kTpCommOverlapKey, "TP overlap"},
    {kActivationOffloadKey, "activation offload"},
    {kRouterGroupsKey, "router groups"},
    {kBiasLinearKey, "linear biases"},
    {kFlexDispatcherKey, "DeepEP / HybridEP"},
    {kGluClampKey, "GLU clamp apart"},
    {kUnfusedRopeKey, "RoPE unfused"},
    {kOverlapGradReduceKey, "DP overlap"},
    {kRouterGroupTopKKey, "groups per token"},
    {kRouterGraphKey, "router in CUDA graphs"},
    {kAttentionGraphKey, "attention in CUDA graphs"},
    {kTeCrossEntropyKey, "TE cross-entropy"},
    {kFp8OutputProjKey, "MXFP8 LM head"},
};
// clang-format on
bool readByCostModel(std::string_view key);

class Extensions {
public:
    Extensions(); // an empty object
    explicit Extensions(nlohmann::json object);

    const nlohmann::json& value() const { return *m_value; }
    bool empty() const;
    bool contains(const std::string& key) const;
    // Copies the value once, so that descriptions sharing it keep theirs.
    void set(const std::string& key, const nlohmann::json& value);
    void erase(const std::string& key);

    bool operator==(const Extensions& other) const;

private:
    std::shared_ptr<const nlohmann::json> m_value;
};

} // namespace cs
