#include "recipesettings.h"

#include <optional>
#include <vector>

#include "enumtext.h"
#include "extensions.h"

namespace cs {

using nlohmann::json;

namespace {

// A switch as the settings decide it: given, or off where a switch not given is; nothing where
// the settings leave it to what is not known here (a config's class).
std::optional<bool> decided(SettingsReader& r, const std::string& name,
                            std::vector<std::string>& offUnlessGiven)
{
    if (r.find(name))
        return r.flag(name);
    if (!r.origin().switchesOffUnlessGiven)
        return std::nullopt;
    offUnlessGiven.push_back(r.spell(name));
    return false;
}

// Whether the step runs as one CUDA graph: Megatron-Core's cuda_graph_impl "full_iteration", or
// "local" with full_iteration among its modules (cuda_graph_modules, formerly cuda_graph_scope).
std::optional<bool> fullIterationGraph(SettingsReader& r)
{
    const std::optional<std::string> impl = r.word("cuda_graph_impl");
    if (!impl)
        return r.origin().switchesOffUnlessGiven ? std::optional<bool>(false) : std::nullopt;
    if (*impl == "full_iteration")
        return true;
    if (*impl != "local")
        return false;
    for (const char* name : {"cuda_graph_modules", "cuda_graph_scope"})
        for (const std::string& module : r.words(name))
            if (module.find("full_iteration") != std::string::npos)
                return true;
    return false;
}

// The modules replayed as CUDA graphs layer by layer (cuda_graph_impl transformer_engine or
// local, with cuda_graph_scope or cuda_graph_modules): the MoE router with its preprocessing
// (both, the share the cost model takes off counts both), and attention, whose launches the
// CPU then skips.
void graphedModules(SettingsReader& r, json& run)
{
    const std::optional<std::string> impl = r.word("cuda_graph_impl");
    if (!impl || (*impl != "transformer_engine" && *impl != "local"))
        return;
    bool router = false, preprocess = false;
    for (const char* name : {"cuda_graph_modules", "cuda_graph_scope"})
        for (const std::string& module : r.words(name)) {
            router = router || module == "moe_router";
            preprocess = preprocess || module == "moe_preprocess";
            if (module == "attn")
                run[kAttentionGraphKey] = true;
        }
    if (router && preprocess)
        run[kRouterGraphKey] = true;
}

// Whether the loss runs Transformer Engine's cross-entropy: cross_entropy_fusion_impl "te" with
// the fusion on (a launch's --cross-entropy-loss-fusion; a config's class has it on, as
// Megatron-Bridge's and NeMo's do, unless the config says false). Left to the cost model's
// default, Megatron-Core's own loss, where neither is given.
void crossEntropy(SettingsReader& r, json& run)
{
    const std::optional<std::string> impl = r.word("cross_entropy_fusion_impl");
    const bool fusionGiven = r.find("cross_entropy_loss_fusion") != nullptr;
    if (!impl && !fusionGiven)
        return;
    const bool fused =
        fusionGiven ? r.flag("cross_entropy_loss_fusion") : !r.origin().switchesOffUnlessGiven;
    run[kTeCrossEntropyKey] = fused && impl == "te";
}

// fp8_output_proj, off unless given (Megatron-Core's default, which the cost model's is). Megatron-
// Core takes it only with MXFP8: where the launch scales FP8 otherwise, the head stays in BF16.
void fp8OutputProj(SettingsReader& r, json& run)
{
    if (!r.find("fp8_output_proj"))
        return;
    const bool on = r.flag("fp8_output_proj");
    run[kFp8OutputProjKey] = on;
    if (on && run.value(kFp8BlockScalingKey, true) == false)
        r.assume(r.placeOf("fp8_output_proj"),
                 r.spell("fp8_output_proj") +
                     " needs MXFP8 (fp8_recipe mxfp8), which this launch does not use: the LM "
                     "head is costed in BF16");
}

} // namespace

void recipeSwitches(SettingsReader& r, const RunTraits& traits, json& run)
{
    std::vector<std::string> offUnlessGiven;
    auto set = [&](const char* key, const std::string& name) {
        if (const auto on = decided(r, name, offUnlessGiven))
            run[key] = *on;
    };
    // NVFP4's GEMMs are not overlapped with TP communication (the cost model's rule): left to it.
    if (traits.tp > 1 && traits.precision != "nvfp4")
        set(kTpCommOverlapKey, "tp_comm_overlap");
    set(kOverlapGradReduceKey, "overlap_grad_reduce");
    crossEntropy(r, run);
    if (traits.experts) {
        set(kAllToAllOverlapKey, "overlap_moe_expert_parallel_comm");
        graphedModules(r, run);
    }
    // NCCL_NVLS_ENABLE: 0 off, 1 or 2 (where supported) on; unset, the cost model's default.
    if (r.find("nccl_nvls_enable"))
        run[kNvlsKey] = r.flag("nccl_nvls_enable");
    if (traits.precision != "bf16")
        set(kFp8AttentionKey, "fp8_dot_product_attention");
    if (traits.precision == "fp8") {
        // Megatron-LM's --fp8-recipe is "delayed" unless given: one scale a tensor.
        if (const auto recipe = r.word("fp8_recipe"))
            run[kFp8BlockScalingKey] = *recipe == "mxfp8";
        else if (r.origin().switchesOffUnlessGiven)
            run[kFp8BlockScalingKey] = false;
        if (const auto graph = fullIterationGraph(r)) {
            run[kFrameworkKey] = *graph ? "megatron-core-2026" : "megatron-core-2025";
            if (!*graph)
                r.assume(r.placeOf("cuda_graph_impl"),
                         "no full-iteration CUDA graph (" + r.spell("cuda_graph_impl") +
                             "): the CPU's launches are costed, as for Megatron-Core before the "
                             "26.06 recipes (x-framework megatron-core-2025)");
        }
        fp8OutputProj(r, run); // after the scaling, which it needs
    }
    if (!offUnlessGiven.empty())
        r.assume(r.origin().start,
                 "off, as the launch does not give them: " + wordList(offUnlessGiven, ", "));
}

} // namespace cs
