// NeMo and Megatron-Bridge configs: every key is looked for wherever the version puts it (NeMo 1
// under model:, NeMo 2 under model.config: and trainer.strategy:, Megatron-Bridge under model:,
// train: and ddp:) and read under Megatron's argument names.

#include "nemo.h"

#include <algorithm>
#include <map>

#include "configtree.h"
#include "text.h"
#include "trainingsettings.h"

namespace cs {

using nlohmann::json;

namespace {

// A scalar (or a sequence of scalars) of the config, with its path from the root.
struct Leaf {
    std::vector<std::string> path;
    std::vector<std::string> values;
    SourcePlace place;
    std::string parent; // the path of the mapping holding it, "model.config"
    SourcePlace parentPlace;
    bool used = false;

    const std::string& key() const { return path.back(); }
    bool under(const std::string& segment) const
    {
        return std::find(path.begin(), path.end() - 1, segment) != path.end() - 1;
    }
    const std::string& parentKey() const
    {
        static const std::string kNone;
        return path.size() > 1 ? path[path.size() - 2] : kNone;
    }
};

std::string joinPath(const std::vector<std::string>& path)
{
    std::string text;
    for (const std::string& p : path)
        text += (text.empty() ? "" : ".") + p;
    return text;
}

bool allScalars(const ConfigNode& n)
{
    return std::all_of(n.items.begin(), n.items.end(), [](const ConfigNode& item) {
        return item.kind == ConfigNode::Kind::Scalar;
    });
}

void collect(const ConfigNode& node, std::vector<std::string>& path, const SourcePlace& parentPlace,
             std::vector<Leaf>& leaves)
{
    auto add = [&](std::vector<std::string> values, const SourcePlace& place) {
        std::vector<std::string> parentPath(path.begin(), path.end() - 1);
        leaves.push_back({path, std::move(values), place, joinPath(parentPath), parentPlace});
    };
    switch (node.kind) {
    case ConfigNode::Kind::Scalar:
        if (!path.empty())
            add({node.scalar}, node.place);
        break;
    case ConfigNode::Kind::Sequence:
        if (allScalars(node) && !path.empty()) {
            std::vector<std::string> values;
            for (const ConfigNode& item : node.items)
                values.push_back(item.scalar);
            add(values, node.place);
            break;
        }
        for (size_t i = 0; i < node.items.size(); ++i) {
            path.push_back(std::string("[") + std::to_string(i) + "]");
            collect(node.items[i], path, node.place, leaves);
            path.pop_back();
        }
        break;
    case ConfigNode::Kind::Mapping:
        for (const auto& [key, value] : node.entries) {
            path.push_back(key);
            collect(value, path, node.place, leaves);
            path.pop_back();
        }
        break;
    }
}

// NeMo and Bridge keys that Megatron's arguments name otherwise.
const std::map<std::string, std::string>& synonyms()
{
    static const std::map<std::string, std::string> table{
        {"encoder_seq_length", "seq_length"},
        {"sequence_length", "seq_length"},
        {"num_moe_experts", "num_experts"},
        {"fp8", "fp8_format"},
        {"fp4", "fp4_format"},
        {"activations_checkpoint_granularity", "recompute_granularity"},
        {"activations_checkpoint_method", "recompute_method"},
        {"activations_checkpoint_num_layers", "recompute_num_layers"},
        {"max_steps", "train_iters"},
        {"every_n_train_steps", "save_interval"},
        {"ckpt_async_save", "async_save"},
        {"gated_linear_unit", "swiglu"},
        // An explicit vocabulary is used as given (NeMo and Bridge pad only one they compute).
        {"vocab_size", "padded_vocab_size"},
        {"pretrained_model_name", "tokenizer_model"},
        {"tokenizer_name", "tokenizer_model"},
        {"NCCL_NVLS_ENABLE", "nccl_nvls_enable"}, // a recipe's env_vars
    };
    return table;
}

std::string nemoSpelling(const std::string& name)
{
    static const std::map<std::string, std::string> table{
        {"num_experts", "num_moe_experts"},
        {"fp8_format", "fp8"},
        {"fp4_format", "fp4"},
        {"train_iters", "max_steps"},
        {"world_size", "trainer.num_nodes x trainer.devices"},
    };
    const auto it = table.find(name);
    return it == table.end() ? name : it->second;
}

// How much a leaf's section says about the model: model sections first.
int sectionRank(const Leaf& leaf)
{
    for (const char* s : {"model", "config"})
        if (leaf.under(s))
            return 0;
    for (const char* s : {"strategy", "ddp", "optimizer", "optim", "dist", "mixed_precision",
                          "tokenizer", "plugins"})
        if (leaf.under(s))
            return 1;
    for (const char* s : {"train", "trainer", "data"})
        if (leaf.under(s))
            return 2;
    return 3;
}

class NemoSettings {
public:
    NemoSettings(std::vector<Leaf>& leaves, const SourcePlace& root, ImportReport& report)
        : m_leaves(leaves)
        , m_root(root)
        , m_report(report)
    {
    }

