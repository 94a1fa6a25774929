// Tokenizer sizes as Megatron reads them: len(tokenizer) for a Hugging Face tokenizer (its
// added special tokens included; megatron/core/tokenizers/text/libraries/
// huggingface_tokenizer.py), the file's size for the others. A released checkpoint's
// embedding (config.json vocab_size) may hold more rows than that; Megatron pads the tokenizer's
// own size.

#include "tokenizers.h"

#include <cctype>
#include <vector>

#include "text.h"

namespace cs {

namespace {

// A family of models and the name fragments that identify it. Every fragment of an entry must
// appear in a name, at a boundary: not after a letter or digit, not before a digit or a dot
// ("llama-3" is not "codellama-34b" nor "llama-3.5").
struct NamedTokenizer {
    std::vector<std::string> fragments;
    const char* family;
    int64_t tokens;
};

const std::vector<NamedTokenizer>& namedTokenizers()
{
    // The first entry that matches is taken: versions before the families they refine.
    static const std::vector<NamedTokenizer> table{
        // openai-community/gpt2 config.json vocab_size; Megatron's GPT2BPETokenizer loads gpt2's
        // gpt2-vocab.json and gpt2-merges.txt (megatron_hf_tokenizer.py).
        {{"gpt2"}, "the GPT-2 BPE tokenizer", 50257},
        // meta-llama/Llama-2-7b-hf config.json vocab_size.
        {{"llama-2"}, "Llama 2's tokenizer", 32000},
        {{"llama2"}, "Llama 2's tokenizer", 32000},
        // meta-llama/Meta-Llama-3-8B and Llama-3.1/3.2/3.3 config.json vocab_size: 128,000 BPE
        // tokens and 256 special ones (Megatron's examples/llama give --vocab-size 128256).
        {{"llama-3"}, "Llama 3's tokenizer", 128256},
        {{"llama3"}, "Llama 3's tokenizer", 128256},
        {{"llama-3.1"}, "Llama 3's tokenizer", 128256},
        {{"llama-3.2"}, "Llama 3's tokenizer", 128256},
        {{"llama-3.3"}, "Llama 3's tokenizer", 128256},
        {{"llama3.1"}, "Llama 3's tokenizer", 128256},
        // mistralai/Mistral-7B-v0.1, -v0.2 and Mixtral-8x7B config.json vocab_size 32000;
        // v0.3 and Mixtral-8x22B 32768 (Lightning-AI/litgpt PR #1845, AI-Hypercomputer/maxtext
        // PR #1012).
        {{"mistral-7b", "v0.1"}, "Mistral 7B v0.1's tokenizer", 32000},
        {{"mistral-7b", "v0.2"}, "Mistral 7B v0.2's tokenizer", 32000},
        {{"mistral-7b", "v0.3"}, "Mistral 7B v0.3's tokenizer", 32768},
        {{"mixtral-8x7b"}, "Mixtral 8x7B's tokenizer", 32000},
        {{"mixtral-8x22b"}, "Mixtral 8x22B's tokenizer", 32768},
        // Qwen: 151,643 BPE tokens and 3 control tokens in Qwen1.5 and Qwen2 (QwenLM/Qwen3
        // issue #885: len(tokenizer) 151646); Qwen2.5 adds 19 to id 151664 (torchtune
        // qwen2_5/_tokenizer.py; arcee-ai/mergekit issue #425: 151665); Qwen3 adds 4 more to id
        // 151668 (torchtune qwen3/_tokenizer.py). Their config.json vocab_size (151,936 or
        // 152,064) is the padded embedding.
        {{"qwen1.5"}, "Qwen1.5's tokenizer", 151646},
        {{"qwen2.5"}, "Qwen2.5's tokenizer", 151665},
        {{"qwen2"}, "Qwen2's tokenizer", 151646},
        {{"qwen3"}, "Qwen3's tokenizer", 151669},
        // DeepSeek-V3's tokenizer holds 128,815 tokens (pytorch/torchtitan PR #1495); its
        // checkpoint's 129,280 rows are what Megatron's examples/megatron_fsdp/
        // sbatch_mfsdp_deepseek_v3.sh pads it to with --make-vocab-size-divisible-by 3232.
        {{"deepseek-v3"}, "DeepSeek-V3's tokenizer", 128815},
        // gpt-oss's o200k_harmony: openai/gpt-oss-120b embed_tokens holds 201,088 rows, the
        // encoding's own count (openai/tiktoken).
        {{"gpt-oss"}, "gpt-oss's o200k_harmony tokenizer", 201088},
        {{"o200k-harmony"}, "the o200k_harmony tokenizer", 201088},
    };
    return table;
}

// Megatron-LM's tokenizer types whose size the type alone says.
struct TypedTokenizer {
    const char* type;
    const char* description;
    int64_t tokens;
};

const std::vector<TypedTokenizer>& typedTokenizers()
{
    static const std::vector<TypedTokenizer> table{
        {"GPT2BPETokenizer", "the GPT-2 BPE tokenizer", 50257},
        // Made for Llama 2's tokenizer.model.
        {"Llama2Tokenizer", "Llama 2's tokenizer", 32000},
        // bert-large-uncased's vocab.txt (config.json vocab_size).
        {"BertWordPieceLowerCase", "BERT's lower-case WordPiece tokenizer", 30522},
        // Without --vocab-size: DEFAULT_TIKTOKEN_MAX_VOCAB = 2**17 (tiktoken_tokenizer.py).
        {"TikTokenizer", "the TikTokenizer at Megatron's default size", 131072},
    };
    return table;
}

// Lower case, with '_' and blanks as '-': "Meta_Llama 3" and "meta-llama-3" are one name.
std::string normalised(const std::string& name)
{
    std::string n = lowerCase(name);
    for (char& c : n) {
        if (c == '_' || c == ' ')
            c = '-';
    }
    return n;
}

bool containsAtBoundary(const std::string& name, const std::string& fragment)
{
    for (size_t at = name.find(fragment); at != std::string::npos;
         at = name.find(fragment, at + 1)) {
        const size_t end = at + fragment.size();
        const bool startsWord = at == 0 || !std::isalnum(static_cast<unsigned char>(name[at - 1]));
        const bool endsWord =
            end == name.size() ||
            (!std::isdigit(static_cast<unsigned char>(name[end])) && name[end] != '.');
        if (startsWord && endsWord)
            return true;
    }
    return false;
}

bool matches(const std::string& name, const NamedTokenizer& entry)
{
    const std::string n = normalised(name);
    for (const std::string& fragment : entry.fragments) {
        if (!containsAtBoundary(n, fragment))
            return false;
    }
    return true;
}

std::string fileName(const std::string& path)
{
    return path.substr(path.find_last_of('/') + 1);
}

} // namespace

std::string defaultTokenizerType(const std::string& script)
{
    // The args_defaults of each script's parse_and_validate_args (Megatron-LM).
    const std::string name = fileName(script);
    for (const char* gpt : {"pretrain_gpt.py", "pretrain_hybrid.py", "pretrain_vlm.py"}) {
        if (name == gpt)
            return "GPT2BPETokenizer";
    }
    if (name == "pretrain_bert.py" || name == "pretrain_t5.py")
        return "BertWordPieceLowerCase";
    return "";
}

std::optional<KnownVocabulary> knownVocabulary(const TokenizerNames& names)
{
    const bool given = !names.type.empty();
    // What named it, as written (the report makes it printable): the type, then the model or file.
    const auto namedBy = [&](const std::string& name) {
        return !given || name == names.type ? name : names.type + ", " + name;
    };
    // A named model or file says more than the type: a SentencePiece or Hugging Face tokenizer
    // is whichever model's files it loads.
    for (const NamedTokenizer& entry : namedTokenizers()) {
        for (const std::string* name :
             {&names.model, &names.vocabFile, &names.mergeFile, &names.type}) {
            if (!name->empty() && matches(*name, entry))
                return KnownVocabulary{entry.tokens,
                                       std::string(entry.family) + " (" + namedBy(*name) + ")"};
        }
    }
    const std::string type = given ? names.type : defaultTokenizerType(names.script);
    for (const TypedTokenizer& entry : typedTokenizers()) {
        if (lowerCase(type) != lowerCase(entry.type))
            continue;
        const std::string why = given ? type : type + ", " + fileName(names.script) + "'s default";
        return KnownVocabulary{entry.tokens, std::string(entry.description) + " (" + why + ")"};
    }
    return std::nullopt;
}

} // namespace cs
