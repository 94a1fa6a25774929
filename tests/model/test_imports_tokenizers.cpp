// Tokenizers as launch scripts and configs name them: the vocabulary of a standard tokenizer is
// known from its type, model or files without a --vocab-size, padded as Megatron pads it and
// noted; a tokenizer that cannot be known is refused at the line that names it.

#include <catch2/catch.hpp>

#include "importdata.h"
#include "megatron.h"
#include "nemo.h"
#include "text.h"
#include "tokenizers.h"

using namespace cs;
using nlohmann::json;

namespace {

const std::string kModel = "--num-layers 2 --hidden-size 256 --num-attention-heads 8 "
                           "--seq-length 128 --micro-batch-size 1 --global-batch-size 8 ";

Imported importLaunch(const std::string& script, const std::string& flags)
{
    Imported i;
    i.run = importMegatron({{"launch.sh", "#!/bin/bash\ntorchrun --nproc-per-node 8 " + script +
                                              " \\\n  " + kModel + "\\\n  " + flags + "\n"}},
                           nullptr, i.report);
    return i;
}

} // namespace

TEST_CASE("a standard tokenizer's vocabulary without --vocab-size, padded as Megatron pads it",
          "[imports][tokenizers]")
{
    struct Case {
        std::string script;
        std::string flags;
        int64_t tokens;
        int64_t padded;
        std::string from; // in the note
    };
    const Case c = GENERATE(values<Case>({
        // Megatron's examples/gpt3/train_gpt3_175b_distributed.sh: the files, no type.
        {"pretrain_gpt.py", "--vocab-file /data/gpt2-vocab.json --merge-file /data/gpt2-merges.txt",
         50257, 50304, "the GPT-2 BPE tokenizer (/data/gpt2-vocab.json)"},
        // Files named otherwise: pretrain_gpt.py's default type.
        {"pretrain_gpt.py", "--vocab-file vocab.json --merge-file merges.txt", 50257, 50304,
         "GPT2BPETokenizer, pretrain_gpt.py's default"},
        {"pretrain_gpt.py", "--tokenizer-type GPT2BPETokenizer --tensor-model-parallel-size 8",
         50257, 51200, "GPT2BPETokenizer"},
        {"pretrain_gpt.py", "--tokenizer-type GPT2BPETokenizer --make-vocab-size-divisible-by 256",
         50257, 50432, "GPT2BPETokenizer"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Llama-3.1-8B", 128256,
         128256, "Llama 3's tokenizer (HuggingFaceTokenizer, meta-llama/Llama-3.1-8B)"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Meta-Llama-3-70B",
         128256, 128256, "Llama 3"},
        {"pretrain_gpt.py",
         "--tokenizer-type Llama2Tokenizer --tokenizer-model /models/Llama-2-7b/tokenizer.model",
         32000, 32000, "Llama 2"},
        {"pretrain_gpt.py", "--tokenizer-type Llama2Tokenizer --tokenizer-model tokenizer.model",
         32000, 32000, "Llama2Tokenizer"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model mistralai/Mistral-7B-v0.1", 32000,
         32000, "Mistral 7B v0.1"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model "
         "mistralai/Mistral-7B-Instruct-v0.3 --tensor-model-parallel-size 2",
         32768, 32768, "Mistral 7B v0.3"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model mistralai/Mixtral-8x7B-v0.1",
         32000, 32000, "Mixtral 8x7B"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model mistralai/Mixtral-8x22B-v0.1",
         32768, 32768, "Mixtral 8x22B"},
        {"pretrain_gpt.py", "--tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen2-7B",
         151646, 151680, "Qwen2's tokenizer"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen2.5-72B "
         "--tensor-model-parallel-size 8",
         151665, 152576, "Qwen2.5"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen3-235B-A22B", 151669,
         151680, "Qwen3"},
        // Megatron's examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh: padded to the
        // checkpoint's 129,280 rows.
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model deepseek-ai/DeepSeek-V3 "
         "--make-vocab-size-divisible-by 3232",
         128815, 129280, "DeepSeek-V3"},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model openai/gpt-oss-120b", 201088,
         201088, "o200k_harmony"},
        {"pretrain_gpt.py", "--tokenizer-type TikTokenizer --tokenizer-model tok.json", 131072,
         131072, "Megatron's default size"},
        // Megatron-Core 0.18 and later: the given size holds the end-of-document token.
        {"pretrain_gpt.py", "--tokenizer-type NullTokenizer --vocab-size 128256", 128256, 128256,
         "--vocab-size"},
        {"pretrain_gpt.py", "--vocab-size 1000", 1000, 1024, "--vocab-size"},
        {"pretrain_bert.py", "--vocab-file bert-large-uncased-vocab.txt", 30522, 30592,
         "pretrain_bert.py's default"},
    }));
    const Imported i = importLaunch(c.script, c.flags);
    INFO(c.flags << "\n" << i.report.errors.formatAll());
    REQUIRE(i.run);
    CHECK((*i.run)["model"]["vocab"] == c.padded);
    const std::string told = "vocabulary " + withThousands(c.tokens) + " from ";
    INFO(i.report.notes.formatAll());
    CHECK(hasLine(i.report.notes, {"launch.sh:", told, c.from}));
    if (c.padded != c.tokens)
        CHECK(hasLine(i.report.notes, {told, "padded to " + withThousands(c.padded)}));
    // The run's notes hold it as a sentence: "Vocabulary 50,257 from ...".
    CHECK((*i.run)["notes"].get<std::string>().find(told.substr(1)) != std::string::npos);
}

