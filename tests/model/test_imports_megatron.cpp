// Megatron-LM launch scripts and logs: the record samples' layouts come back from scripts written
// the way their runs would be launched, and every flag is read, defaulted or noted as Megatron
// reads it.

#include <catch2/catch.hpp>

#include "calibration.h"
#include "costmodel.h"
#include "extensions.h"
#include "importdata.h"
#include "loader.h"
#include "megatron.h"
#include "samplefiles.h"
#include "steptimes.h"

using namespace cs;
using nlohmann::json;

namespace {

Imported importText(const std::string& script, const std::string& log = "")
{
    Imported i;
    const SourceText logText{"train.log", log};
    i.run = importMegatron({{"launch.sh", script}}, log.empty() ? nullptr : &logText, i.report);
    return i;
}

Imported importFiles(const std::string& script, const std::string& log)
{
    Imported i;
    const SourceText logText = importSource(log);
    i.run = importMegatron({importSource(script)}, &logText, i.report);
    INFO(i.report.errors.formatAll());
    REQUIRE(i.run);
    return i;
}

const std::string kMinimal = "torchrun --nproc-per-node 8 pretrain_gpt.py \\\n"
                             "  --num-layers 4 --hidden-size 1024 --num-attention-heads 16 \\\n"
                             "  --seq-length 2048 --micro-batch-size 2 --global-batch-size 64 \\\n"
                             "  --vocab-size 32000 --make-vocab-size-divisible-by 1 --bf16 \\\n";

} // namespace

TEST_CASE("the GPT-3 175B launch script and log give the ND H100 v5 sample's run and step",
          "[imports][megatron]")
{
    const Imported i = importFiles("gpt3-175b-ndv5.sbatch", "gpt3-175b-ndv5.log");
    const LoadedFile sample = loadSample("ndv5-h100-1344-gpt3-175b.run.json");
    const RunDesc run = loadedRun(*i.run);
    requireSameLayout(run, *sample.run);
    CHECK((*i.run)["notes"].get<std::string>().find("10,752 GPUs: --nodes 1344 x "
                                                    "--ntasks-per-node 8") != std::string::npos);
    // The log's median after its ten warm-up iterations.
    REQUIRE(run.measured);
    CHECK(run.measured->stepTimeS == Approx(0.945).epsilon(1e-9));
    CHECK((*i.run)[kMeasuredStepTimesKey].size() == 31);
    CHECK(evaluate(*sample.cluster, run).stepTimeS ==
          Approx(evaluate(*sample.cluster, *sample.run).stepTimeS).epsilon(1e-12));
}

TEST_CASE("the Llama 3.1 405B launch script and log give the Fairwater sample's run and step",
          "[imports][megatron]")
{
    const Imported i = importFiles("llama31-405b-fairwater.sh", "llama31-405b-fairwater.log");
    const LoadedFile sample = loadSample("fairwater-gb200-128-llama405b.run.json");
    const RunDesc run = loadedRun(*i.run);
    requireSameLayout(run, *sample.run);
    CHECK(run.trainingSteps == sample.run->trainingSteps);
    REQUIRE(run.measured);
    CHECK(run.measured->stepTimeS == Approx(1.2712).epsilon(1e-9));
    const double predicted = evaluate(*sample.cluster, run).stepTimeS;
    CHECK(predicted == Approx(evaluate(*sample.cluster, *sample.run).stepTimeS));
    // The flags came from arrays and a "bash -c" string: each names the line that wrote it.
    CHECK(hasLine(i.report.notes, {"llama31-405b-fairwater.sh:31:5:", "--rotary-base ignored"}));
}

