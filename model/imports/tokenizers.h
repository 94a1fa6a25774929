#pragma once
// The tokenizers whose vocabulary is known without reading their files: what a Megatron-LM
// launch or a NeMo config names (a tokenizer type, a Hugging Face model, a vocabulary file) to
// the number of tokens Megatron pads from. One table for every importer.

#include <cstdint>
#include <optional>
#include <string>

namespace cs {

// What a launch or a config says of its tokenizer, under Megatron-LM's argument names.
struct TokenizerNames {
    std::string type;      // --tokenizer-type; empty when not given
    std::string model;     // --tokenizer-model: a Hugging Face name or a file's path
    std::string vocabFile; // --vocab-file
    std::string mergeFile; // --merge-file
    std::string script;    // the training script run ("pretrain_gpt.py"), whose default applies
};

// A tokenizer's own size (before Megatron pads it) and what told it, for the import's notes:
// "the GPT-2 BPE tokenizer (gpt2-vocab.json)".
struct KnownVocabulary {
    int64_t tokens = 0;
    std::string source;
};

// The vocabulary of a standard tokenizer the names identify; nothing when they do not.
std::optional<KnownVocabulary> knownVocabulary(const TokenizerNames& names);

// The tokenizer type a Megatron-LM training script uses when --tokenizer-type is not given
// (its args_defaults); empty for a script that has none.
std::string defaultTokenizerType(const std::string& script);

} // namespace cs