    TrainingSettings read()
    {
        for (Leaf& leaf : m_leaves)
            readLeaf(leaf);
        readWorld();
        return m_settings;
    }

    void noteUnused() const
    {
        std::vector<std::string> order;
        std::map<std::string, std::pair<SourcePlace, std::vector<std::string>>> groups;
        for (const Leaf& leaf : m_leaves) {
            if (leaf.used || leaf.key().starts_with("_"))
                continue;
            if (!groups.count(leaf.parent))
                order.push_back(leaf.parent);
            auto& group = groups[leaf.parent];
            group.first = leaf.parentPlace;
            group.second.push_back(leaf.key());
        }
        for (const std::string& parent : order) {
            const auto& [place, keys] = groups.at(parent);
            std::string list;
            for (const std::string& k : keys)
                list += (list.empty() ? "" : ", ") + k;
            // A JSON pointer names the section already.
            const std::string section =
                place.line == 0 ? "" : (parent.empty() ? "top level" : parent) + ": ";
            m_report.note(place, section + printable(list, 400) + " ignored");
        }
    }

private:
    // Offers a value for a setting; the leaf from the most model-like section wins.
    void offer(const std::string& name, std::vector<std::string> values, Leaf& leaf)
    {
        leaf.used = true;
        const int rank = sectionRank(leaf);
        const auto it = m_settings.find(name);
        if (it != m_settings.end()) {
            if (it->second.values != values)
                m_report.note(leaf.place, joinPath(leaf.path) + " differs from line " +
                                              std::to_string(it->second.place.line) + "; " +
                                              (rank < m_rank[name] ? "this one" : "that one") +
                                              " is used");
            if (rank >= m_rank[name])
                return;
        }
        m_settings[name] = {std::move(values), leaf.place};
        m_rank[name] = rank;
    }

    void readLeaf(Leaf& leaf)
    {
        const std::string& key = leaf.key();
        const std::string value = leaf.values.empty() ? "" : lowerCase(leaf.values.front());
        const std::string& parent = leaf.parentKey();
        if (key == "_target_" && parent == "tokenizer") {
            offer("tokenizer_type", leaf.values, leaf);
        } else if ((key == "type" || key == "library" || key == "tokenizer_type") &&
                   leaf.under("tokenizer")) {
            if (value != "megatron" && value != "huggingface" && value != "sentencepiece")
                offer("tokenizer_type", leaf.values, leaf);
            leaf.used = true;
        } else if (key == "model" && leaf.under("tokenizer")) {
            offer("tokenizer_model", leaf.values, leaf);
        } else if (key == "precision") {
            readPrecision(value, leaf);
        } else if (key == "mixed_precision") {
            readRecipe(value, leaf);
        } else if (key == "activation") {
            // NeMo 1: swiglu, fast-swiglu, geglu, reglu ... are gated; gelu and relu are not.
            const bool gated = value.ends_with("glu") && value != "gelu";
            offer("swiglu", {gated ? "true" : "false"}, leaf);
        } else if (key == "activation_func" || (key == "_target_" && parent == "activation_func")) {
            // Megatron-Bridge names the function ("quick_gelu", or its import path); a gated
            // quick-GELU is Megatron-LM's --quick-geglu (gpt-oss).
            if (value.find("quick_gelu") != std::string::npos)
                offer("quick_geglu", {"true"}, leaf);
            leaf.used = true;
        } else if (key == "name" && (parent == "optim" || parent == "optimizer")) {
            if (value.find("distributed") != std::string::npos)
                offer("use_distributed_optimizer", {"true"}, leaf);
            leaf.used = true;
        } else if (key == "num_nodes" || key == "devices") {
            leaf.used = true; // read by readWorld
        } else if (key == "fp8_hybrid" || key == "fp8_e4m3") {
            leaf.used = true; // the format of fp8: true, which is fp8 either way
        } else if (key == "num_query_groups") {
            // NeMo has no group-query switch: the number of groups says it all.
            offer("num_query_groups", leaf.values, leaf);
            offer("group_query_attention", {"true"}, leaf);
        } else if (const auto s = synonyms().find(key); s != synonyms().end()) {
            offer(s->second, leaf.values, leaf);
        } else if (knownSettingNames().count(key) && key != "world_size") {
            offer(key, leaf.values, leaf);
        }
    }

    void readPrecision(const std::string& value, Leaf& leaf)
    {
        if (value.find("bf16") != std::string::npos)
            offer("bf16", {"true"}, leaf);
        else if (value.find("16") != std::string::npos)
            offer("fp16", {"true"}, leaf);
        leaf.used = true;
    }