TEST_CASE("a missing required flag is refused with its name and where the command starts",
          "[imports][megatron]")
{
    const Imported i = importText("# header\n"
                                  "GPUS=8\n"
                                  "torchrun --nproc_per_node $GPUS pretrain_gpt.py \\\n"
                                  "  --num-layers 4 --num-attention-heads 16 \\\n"
                                  "  --seq-length 2048 --micro-batch-size 1 --vocab-size 1000\n");
    CHECK_FALSE(i.run);
    CHECK(hasLine(i.report.errors, {"launch.sh:3:1:", "--hidden-size is missing"}));
    // The global batch may be left out: Megatron takes micro-batch x dp.
    CHECK(i.report.errors.size() == 1);
}

TEST_CASE("unknown flags are ignored, each with a note at its place", "[imports][megatron]")
{
    const Imported i = importText(kMinimal + "  --lr 3e-4 --weight-decay=0.1 --no-such-flag\n");
    REQUIRE(i.run);
    CHECK(hasLine(i.report.notes, {"launch.sh:5:3:", "--lr ignored"}));
    CHECK(hasLine(i.report.notes, {"launch.sh:5:13:", "--weight-decay ignored"}));
    CHECK(hasLine(i.report.notes, {"--no-such-flag ignored"}));
    CHECK_FALSE(hasLine(i.report.notes, {"--num-layers ignored"}));
}

TEST_CASE("Megatron's defaults: world size, dp, FFN width, GQA, rank order", "[imports][megatron]")
{
    const Imported i = importText(kMinimal + "  --swiglu --num-query-groups 4\n");
    REQUIRE(i.run);
    const json& run = *i.run;
    CHECK(run["parallelism"]["dp"] == 8);      // torchrun's one node of 8 processes
    CHECK(run["model"]["ffn_hidden"] == 2688); // 8/3 x 1024 rounded down to a multiple of 64
    CHECK(run["model"]["gated_mlp"] == true);
    // Query groups count only with --group-query-attention.
    CHECK(run["model"]["kv_heads"] == 16);
    CHECK(hasLine(i.report.notes, {"query groups without group-query attention"}));
    CHECK(run["placement"] == json::array({"tp", "cp", "dp", "pp"}));
    CHECK(run["model"]["vocab"] == 32000);
    CHECK(run["precision"] == "bf16");
}

TEST_CASE("the tokenizer's vocabulary, padded as Megatron pads it", "[imports][megatron]")
{
    auto vocab = [](const std::string& flags) {
        const Imported i = importText(
            "python pretrain_gpt.py --num-layers 2 --hidden-size 256 --num-attention-heads 8 "
            "--seq-length 128 --micro-batch-size 1 --global-batch-size 8 " +
            flags + "\n");
        INFO(i.report.errors.formatAll());
        REQUIRE(i.run);
        return (*i.run)["model"]["vocab"].get<int>();
    };
    CHECK(vocab("--tokenizer-type GPT2BPETokenizer") == 50304); // 128 x tp 1
    CHECK(vocab("--tokenizer-type GPT2BPETokenizer --tensor-model-parallel-size 8") == 51200);
    CHECK(vocab("--tokenizer-type HuggingFaceTokenizer --tokenizer-model "
                "meta-llama/Meta-Llama-3.1-8B") == 128256);
    CHECK(vocab("--tokenizer-type NullTokenizer --vocab-size 128256") == 128256); // EOD within
    CHECK(vocab("--padded-vocab-size 32000 --tensor-model-parallel-size 8") == 32000);
    CHECK(vocab("--vocab-size 1000 --no-pad-vocab-size") == 1000);
    const Imported unknown =
        importText("python pretrain_gpt.py --num-layers 2 --hidden-size 256 "
                   "--num-attention-heads 8 --seq-length 128 --micro-batch-size 1 "
                   "--global-batch-size 8 --tokenizer-type SentencePieceTokenizer\n");
    CHECK_FALSE(unknown.run);
    CHECK(hasLine(unknown.report.errors, {"--tokenizer-type \"SentencePieceTokenizer\"",
                                          "vocabulary size", "is unknown", "--vocab-size"}));
}