TEST_CASE("the vocabulary of a tokenizer that cannot be known is refused at its line",
          "[imports][tokenizers]")
{
    struct Case {
        std::string script;
        std::string flags;
        std::vector<std::string> said;
    };
    const Case c = GENERATE(values<Case>({
        {"pretrain_gpt.py",
         "--tokenizer-type SentencePieceTokenizer --tokenizer-model spm.model",
         {"launch.sh:4:", "--tokenizer-type \"SentencePieceTokenizer\"",
          "--tokenizer-model \"spm.model\"", "vocabulary size", "is unknown", "--vocab-size"}},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model /path/to/tokenizer.model",
         {"launch.sh:4:", "\"HuggingFaceTokenizer\"", "is unknown", "--padded-vocab-size"}},
        // Names near a known one but not it.
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model codellama/CodeLlama-34b-hf",
         {"launch.sh:4:", "CodeLlama-34b-hf", "is unknown"}},
        {"pretrain_gpt.py",
         "--tokenizer-type HuggingFaceTokenizer --tokenizer-model Qwen/Qwen3.5-397B-A17B",
         {"launch.sh:4:", "Qwen3.5", "is unknown"}},
        {"pretrain_gpt.py", "--tokenizer-type NullTokenizer", {"NullTokenizer", "is unknown"}},
        // A custom script has no default type, and no tokenizer is named.
        {"train.py", "", {"launch.sh:2:", "no tokenizer is named", "--vocab-size"}},
        // Reported beside another problem, not instead of it.
        {"train.py", "--micro-batch-size x", {"launch.sh:2:", "no tokenizer is named"}},
        {"pretrain_gpt.py",
         "--vocab-size many",
         {"launch.sh:4:", "\"many\" is not a whole number"}},
    }));
    const Imported i = importLaunch(c.script, c.flags);
    CHECK_FALSE(i.run);
    INFO(i.report.errors.formatAll());
    bool found = false;
    for (const Diagnostic& d : i.report.errors.items()) {
        bool all = true;
        for (const std::string& s : c.said)
            all = all && d.format().find(s) != std::string::npos;
        found = found || all;
    }
    CHECK(found);
}

TEST_CASE("the tokenizer table reads names as people write them", "[imports][tokenizers]")
{
    struct Case {
        TokenizerNames names;
        int64_t tokens; // 0: unknown
    };
    const Case c = GENERATE(values<Case>({
        {{"", "", "gpt2-vocab.json", "", ""}, 50257},
        {{"", "META_LLAMA_3_8B", "", "", ""}, 128256},
        {{"", "/ckpt/llama3.1-405b/original/tokenizer.model", "", "", ""}, 128256},
        {{"", "meta-llama/Llama-4-Scout-17B-16E", "", "", ""}, 0},
        {{"", "TinyLlama/TinyLlama-1.1B", "", "", ""}, 0},
        {{"", "deepseek-ai/DeepSeek-V3.2", "", "", ""}, 0},
        // NeMo 1 names a Hugging Face model by tokenizer.type.
        {{"meta-llama/Llama-2-70b-hf", "", "", "", ""}, 32000},
        {{"", "", "", "", "pretrain_gpt.py"}, 50257},
        {{"", "", "", "", "/opt/megatron/pretrain_t5.py"}, 30522},
        {{"", "", "", "", "finetune.py"}, 0},
    }));
    const auto known = knownVocabulary(c.names);
    CHECK(known.value_or(KnownVocabulary{}).tokens == c.tokens);
}

TEST_CASE("a NeMo config's tokenizer goes through the same table", "[imports][tokenizers][nemo]")
{
    const std::string config = R"({"trainer": {"num_nodes": 1, "devices": 8},
 "model": {"num_layers": 2, "hidden_size": 256, "num_attention_heads": 8,
  "encoder_seq_length": 128, "micro_batch_size": 1, "global_batch_size": 8,
  "tokenizer": {"library": "huggingface", "type": "meta-llama/Meta-Llama-3-8B"}}})";
    ImportReport report;
    const auto run = importNemo({"llama3.json", config}, report);
    INFO(report.errors.formatAll());
    REQUIRE(run);
    CHECK((*run)["model"]["vocab"] == 128256);
    CHECK(hasLine(report.notes, {"vocabulary 128,256 from Llama 3's tokenizer"}));
}
