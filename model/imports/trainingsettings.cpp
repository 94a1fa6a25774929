// Megatron-Core settings to a run description, with Megatron's defaults and rules
// (megatron/training/arguments.py: validate_args; megatron/core/tokenizers/utils/
// build_tokenizer.py: vocabulary padding; megatron/core/parallel_state.py: the rank order).

#include "trainingsettings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "attentionsettings.h"
#include "expertsettings.h"
#include "extensions.h"
#include "importcheck.h"
#include "loader.h"
#include "recipesettings.h"
#include "settingsreader.h"
#include "text.h"
#include "tokenizers.h"
#include "unfusedsettings.h"

namespace cs {

using nlohmann::json;

namespace {

constexpr int kDefaultVocabDivisor = 128; // --make-vocab-size-divisible-by

std::string count(int64_t n)
{
    return withThousands(n);
}

// --- vocabulary ------------------------------------------------------------------------------

// The tokenizer's own size, before Megatron pads it, and what told it; nothing when unknown.
std::optional<KnownVocabulary> tokenizerVocabulary(SettingsReader& r)
{
    const std::string type = r.word("tokenizer_type").value_or("");
    if (const auto size = r.integer("vocab_size", "the tokenizer's vocabulary")) {
        // Megatron-Core 0.18 made the NullTokenizer's end-of-document token the last of the
        // given size (null_tokenizer.py); earlier versions added it after.
        const bool null = lowerCase(type) == "nulltokenizer";
        return KnownVocabulary{*size, r.spell("vocab_size") +
                                          (null ? " (the NullTokenizer's end-of-document token "
                                                  "included, as Megatron-Core 0.18 counts it)"
                                                : "")};
    }
    return knownVocabulary({type, r.word("tokenizer_model").value_or(""),
                            r.word("vocab_file").value_or(""), r.word("merge_file").value_or(""),
                            r.origin().script});
}

// Where the vocabulary was told: the first of the tokenizer's settings given.
const SourcePlace& tokenizerPlace(SettingsReader& r)
{
    for (const char* name :
         {"vocab_size", "tokenizer_type", "tokenizer_model", "vocab_file", "merge_file"}) {
        if (r.find(name))
            return r.placeOf(name);
    }
    return r.placeOf("vocab_size");
}

void refuseUnknownVocabulary(SettingsReader& r)
{
    const std::string give = "give " + r.spell("vocab_size") + " (the tokenizer's size) or " +
                             r.spell("padded_vocab_size");
    std::string named;
    for (const char* name : {"tokenizer_type", "tokenizer_model", "vocab_file"}) {
        if (const auto value = r.word(name))
            named += (named.empty() ? "" : " with ") + r.spell(name) + " " + cs::inQuotes(*value);
    }
    if (named.empty())
        r.error(r.placeOf("vocab_size"), "the vocabulary size is unknown: no tokenizer is named (" +
                                             r.spell("tokenizer_type") + ", " +
                                             r.spell("tokenizer_model") + ", " +
                                             r.spell("vocab_file") + "); " + give);
    else
        r.error(tokenizerPlace(r), named +
                                       ": the vocabulary size of this tokenizer is unknown "
                                       "without reading its files; " +
                                       give);
}

std::optional<int64_t> vocabulary(SettingsReader& r, int64_t tp)
{
    if (const auto padded = r.integer("padded_vocab_size", "the padded vocabulary"))
        return *padded;
    const auto base = tokenizerVocabulary(r);
    if (!base) {
        if (!r.find("vocab_size")) // a wrong --vocab-size is reported already
            refuseUnknownVocabulary(r);
        return std::nullopt;
    }
    const std::string told = "vocabulary " + count(base->tokens) + " from " + base->source;
    if (r.flag("no_pad_vocab_size")) {
        r.assume(r.placeOf("no_pad_vocab_size"),
                 told + ", not padded (" + r.spell("no_pad_vocab_size") + ")");
        return base->tokens;
    }
    const int64_t divisor = r.integer("make_vocab_size_divisible_by", "vocabulary padding")
                                .value_or(kDefaultVocabDivisor);
    const int64_t multiple = divisor * tp;
    const int64_t padded = (base->tokens + multiple - 1) / multiple * multiple;
    const std::string multipleOf =
        "a multiple of " + count(divisor) + " x tp " + std::to_string(tp) + " = " + count(multiple);
    r.assume(tokenizerPlace(r), padded == base->tokens
                                    ? told + ", already " + multipleOf + " (Megatron pads to one)"
                                    : told + ", padded to " + count(padded) + " (" + multipleOf +
                                          ", as Megatron pads it)");
    return padded;
}

// --- virtual pipeline ------------------------------------------------------------------------

std::optional<int64_t> virtualStages(SettingsReader& r, int64_t layers, int64_t pp)
{
    if (const auto vp =
            r.integer("virtual_pipeline_model_parallel_size", "virtual stages per rank"))
        return *vp;
    if (const auto vp =
            r.integer("num_virtual_stages_per_pipeline_rank", "virtual stages per rank"))
        return *vp;
    if (r.find("pipeline_model_parallel_layout")) {
        r.assume(r.placeOf("pipeline_model_parallel_layout"),
                 "the custom pipeline layout is not read: vp taken as 1, layers spread evenly");
        return 1;
    }
    const auto perStage =
        r.integer("num_layers_per_virtual_pipeline_stage", "layers per virtual stage");
    if (!perStage)
        return 1;
    // Megatron counts the embedding and the loss as layers when told to.
    const int64_t counted = layers + (r.flag("account_for_embedding_in_pipeline_split") ? 1 : 0) +
                            (r.flag("account_for_loss_in_pipeline_split") ? 1 : 0);
    if (counted % pp != 0 || (counted / pp) % *perStage != 0) {
        r.error(r.placeOf("num_layers_per_virtual_pipeline_stage"),
                r.spell("num_layers_per_virtual_pipeline_stage") + " = " +
                    std::to_string(*perStage) + " does not divide the " + std::to_string(counted) +
                    " layers over pp = " + std::to_string(pp) +
                    " stages evenly (Megatron refuses it too)");
        return std::nullopt;
    }
    return counted / pp / *perStage;
}

// --- recompute -------------------------------------------------------------------------------

json recompute(SettingsReader& r)
{
    std::string granularity = lowerCase(r.word("recompute_granularity").value_or(""));
    if (isNullWord(granularity) && r.flag("recompute_activations"))
        granularity = "selective";
    const std::vector<std::string> modules = r.words("recompute_modules");
    if (isNullWord(granularity)) {
        if (!modules.empty())
            r.assume(r.placeOf("recompute_modules"),
                     "recompute modules without a recompute granularity: Megatron recomputes "
                     "nothing");
        return "none";
    }
    if (granularity == "full") {
        if (r.find("recompute_num_layers"))
            r.assume(r.placeOf("recompute_num_layers"),
                     "full recompute of some layers per stage (" +
                         r.word("recompute_method").value_or("uniform") +
                         " method) described as full recompute of every layer");
        return "full";
    }
    if (granularity != "selective") {
        r.error(r.placeOf("recompute_granularity"), r.spell("recompute_granularity") + " = " +
                                                        cs::inQuotes(granularity) +
                                                        " is neither full nor selective");
        return "none";
    }
    if (modules.empty() || (modules.size() == 1 && modules[0] == "core_attn"))
        return "selective";
    return modules;
}

// --- activation offloading ------------------------------------------------------------------

// Transformer Engine's CPU offloading of the first cpu_offloading_num_layers layers' activations;
// a NeMo config may give the count with cpu_offloading off.
std::optional<int64_t> activationOffload(SettingsReader& r)
{
    const auto layers =
        r.integer("cpu_offloading_num_layers", "layers offloading their activations", false, 0);
    if (!layers || *layers == 0)
        return std::nullopt;
    if (r.find("cpu_offloading") && !r.flag("cpu_offloading")) {
        r.assume(r.placeOf("cpu_offloading_num_layers"), "offloading turned off (" +
                                                             r.spell("cpu_offloading") +
                                                             "): no activations offloaded");
        return std::nullopt;
    }
    return layers;
}

// --- precision -------------------------------------------------------------------------------

std::string precision(SettingsReader& r)
{
    if (r.enabled("fp4_format"))
        return "nvfp4";
    if (r.enabled("fp8_format"))
        return "fp8";
    if (r.flag("bf16"))
        return "bf16";
    if (r.flag("fp16")) {
        r.assume(r.placeOf("fp16"), "fp16 described as bf16 (the same tensor-core rate)");
        return "bf16";
    }
    r.assume(r.placeOf("bf16"),
             "no bf16, fp16, fp8 or fp4 setting: Megatron would train in fp32; described as bf16");
    return "bf16";
}

} // namespace

void appendNote(json& run, const std::string& sentence)
{
    const std::string notes = run.value("notes", std::string());
    run["notes"] = notes.empty() ? sentence : notes + " " + sentence;
}

const std::set<std::string>& knownSettingNames()
{
    static const std::set<std::string> names{
        "num_layers",
        "hidden_size",
        "ffn_hidden_size",
        "num_attention_heads",
        "group_query_attention",
        "num_query_groups",
        "kv_channels",
        "seq_length",
        "max_position_embeddings",
        "micro_batch_size",
        "global_batch_size",
        "rampup_batch_size",
        "tensor_model_parallel_size",
        "pipeline_model_parallel_size",
        "num_layers_per_virtual_pipeline_stage",
        "num_virtual_stages_per_pipeline_rank",
        "virtual_pipeline_model_parallel_size",
        "account_for_embedding_in_pipeline_split",
        "account_for_loss_in_pipeline_split",
        "decoder_first_pipeline_num_layers",
        "decoder_last_pipeline_num_layers",
        "pipeline_model_parallel_layout",
        "context_parallel_size",
        "expert_model_parallel_size",
        "expert_tensor_parallel_size",
        "num_experts",
        "moe_router_topk",
        "moe_ffn_hidden_size",
        "moe_shared_expert_intermediate_size",
        "moe_layer_freq",
        "moe_expert_capacity_factor",
        "moe_router_num_groups",
        "moe_router_group_topk",
        "moe_token_dispatcher_type",
        "moe_enable_deepep",
        "sequence_parallel",
        "use_distributed_optimizer",
        "use_torch_fsdp2",
        "use_megatron_fsdp",
        "use_custom_fsdp",
        "data_parallel_sharding_strategy",
        "use_tp_pp_dp_mapping",
        "recompute_granularity",
        "recompute_method",
        "recompute_num_layers",
        "recompute_modules",
        "recompute_activations",
        "bf16",
        "fp16",
        "fp8_format",
        "fp4_format",
        "swiglu",
        "quick_geglu",
        "tp_comm_overlap",
        "overlap_grad_reduce",
        "overlap_moe_expert_parallel_comm",
        "fp8_dot_product_attention",
        "cross_entropy_loss_fusion",
        "cross_entropy_fusion_impl",
        "fp8_recipe",
        "fp8_output_proj",
        "cuda_graph_impl",
        "cuda_graph_modules",
        "cuda_graph_scope",
        "activation_func_clamp_value",
        "add_bias_linear",
        "disable_bias_linear",
        "position_embedding_type",
        "use_rotary_position_embeddings",
        "no_rope_fusion",
        "apply_rope_fusion",
        "rotary_scaling_factor",
        "yarn_rotary_scaling_factor",
        "mscale",
        "mscale_all_dim",
        "yarn_mscale",
        "yarn_mscale_all_dim",
        "vocab_size",
        "padded_vocab_size",
        "make_vocab_size_divisible_by",
        "no_pad_vocab_size",
        "tokenizer_type",
        "tokenizer_model",
        "vocab_file",
        "merge_file",
        "multi_latent_attention",
        "q_lora_rank",
        "kv_lora_rank",
        "qk_head_dim",
        "qk_pos_emb_head_dim",
        "v_head_dim",
        "mtp_num_layers",
        "window_size",
        "window_attn_skip_freq",
        "train_iters",
        "train_samples",
        "save_interval",
        "async_save",
        "cpu_offloading",
        "cpu_offloading_num_layers",
        "world_size",
    };
    return names;
}

std::optional<json> runFromSettings(const TrainingSettings& settings, const SettingsOrigin& origin,
                                    ImportReport& report)
{
    SettingsReader r(settings, origin, report);
    const auto layers = r.integer("num_layers", "transformer layers", true);
    const auto hidden = r.integer("hidden_size", "the model width", true);
    const auto heads = r.integer("num_attention_heads", "attention heads", true);
    const auto micro = r.integer("micro_batch_size", "sequences per micro-batch", true);
    auto seq = r.integer("seq_length", "tokens per sequence");
    if (!seq && r.find("max_position_embeddings") && !r.find("seq_length")) {
        seq = r.integer("max_position_embeddings", "position embeddings");
        if (seq)
            r.assume(r.placeOf("max_position_embeddings"),
                     "sequence length " + count(*seq) + " taken from the position embeddings");
    }
    if (!seq && !r.find("seq_length") && !r.find("max_position_embeddings"))
        r.missing("seq_length", "tokens per sequence");
    const int64_t tp = r.parallelSize("tensor_model_parallel_size", "tensor parallel size");
    const int64_t pp = r.parallelSize("pipeline_model_parallel_size", "pipeline stages");
    const int64_t cp = r.parallelSize("context_parallel_size", "context parallel size");
    const auto world = r.integer("world_size", "GPUs", false, 1, kMaxGpus);
    const auto vocab = vocabulary(r, tp);
    if (!layers || !hidden || !heads || !micro || !seq || !vocab || r.failed())
        return std::nullopt;

    std::optional<int64_t> dp;
    if (world) {
        if (*world % (tp * cp * pp) != 0) {
            r.error(r.placeOf("world_size"),
                    "the " + count(*world) +
                        " GPUs do not divide by tp x cp x pp = " + std::to_string(tp) + " x " +
                        std::to_string(cp) + " x " + std::to_string(pp));
            return std::nullopt;
        }
        dp = *world / (tp * cp * pp);
    }
    auto global = r.integer("global_batch_size", "sequences per step");
    if (!global && dp && !r.find("global_batch_size")) {
        global = *micro * *dp;
        r.assume(origin.start,
                 "global batch " + count(*global) + " = micro-batch x dp (Megatron's default)");
    }
    if (!global && !r.find("global_batch_size"))
        r.missing("global_batch_size", "sequences per step; or give the GPU count");
    if (r.find("rampup_batch_size"))
        r.assume(r.placeOf("rampup_batch_size"),
                 "the batch ramp-up is left out: the run is described at its full global batch");

    // Megatron's --quick-geglu is gated too (gpt-oss: quick-GELU times the linear half).
    const bool swiglu = r.flag("swiglu");
    const bool gated = swiglu || r.flag("quick_geglu");
    auto ffn = r.integer("ffn_hidden_size", "the FFN width");
    if (!ffn && !r.find("ffn_hidden_size")) {
        // Megatron keeps SwiGLU's parameters near 4 h, in multiples of 64 (and only SwiGLU's).
        ffn = swiglu ? int64_t(4.0 * double(*hidden) * 2.0 / 3.0 / 64.0) * 64 : 4 * *hidden;
        r.assume(origin.start, "FFN width " + count(*ffn) +
                                   (swiglu ? " = 8/3 h rounded down to "
                                             "64 (Megatron's default with "
                                             "SwiGLU)"
                                           : " = 4 h (Megatron's default)"));
    }
    int64_t kvHeads = *heads;
    if (r.flag("group_query_attention"))
        kvHeads = r.integer("num_query_groups", "KV heads").value_or(1);
    else if (r.find("num_query_groups"))
        r.assume(r.placeOf("num_query_groups"),
                 "query groups without group-query attention: Megatron uses every head for KV");
    const auto vp = virtualStages(r, *layers, pp);
    if (!global || !ffn || !vp || r.failed())
        return std::nullopt;

    json model = {{"layers", *layers}, {"hidden", *hidden},   {"ffn_hidden", *ffn},
                  {"heads", *heads},   {"kv_heads", kvHeads}, {"vocab", *vocab},
                  {"seq_len", *seq},   {"gated_mlp", gated}};
    if (const auto headDim = r.integer("kv_channels", "head width");
        headDim && (*hidden % *heads != 0 || *headDim != *hidden / *heads))
        model["head_dim"] = *headDim;
    if (const auto mtp = r.integer("mtp_num_layers", "multi-token prediction layers", false, 0);
        mtp && *mtp > 0)
        model["mtp_layers"] = *mtp;
    if (auto a = attention(r))
        model["attention"] = *a;
    const auto experts = moe(r, *layers, *ffn);
    if (experts)
        model["moe"] = *experts;

    json parallelism = {{"tp", tp},
                        {"cp", cp},
                        {"pp", pp},
                        {"vp", *vp},
                        {"sequence_parallel", r.flag("sequence_parallel")},
                        {"distributed_optimizer", r.flag("use_distributed_optimizer")},
                        {"recompute", recompute(r)}};
    if (dp)
        parallelism["dp"] = *dp;
    const int64_t ep = r.parallelSize("expert_model_parallel_size", "expert parallel size");
    if (experts || ep > 1) {
        parallelism["ep"] = ep;
        parallelism["etp"] = r.integer("expert_tensor_parallel_size", "expert tensor parallel size",
                                       false, 1, kMaxGpus)
                                 .value_or(tp);
    }
    if (r.flag("use_torch_fsdp2") || r.flag("use_megatron_fsdp") || r.flag("use_custom_fsdp")) {
        const std::string sharding =
            r.word("data_parallel_sharding_strategy").value_or("optim_grads_params");
        parallelism["fsdp"] = sharding == "optim_grads_params";
        if (sharding != "optim_grads_params")
            r.assume(r.placeOf("data_parallel_sharding_strategy"),
                     "FSDP sharding " + cs::inQuotes(sharding) +
                         " keeps parameters whole: described without fsdp");
    }
    if (r.find("decoder_first_pipeline_num_layers") || r.find("decoder_last_pipeline_num_layers"))
        r.assume(r.placeOf(r.find("decoder_first_pipeline_num_layers")
                               ? "decoder_first_pipeline_num_layers"
                               : "decoder_last_pipeline_num_layers"),
                 "uneven first or last stages are not kept: layers are spread evenly");

    // Megatron-Core lays ranks out tp, cp, (ep,) dp, pp from the innermost unless told
    // otherwise (parallel_state.py: order "tp-cp-ep-dp-pp").
    json placement = json::array({"tp", "cp", "pp", "dp"});
    if (!r.flag("use_tp_pp_dp_mapping")) {
        placement = json::array({"tp", "cp", "dp", "pp"});
        if (pp > 1)
            r.assume(origin.start, "ranks laid out tp, cp, dp, pp from the innermost "
                                   "(Megatron-Core's default order; " +
                                       r.spell("use_tp_pp_dp_mapping") + " puts pp inside dp)");
    }

    json run = {{"format", "clusterscope/run@1"},
                {"name", origin.runName},
                {"model", model},
                {"precision", precision(r)},
                {"batch", {{"global", *global}, {"micro", *micro}}},
                {"parallelism", parallelism},
                {"placement", placement}};
    if (const auto steps = r.integer("train_iters", "training steps")) {
        run["training"] = {{"steps", *steps}};
    } else if (const auto samples = r.integer("train_samples", "training samples")) {
        const int64_t steps = (*samples + *global - 1) / *global;
        run["training"] = {{"steps", steps}};
        r.assume(r.placeOf("train_samples"),
                 count(steps) + " training steps = " + count(*samples) + " samples / global batch");
    }
    if (const auto interval = r.integer("save_interval", "steps between checkpoints"))
        run["checkpoint"] = {{"interval_steps", *interval}, {"async", r.flag("async_save")}};
    if (const auto offloaded = activationOffload(r))
        run[kActivationOffloadKey] = *offloaded;
    if (experts) {
        routerGroups(r, run);
        tokenDispatcher(r, run);
    }
    const RunTraits traits{experts.has_value(),
                           model.contains("attention") &&
                               model["attention"].value("kind", "") == "mla",
                           run["precision"].get<std::string>(), tp};
    unfusedWork(r, traits, run);
    recipeSwitches(r, traits, run);
    if (r.failed())
        return std::nullopt;
    std::string notes = "Imported from " + origin.description + " (" + origin.start.file + ").";
    for (const std::string& a : r.assumptions())
        notes += " " + asSentence(a);
    run["notes"] = notes;
    if (!checkImportedRun(run, origin.start, report))
        return std::nullopt;
    return run;
}

} // namespace cs