TEST_CASE("virtual stages from layers per stage, as Megatron divides them", "[imports][megatron]")
{
    const Imported ok = importText(kMinimal + "  --pipeline-model-parallel-size 2 "
                                              "--num-layers-per-virtual-pipeline-stage 1\n");
    REQUIRE(ok.run);
    CHECK((*ok.run)["parallelism"]["vp"] == 2);
    const Imported bad = importText(kMinimal + "  --pipeline-model-parallel-size 2 "
                                               "--num-layers-per-virtual-pipeline-stage 3\n");
    CHECK_FALSE(bad.run);
    CHECK(hasLine(bad.report.errors,
                  {"launch.sh:5:36:", "--num-layers-per-virtual-pipeline-stage = 3"}));
}

TEST_CASE("MoE, MLA, multi-token prediction, recompute modules and FSDP reach the run",
          "[imports][megatron]")
{
    const Imported i = importText(
        "NNODES=4\nGPUS_PER_NODE=8\n"
        "python pretrain_gpt.py --num-layers 8 --hidden-size 2048 --ffn-hidden-size 8192 "
        "--num-attention-heads 16 --seq-length 4096 --micro-batch-size 1 --global-batch-size 64 "
        "--padded-vocab-size 102400 --num-experts 64 --moe-router-topk 6 "
        "--moe-ffn-hidden-size 1408 --moe-shared-expert-intermediate-size 2816 "
        "--moe-layer-freq '([0]*1+[1]*7)' --expert-model-parallel-size 8 "
        "--expert-tensor-parallel-size 1 --tensor-model-parallel-size 2 "
        "--multi-latent-attention --kv-lora-rank 512 --mtp-num-layers 1 "
        "--recompute-granularity selective --recompute-modules core_attn moe_act "
        "--use-megatron-fsdp --fp8-format e4m3 --save-interval 500 --async-save\n");
    INFO(i.report.errors.formatAll());
    REQUIRE(i.run);
    const json& run = *i.run;
    CHECK(run["parallelism"]["dp"] == 16); // NNODES x GPUS_PER_NODE / tp
    CHECK(run["model"]["moe"] == json{{"experts", 64},
                                      {"top_k", 6},
                                      {"ffn_hidden", 1408},
                                      {"shared_experts", 1},
                                      {"shared_ffn_hidden", 2816},
                                      {"dense_layers", 1},
                                      {"dense_ffn_hidden", 8192}});
    CHECK(run["parallelism"]["ep"] == 8);
    CHECK(run["parallelism"]["etp"] == 1);
    CHECK(run["parallelism"]["fsdp"] == true);
    CHECK(run["parallelism"]["recompute"] == json::array({"core_attn", "moe_act"}));
    CHECK(run["model"]["attention"]["kind"] == "mla");
    CHECK(run["model"]["attention"]["kv_lora_rank"] == 512);
    CHECK(run["model"]["attention"]["qk_rope_head_dim"] == 64);
    CHECK(run["model"]["mtp_layers"] == 1);
    CHECK(run["precision"] == "fp8");
    CHECK(run["checkpoint"] == json{{"interval_steps", 500}, {"async", true}});
}

TEST_CASE("activations offloaded to the host reach the run, as the cost model reads them",
          "[imports][megatron]")
{
    const Imported i = importText(kMinimal + "  --cpu-offloading --cpu-offloading-num-layers 3\n");
    INFO(i.report.errors.formatAll());
    REQUIRE(i.run);
    CHECK((*i.run)[kActivationOffloadKey] == 3);
    Diagnostics diags;
    const auto run = runFromJson(*i.run, "launch.sh", "", diags);
    REQUIRE(run);
    CHECK(activationOffloadLayersOf(*run) == 3);

    const Imported none = importText(kMinimal + "  --cpu-offloading-num-layers 0\n");
    REQUIRE(none.run);
    CHECK_FALSE(none.run->contains(kActivationOffloadKey));
}

