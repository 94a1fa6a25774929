// NeMo and Megatron-Bridge configs: the YAML subset they are written in, and the runs they hold.

#include <catch2/catch.hpp>

#include "configtree.h"
#include "costmodel.h"
#include "extensions.h"
#include "importdata.h"
#include "loader.h"
#include "nemo.h"
#include "samplefiles.h"

using namespace cs;
using nlohmann::json;

namespace {

std::optional<ConfigNode> yaml(const std::string& text, ImportReport& report)
{
    return parseYamlSubset({"c.yaml", text}, report);
}

const ConfigNode& at(const ConfigNode& mapping, const std::string& key)
{
    for (const auto& [k, v] : mapping.entries) {
        if (k == key)
            return v;
    }
    FAIL("no key " << key);
    return mapping;
}

std::string refusal(const std::string& text)
{
    ImportReport report;
    CHECK_FALSE(yaml(text, report));
    REQUIRE(report.errors.size() == 1);
    return report.errors.items().front().format();
}

} // namespace

TEST_CASE("the YAML subset: mappings, sequences, scalars, quotes, comments, flow sequences",
          "[imports][yaml]")
{
    ImportReport report;
    const auto root = yaml("---\n"
                           "# a comment\n"
                           "model:\n"
                           "  name: 'it''s'   # trailing comment\n"
                           "  path: \"a # b\\tc\\u00e9\"\n"
                           "  layers: 126\n"
                           "  empty:\n"
                           "  modules: [core_attn, \"mlp\", [1, 2]]\n"
                           "  url: http://host:80/x\n"
                           "callbacks:\n"
                           "- _target_: gc\n"
                           "  interval: 100\n"
                           "- plain\n"
                           "- - nested\n"
                           "  - items\n"
                           "mapping: {}\n",
                           report);
    INFO(report.errors.formatAll());
    REQUIRE(root);
    const ConfigNode& model = at(*root, "model");
    CHECK(at(model, "name").scalar == "it's");
    CHECK(at(model, "name").quoted);
    CHECK(at(model, "path").scalar == "a # b\tc\xc3\xa9");
    CHECK(at(model, "layers").scalar == "126");
    CHECK(at(model, "layers").place.line == 6);
    CHECK(at(model, "layers").place.column == 3);
    CHECK(at(model, "empty").scalar == "null");
    const ConfigNode& modules = at(model, "modules");
    REQUIRE(modules.items.size() == 3);
    CHECK(modules.items[1].scalar == "mlp");
    CHECK(modules.items[2].items.size() == 2);
    CHECK(at(model, "url").scalar == "http://host:80/x");
    const ConfigNode& callbacks = at(*root, "callbacks");
    REQUIRE(callbacks.items.size() == 3);
    CHECK(at(callbacks.items[0], "interval").scalar == "100");
    CHECK(callbacks.items[1].scalar == "plain");
    CHECK(callbacks.items[2].items.size() == 2);
    CHECK(at(*root, "mapping").kind == ConfigNode::Kind::Mapping);
}

TEST_CASE("YAML this reader does not take is refused with its line", "[imports][yaml]")
{
    CHECK(refusal("a: 1\n\tb: 2\n") == "c.yaml:2:1: a tab in the indentation: YAML indents with "
                                       "spaces");
    CHECK(refusal("a: &x 1\n").find("c.yaml:1:4: an anchor") == 0);
    CHECK(refusal("a: *x\n").find("c.yaml:1:4: an alias") == 0);
    CHECK(refusal("a: !!int 1\n").find("c.yaml:1:4: a tag") == 0);
    CHECK(refusal("a: |\n  text\n").find("c.yaml:1:4: a block scalar") == 0);
    CHECK(refusal("a: {b: 1}\n").find("c.yaml:1:4: a flow mapping") == 0);
    CHECK(refusal("a: [1, 2\n").find("c.yaml:1:") == 0);
    CHECK(refusal("a: \"open\n").find("must close on its line") != std::string::npos);
    CHECK(refusal("a: 1\na: 2\n").find("c.yaml:2:1: duplicate key \"a\"") == 0);
    CHECK(refusal("a: one\n  two\n").find("c.yaml:2:3: a value running over several lines") == 0);
    CHECK(refusal("a:\n  b: 1\n c: 2\n").find("c.yaml:3:") == 0);
    CHECK(refusal("a: 1\n---\nb: 2\n").find("c.yaml:2:1: a second document") == 0);
    CHECK(refusal("just text\n").find("c.yaml:1:1: expected \"key: value\"") == 0);
    CHECK(refusal("a: b: c\n").find("quote the value") != std::string::npos);
}

