#include "unfusedsettings.h"

#include <cmath>
#include <string>

#include "extensions.h"

namespace cs {

using nlohmann::json;

namespace {

// YaRN's get_mscale: 1 at no scaling, else 0.1 m ln s + 1.
double yarnMscale(double scale, double m)
{
    return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0;
}

// The first of `names` the settings give, as a number.
std::optional<double> firstNumber(SettingsReader& r, std::initializer_list<const char*> names)
{
    for (const char* name : names)
        if (r.find(name))
            return r.number(name);
    return std::nullopt;
}

// Megatron-Core adds biases to every linear layer unless told not to (TransformerConfig's
// add_bias_linear, True; Megatron-LM's --disable-bias-linear). Only the experts' cost anything
// the cost model counts apart.
void expertBiases(SettingsReader& r, json& run)
{
    bool biases = true;
    if (r.find("add_bias_linear"))
        biases = r.flag("add_bias_linear");
    else if (r.find("disable_bias_linear"))
        biases = !r.flag("disable_bias_linear");
    else
        r.assume(r.origin().start,
                 "the experts' linear layers carry biases (Megatron-Core's default; " +
                     r.spell("disable_bias_linear") + " leaves them out)");
    if (biases)
        run[kBiasLinearKey] = true;
}

// A clamped quick-GEGLU (gpt-oss) clamps in eager PyTorch before its fused kernel; Megatron-Core
// fuses the clamp into SwiGLU's kernel (fused_bias_swiglu.py), so only quick-GEGLU's runs apart.
void gluClamp(SettingsReader& r, json& run)
{
    const auto clamp = firstNumber(r, {"activation_func_clamp_value"});
    if (!clamp || *clamp <= 0)
        return;
    if (r.flag("quick_geglu"))
        run[kGluClampKey] = true;
    else
        r.assume(r.placeOf("activation_func_clamp_value"),
                 "the GLU clamp is taken as fused into the activation kernel, as Megatron-Core "
                 "fuses it into SwiGLU's (only quick-GEGLU clamps in kernels of its own)");
}

// Transformer Engine's fused RoPE is used unless turned off (--no-rope-fusion,
// apply_rope_fusion: false) or YaRN scales the attention by other than 1 (rope_utils.py).
void rotaryEmbeddings(SettingsReader& r, json& run)
{
    const std::string type =
        r.flag("use_rotary_position_embeddings")
            ? "rope"
            : lowerCase(r.word("position_embedding_type").value_or("learned_absolute"));
    if (type != "rope" && type != "yarn")
        return;
    const bool fusionOff =
        r.flag("no_rope_fusion") || (r.find("apply_rope_fusion") && !r.flag("apply_rope_fusion"));
    double factor = 1;
    if (type == "yarn") {
        const double scale =
            firstNumber(r, {"yarn_rotary_scaling_factor", "rotary_scaling_factor"}).value_or(1);
        const double mscale = firstNumber(r, {"yarn_mscale", "mscale"}).value_or(1);
        const double allDims =
            firstNumber(r, {"yarn_mscale_all_dim", "mscale_all_dim"}).value_or(0);
        factor = yarnAttentionFactor(scale, mscale, allDims);
    }
    if (!fusionOff && factor == 1)
        return;
    run[kUnfusedRopeKey] = true;
    if (!fusionOff)
        r.assume(r.placeOf("position_embedding_type"),
                 "RoPE runs without Transformer Engine's fused kernel: YaRN scales the attention "
                 "by " +
                     fixed(factor, 3) + ", which that kernel does not take");
}

} // namespace

double yarnAttentionFactor(double scalingFactor, double mscale, double mscaleAllDim)
{
    return yarnMscale(scalingFactor, mscale) / yarnMscale(scalingFactor, mscaleAllDim);
}

void unfusedWork(SettingsReader& r, const RunTraits& traits, json& run)
{
    if (traits.experts) {
        expertBiases(r, run);
        gluClamp(r, run);
    }
    if (!traits.latentAttention)
        rotaryEmbeddings(r, run);
}

} // namespace cs