TEST_CASE("a command line alone, in --flag=value form", "[imports][megatron]")
{
    const Imported i = importText("--num-layers=4 --hidden-size=512 --num-attention-heads=8\n"
                                  "--seq-length=1024 --micro-batch-size=1 --global-batch-size=32\n"
                                  "--vocab-size=50000 --recompute-activations --fp4-format=e2m1\n");
    INFO(i.report.errors.formatAll());
    REQUIRE(i.run);
    CHECK((*i.run)["parallelism"]["recompute"] == "selective");
    CHECK((*i.run)["precision"] == "nvfp4");
    CHECK_FALSE((*i.run)["parallelism"].contains("dp"));
    CHECK(hasLine(i.report.notes, {"no GPU count found", "dp is left to the cluster"}));
}

TEST_CASE("a flag whose value the script cannot know is refused with the place",
          "[imports][megatron]")
{
    const Imported i = importText(kMinimal + "  --tensor-model-parallel-size $TP_SIZE\n");
    CHECK_FALSE(i.run);
    CHECK(hasLine(i.report.errors, {"launch.sh:5:3:", "--tensor-model-parallel-size",
                                    "\"$TP_SIZE\" is not a whole number"}));
}

TEST_CASE("log times: the median after the warm-up, whatever the log interval",
          "[imports][megatron]")
{
    auto line = [](int iteration, double ms) {
        return " [2025-01-01 00:00:00] iteration " + std::to_string(iteration) +
               "/ 1000 | consumed samples: 1 | elapsed time per iteration (ms): " +
               std::to_string(ms) + " | lm loss: 1.0\n";
    };
    std::string every100;
    for (int it = 100; it <= 500; it += 100)
        every100 += line(it, it == 100 ? 5000 : 1000 + it / 100);
    const SourceText log{"every100.log", every100};
    ImportReport report;
    const auto times = readMegatronLog(log, report);
    REQUIRE(times);
    CHECK(times->warmupEntries == 1); // iterations 1-100 hold the warm-up
    CHECK(times->warmupIterations == 100);
    CHECK(median(times->measuredS()) == Approx(1.0035));

    std::string resumed; // a run resumed at iteration 5000, logging every iteration
    for (int it = 5001; it <= 5030; ++it)
        resumed += line(it, it <= 5010 ? 9000 : 2000);
    const auto times2 = readMegatronLog({"resumed.log", resumed}, report);
    REQUIRE(times2);
    CHECK(times2->warmupEntries == 10);
    CHECK(median(times2->measuredS()) == Approx(2.0));

    CHECK_FALSE(readMegatronLog({"empty.log", "no times here\n"}, report));
    CHECK(hasLine(report.errors, {"empty.log", "not a Megatron training log"}));
}

TEST_CASE("an imported run that breaks formats.md's rules is refused, rule by rule",
          "[imports][megatron]")
{
    const Imported i = importText("\n--num-layers 4 --hidden-size 1024 --num-attention-heads 16 "
                                  "--seq-length 2048 --micro-batch-size 1 --global-batch-size 8 "
                                  "--padded-vocab-size 32000 --tensor-model-parallel-size 3 "
                                  "--pipeline-model-parallel-size 8\n");
    CHECK_FALSE(i.run);
    CHECK(hasLine(i.report.errors,
                  {"launch.sh:2:1:", "would not load", "/parallelism/tp: tp = 3 must divide"}));
    CHECK(hasLine(i.report.errors,
                  {"/model/layers: layers = 4 and the embedding and the loss, a stage each at "
                   "most, are fewer than pp x vp = 8 x 1 = 8"}));
}