    // Megatron-Bridge's recipe names: "bf16_mixed", "bf16_with_fp8_delayed_scaling_mixed",
    // "bf16_with_nvfp4_mixed" ...
    void readRecipe(const std::string& value, Leaf& leaf)
    {
        if (value.find("fp4") != std::string::npos) {
            offer("fp4_format", {"e2m1"}, leaf);
        } else if (value.find("fp8") != std::string::npos) {
            offer("fp8_format", {"hybrid"}, leaf);
            // As Megatron-LM's --fp8-recipe names the scaling: "..._mxfp8_mixed", "..._fp8_
            // current_scaling_mixed", "..._fp8_delayed_scaling_mixed", "..._fp8_subchannel_...".
            for (const auto& [part, recipe] : {std::pair{"mxfp8", "mxfp8"},
                                               {"current_scaling", "tensorwise"},
                                               {"delayed", "delayed"},
                                               {"subchannel", "blockwise"},
                                               {"blockwise", "blockwise"}})
                if (value.find(part) != std::string::npos) {
                    offer("fp8_recipe", {recipe}, leaf);
                    break;
                }
        }
        readPrecision(value, leaf);
    }

    const Leaf* findLeaf(const std::string& key) const
    {
        const Leaf* best = nullptr;
        for (const Leaf& leaf : m_leaves) {
            if (leaf.key() == key && (!best || (leaf.under("trainer") && !best->under("trainer"))))
                best = &leaf;
        }
        return best;
    }

    // trainer.num_nodes x trainer.devices (a count, or a list of device ids).
    void readWorld()
    {
        const Leaf* nodes = findLeaf("num_nodes");
        const Leaf* devices = findLeaf("devices");
        auto count = [](const Leaf* leaf) -> std::optional<int64_t> {
            if (!leaf || leaf->values.empty())
                return std::nullopt;
            if (leaf->values.size() > 1)
                return int64_t(leaf->values.size());
            const std::string& v = leaf->values.front();
            if (v.empty() || v.size() > 9 ||
                !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
                return std::nullopt;
            return std::stoll(v) > 0 ? std::optional<int64_t>(std::stoll(v)) : std::nullopt;
        };
        const auto n = count(nodes);
        const auto d = count(devices);
        if (n && d) {
            m_settings["world_size"] = {{std::to_string(*n * *d)}, nodes->place};
            m_world = withThousands(*n * *d) + " GPUs: num_nodes " + std::to_string(*n) +
                      " x devices " + std::to_string(*d) + ".";
            return;
        }
        m_report.note(nodes     ? nodes->place
                      : devices ? devices->place
                                : m_root,
                      "no GPU count (trainer.num_nodes x trainer.devices): dp is left to the "
                      "cluster");
    }

public:
    const std::string& worldSentence() const { return m_world; }

private:
    std::vector<Leaf>& m_leaves;
    SourcePlace m_root;
    ImportReport& m_report;
    TrainingSettings m_settings;
    std::map<std::string, int> m_rank;
    std::string m_world;
};

// The class a section's _target_ names, for a message about keys the file leaves to it.
std::string targetOf(const ConfigNode& root, const std::string& section)
{
    for (const auto& [key, value] : root.entries) {
        if (key != section || value.kind != ConfigNode::Kind::Mapping)
            continue;
        for (const auto& [k, v] : value.entries) {
            if (k == "_target_" && v.kind == ConfigNode::Kind::Scalar)
                return v.scalar;
            if (k == "config" && v.kind == ConfigNode::Kind::Mapping) {
                for (const auto& [ck, cv] : v.entries)
                    if (ck == "_target_" && cv.kind == ConfigNode::Kind::Scalar)
                        return cv.scalar;
            }
        }
    }
    return "";
}

SourcePlace sectionPlace(const ConfigNode& root, const std::string& section)
{
    for (const auto& [key, value] : root.entries) {
        if (key == section)
            return value.place;
    }
    return root.place;
}

} // namespace

std::optional<json> importNemo(const SourceText& config, ImportReport& report)
{
    const size_t first = config.text.find_first_not_of(" \t\r\n");
    const bool isJson = first != std::string::npos && config.text[first] == '{';
    const std::optional<ConfigNode> root =
        isJson ? parseJsonConfig(config, report) : parseYamlSubset(config, report);
    if (!root)
        return std::nullopt;
    if (root->kind != ConfigNode::Kind::Mapping) {
        report.error(root->place, "a config is a mapping of sections (trainer:, model: ...)");
        return std::nullopt;
    }
    std::vector<Leaf> leaves;
    std::vector<std::string> path;
    collect(*root, path, root->place, leaves);
    NemoSettings nemo(leaves, root->place, report);
    const TrainingSettings settings = nemo.read();
    const std::string file = config.file.substr(config.file.find_last_of('/') + 1);
    const SourcePlace model = sectionPlace(*root, "model");
    const SettingsOrigin origin{"NeMo config " + file, "the NeMo config's model section", model,
                                nemoSpelling, ""};
    std::optional<json> run = runFromSettings(settings, origin, report);
    nemo.noteUnused();
    if (const std::string target = targetOf(*root, "model"); !run && !target.empty())
        report.note(model, "the model is " + printable(target) +
                               ": the defaults of a class are not known here, so its fields must "
                               "be in the file");
    if (run && !nemo.worldSentence().empty())
        appendNote(*run, nemo.worldSentence());
    return run;
}

} // namespace cs