TEST_CASE("a NeMo 2 recipe gives the Fairwater sample's run", "[imports][nemo]")
{
    ImportReport report;
    const auto run = importNemo(importSource("llama31-405b-nemo2.yaml"), report);
    INFO(report.errors.formatAll());
    REQUIRE(run);
    const LoadedFile sample = loadSample("fairwater-gb200-128-llama405b.run.json");
    const RunDesc imported = loadedRun(*run);
    requireSameLayout(imported, *sample.run);
    CHECK(imported.trainingSteps == sample.run->trainingSteps);
    CHECK(evaluate(*sample.cluster, imported).stepTimeS ==
          Approx(evaluate(*sample.cluster, *sample.run).stepTimeS));
    // Keys nobody reads are noted by section, at the section's line.
    CHECK(hasLine(report.notes,
                  {"llama31-405b-nemo2.yaml:47:3:", "model.config:", "rotary_base", "ignored"}));
}

TEST_CASE("a NeMo 1 JSON config gives the ND H100 v5 sample's run", "[imports][nemo]")
{
    ImportReport report;
    const auto run = importNemo(importSource("gpt3-175b-nemo1.json"), report);
    INFO(report.errors.formatAll());
    REQUIRE(run);
    requireSameLayout(loadedRun(*run), *loadSample("ndv5-h100-1344-gpt3-175b.run.json").run);
    CHECK(hasLine(report.notes, {"gpt3-175b-nemo1.json: /model/optim:", "lr", "ignored"}));
}

TEST_CASE("a Megatron-Bridge config's MoE, MLA and checkpoint settings reach the run",
          "[imports][nemo]")
{
    ImportReport report;
    const auto run = importNemo(importSource("deepseek-v3-bridge.yaml"), report);
    INFO(report.errors.formatAll());
    REQUIRE(run);
    const json& r = *run;
    CHECK(r["model"]["moe"]["experts"] == 256);
    CHECK(r["model"]["moe"]["top_k"] == 8);
    CHECK(r["model"]["moe"]["dense_layers"] == 3);
    CHECK(r["model"]["moe"]["shared_ffn_hidden"] == 2048);
    CHECK_FALSE(r["model"]["moe"].contains("capacity_factor")); // null: dropless
    CHECK(r["x-moe_router_num_groups"] == 8); // node-limited routing: 4 of 8 groups
    CHECK(r["x-moe_router_group_topk"] == 4);
    CHECK(r["x-moe_flex_dispatcher"] == false); // moe_token_dispatcher_type: alltoall
    CHECK(r["model"]["attention"]["kind"] == "mla");
    CHECK(r["model"]["attention"]["q_lora_rank"] == 1536);
    CHECK(r["model"]["mtp_layers"] == 1);
    CHECK(r["model"]["vocab"] == 129280);
    CHECK(r["parallelism"]["ep"] == 64);
    CHECK(r["parallelism"]["etp"] == 1);
    CHECK(r["parallelism"]["vp"] == 1);
    CHECK(r["parallelism"]["recompute"] == json::array({"mla_up_proj", "moe_act", "layernorm"}));
    CHECK(r["precision"] == "fp8");
    CHECK(r["checkpoint"] == json{{"interval_steps", 1000}, {"async", true}});
    CHECK(r["training"]["steps"] == 500000);
    CHECK(hasLine(report.notes, {"deepseek-v3-bridge.yaml", "no GPU count"}));
}

TEST_CASE("a config's offloading count is kept unless its offloading is off", "[imports][nemo]")
{
    const std::string model = "model:\n"
                              "  num_layers: 8\n  hidden_size: 1024\n  num_attention_heads: 16\n"
                              "  seq_length: 2048\n  micro_batch_size: 1\n"
                              "  global_batch_size: 64\n  vocab_size: 32000\n"
                              "  cpu_offloading_num_layers: 5\n";
    ImportReport on;
    const auto offloading = importNemo({"on.yaml", model + "  cpu_offloading: true\n"}, on);
    INFO(on.errors.formatAll());
    REQUIRE(offloading);
    CHECK((*offloading)[kActivationOffloadKey] == 5);

    ImportReport off;
    const auto kept = importNemo({"off.yaml", model + "  cpu_offloading: false\n"}, off);
    REQUIRE(kept);
    CHECK_FALSE(kept->contains(kActivationOffloadKey));
    CHECK(hasLine(off.notes, {"off.yaml:9:", "offloading turned off", "no activations offloaded"}));
}

TEST_CASE("a config missing a required key is refused with the key and the model section",
          "[imports][nemo]")
{
    ImportReport report;
    const auto run = importNemo({"short.yaml", "trainer:\n"
                                               "  num_nodes: 2\n"
                                               "  devices: 8\n"
                                               "model:\n"
                                               "  _target_: nemo.collections.llm.LlamaModel\n"
                                               "  num_layers: 32\n"
                                               "  num_attention_heads: 32\n"
                                               "  seq_length: 4096\n"
                                               "  micro_batch_size: 1\n"
                                               "  global_batch_size: 256\n"
                                               "  vocab_size: 128256\n"},
                                report);
    CHECK_FALSE(run);
    CHECK(report.errors.size() == 1);
    CHECK(hasLine(report.errors, {"short.yaml:4:1:", "hidden_size is missing"}));
    CHECK(hasLine(report.notes, {"short.yaml:4:1:", "nemo.collections.llm.LlamaModel"}));
}