TEST_CASE("a log of more iterations than a run file may hold values imports as a run that loads",
          "[imports][megatron]")
{
    // 1,100,000 iterations: more step times than the 1,048,576 JSON values of a run file. The
    // median is of them all; an even sample of kMaxKeptStepTimes is kept, with a note.
    const int iterations = 1100000;
    std::string log;
    log.reserve(size_t(iterations) * 64);
    for (int it = 1; it <= iterations; ++it)
        log += "iteration " + std::to_string(it) + "/ " + std::to_string(iterations) +
               " | elapsed time per iteration (ms): " + (it % 2 ? "1000.0" : "1002.0") + "\n";
    const Imported i = importText(kMinimal, log);
    INFO(i.report.errors.formatAll());
    REQUIRE(i.run);
    const json& times = (*i.run)[kMeasuredStepTimesKey];
    CHECK(times.size() == kMaxKeptStepTimes);
    CHECK(hasLine(i.report.notes, {"train.log:", "the median of all 1,099,990 step times",
                                   "100,000 of them, evenly spaced, are kept"}));
    CHECK((*i.run)["notes"].get<std::string>().find("100,000 of them, evenly spaced") !=
          std::string::npos);
    // Written and read back as a run file is.
    Diagnostics diags;
    const auto parsed = parseJson(i.run->dump(2), "imported.run.json", diags);
    INFO(diags.formatAll());
    REQUIRE(parsed);
    const RunDesc run = loadedRun(*parsed);
    REQUIRE(run.measured);
    CHECK(run.measured->stepTimeS == Approx(1.001));
    CHECK(run.measured->source.find("median of 1099990 logged iteration times") !=
          std::string::npos);
}

TEST_CASE("a launch script's wrong arithmetic or runaway expansion is refused as what it is",
          "[imports][megatron]")
{
    struct Case {
        std::string flag;
        std::string place;
        std::string says;
    };
    const std::vector<Case> cases{
        {"  --tensor-model-parallel-size $((8/0))\n",
         "launch.sh:5:32:", "\"$((8/0))\": division by zero"},
        {"  --tensor-model-parallel-size $((2**63))\n",
         "launch.sh:5:32:", "\"$((2**63))\": arithmetic overflow"},
    };
    for (const Case& c : cases) {
        INFO(c.flag);
        const Imported i = importText(kMinimal + c.flag);
        CHECK_FALSE(i.run);
        CHECK(hasLine(i.report.errors, {c.place, c.says}));
        CHECK_FALSE(hasLine(i.report.errors, {"does not set"}));
    }
    std::string doubling = "A=--bf16\n";
    for (int k = 0; k < 24; ++k)
        doubling += "A=\"$A $A\"\n";
    const Imported doubled = importText(doubling + kMinimal + "  $A\n");
    CHECK_FALSE(doubled.run);
    CHECK(hasLine(doubled.report.errors, {"launch.sh:15:", "a word expands to more than"}));
}

TEST_CASE("window_attn_skip_freq places the window as Megatron-Core does, or says what it keeps",
          "[imports][megatron]")
{
    // Megatron-Core windows layer n (from 1) unless the frequency divides n, or as a list says.
    const auto [skip, every, note] = GENERATE(table<std::string, int, std::string>({
        {"", 1, ""},
        {"2", 2, ""},           // gpt-oss: windowed, full, windowed ...
        {"'[1,0,1,0]'", 2, ""}, // the same as a list
        {"'[1,1,1,1]'", 1, ""}, // every layer windowed
        {"3", 1, "every layer taken as windowed"},
        {"'[1,1,1,0]'", 1, "every layer taken as windowed"},
        {"'([1]*3+[0])*2'", 1, "every layer taken as windowed"},
        {"'([1,0])*4'", 2, ""},
        {"1", 0, "every layer has full attention"},
        {"'[0,0]'", 0, "every layer has full attention"},
    }));
    INFO(skip);
    const Imported i = importText(kMinimal + "  --window-size 128,0" +
                                  (skip.empty() ? "" : " --window-attn-skip-freq " + skip) + "\n");
    INFO(i.report.errors.formatAll());
    REQUIRE(i.run);
    const json& model = (*i.run)["model"];
    if (every == 0) {
        CHECK_FALSE(model.contains("attention"));
    } else {
        CHECK(model["attention"]["kind"] == "sliding_window");
        CHECK(model["attention"]["every"] == every);
    }
    if (!note.empty())
        CHECK(hasLine(i.report.notes, {"launch.sh:5:", note}));
}
