#include "attentionsettings.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "layerpattern.h"

namespace cs {

using nlohmann::json;

namespace {

constexpr int kDefaultKvLoraRank = 32; // --kv-lora-rank
constexpr int kDefaultQkHeadDim = 128; // --qk-head-dim
constexpr int kDefaultQkRopeDim = 64;  // --qk-pos-emb-head-dim
constexpr int kDefaultVHeadDim = 128;  // --v-head-dim

enum class Windowed { All, Alternate, None, Other };

// Megatron-Core's window_attn_skip_freq: an integer N windows layer n (from 1) unless N divides
// n (2 alternates, windowed first: gpt-oss; 1 windows none); a list gives each layer, 1 for a
// window ("[1,1,1,0]", or a config's sequence).
Windowed windowedLayers(const std::vector<std::string>& words)
{
    if (words.size() == 1 && words[0].find('[') == std::string::npos)
        return words[0] == "2"   ? Windowed::Alternate
               : words[0] == "1" ? Windowed::None
                                 : Windowed::Other;
    std::string text; // a config's sequence, as the list it is
    for (const std::string& w : words)
        text += (text.empty() ? "" : ",") + w;
    const auto layers = evaluateLayerPattern(words.size() == 1 ? text : "[" + text + "]");
    if (!layers || layers->empty())
        return Windowed::Other;
    const auto all = [&](auto test) { return std::all_of(layers->begin(), layers->end(), test); };
    if (all([](int v) { return v == 1; }))
        return Windowed::All;
    if (all([](int v) { return v == 0; }))
        return Windowed::None;
    for (size_t i = 0; i < layers->size(); ++i)
        if ((*layers)[i] != (i % 2 == 0 ? 1 : 0))
            return Windowed::Other;
    return Windowed::Alternate;
}

} // namespace

std::optional<json> attention(SettingsReader& r)
{
    if (r.flag("multi_latent_attention")) {
        json a = {{"kind", "mla"}};
        if (const auto q = r.integer("q_lora_rank", "query low-rank"))
            a["q_lora_rank"] = *q;
        a["kv_lora_rank"] = r.integer("kv_lora_rank", "KV low-rank").value_or(kDefaultKvLoraRank);
        a["qk_nope_head_dim"] = r.integer("qk_head_dim", "QK head dim").value_or(kDefaultQkHeadDim);
        a["qk_rope_head_dim"] =
            r.integer("qk_pos_emb_head_dim", "QK rotary head dim").value_or(kDefaultQkRopeDim);
        a["v_head_dim"] = r.integer("v_head_dim", "V head dim").value_or(kDefaultVHeadDim);
        return a;
    }
    const auto window = r.word("window_size");
    if (!window)
        return std::nullopt;
    // "(4096,0)" or "4096": tokens to the left of each token.
    std::string digits;
    for (char c : *window) {
        if (std::isdigit(static_cast<unsigned char>(c)))
            digits += c;
        else if (!digits.empty())
            break;
    }
    if (digits.empty() || digits.size() > 9) {
        r.error(r.placeOf("window_size"),
                r.spell("window_size") + " = " + cs::inQuotes(*window) + " names no window size");
        return std::nullopt;
    }
    json a = {{"kind", "sliding_window"}, {"window", std::stoi(digits)}, {"every", 1}};
    if (!r.find("window_attn_skip_freq"))
        return a;
    switch (windowedLayers(r.words("window_attn_skip_freq"))) {
    case Windowed::All:
        break;
    case Windowed::Alternate:
        a["every"] = 2;
        break;
    case Windowed::None:
        r.assume(r.placeOf("window_attn_skip_freq"),
                 "every layer has full attention (" + r.spell("window_attn_skip_freq") + ")");
        return std::nullopt;
    case Windowed::Other:
        r.assume(r.placeOf("window_attn_skip_freq"),
                 "layers with full attention between windowed ones are not kept (the format "
                 "holds one windowed layer in every two, or all): every layer taken as windowed");
        break;
    }
    return a;
}

} // namespace cs
