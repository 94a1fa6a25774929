#include "writer.h"

#include <nlohmann/json.hpp>

#include "description.h"
#include "loader.h"

namespace cs {

using nlohmann::json;

namespace {

json gpuJson(const ClusterDesc& c)
{
    if (c.gpuByName)
        return c.gpu.name;
    return {{"name", c.gpu.name},
            {"peak_tflops",
             {{"bf16", c.gpu.peakTflopsBf16},
              {"fp8", c.gpu.peakTflopsFp8},
              {"nvfp4", c.gpu.peakTflopsNvfp4}}},
            {"hbm_gib", c.gpu.hbmGiB},
            {"hbm_TBps", c.gpu.hbmTBps},
            {"nvlink_GBps", c.gpu.nvlinkGBps}};
}

json topologyJson(const FabricTopology& t)
{
    const FabricTopology defaults;
    json j = {{"kind", toString(t.kind)}, {"tiers", t.tiers}};
    if (t.oversubscription.size() == 1)
        j["oversubscription"] = t.oversubscription.front();
    else
        j["oversubscription"] = t.oversubscription;
    if (t.switchRadix != defaults.switchRadix)
        j["switch_radix"] = t.switchRadix;
    if (t.nodesPerLeaf > 0)
        j["nodes_per_leaf"] = t.nodesPerLeaf;
    if (t.rails > 0)
        j["rails"] = t.rails;
    if (t.routing != defaults.routing)
        j["routing"] = toString(t.routing);
    return j;
}

json failuresJson(const Failures& f)
{
    json j = json::object();
    auto put = [&j](const char* key, const auto& values) {
        if (!values.empty())
            j[key] = values;
    };
    put("racks", f.racks);
    put("nodes", f.nodes);
    put("gpus", f.gpus);
    put("switches", f.switches);
    put("links", f.links);
    return j;
}

// A kind's own fields always; another kind's when given, so that a saved model loads back the same.
json attentionJson(const Attention& a)
{
    const Attention defaults;
    const bool mla = a.kind == AttentionKind::Mla;
    const bool window = a.kind == AttentionKind::SlidingWindow;
    json j = {{"kind", toString(a.kind)}};
    const auto put = [&](const char* key, int value, int fallback, bool own) {
        if (own || value != fallback)
            j[key] = value;
    };
    put("q_lora_rank", a.qLoraRank, defaults.qLoraRank, mla);
    put("kv_lora_rank", a.kvLoraRank, defaults.kvLoraRank, mla);
    put("qk_nope_head_dim", a.qkNopeHeadDim, defaults.qkNopeHeadDim, mla);
    put("qk_rope_head_dim", a.qkRopeHeadDim, defaults.qkRopeHeadDim, mla);
    put("v_head_dim", a.vHeadDim, defaults.vHeadDim, mla);
    put("window", a.window, defaults.window, window);
    put("every", a.every, defaults.every, window);
    return j;
}

// The widths of absent shared experts or dense layers are written when given, so that a saved
// description loads back the same.
json moeJson(const Moe& m, int modelFfnHidden)
{
    json j = {{"experts", m.experts},          {"top_k", m.topK},
              {"ffn_hidden", m.ffnHidden},     {"shared_experts", m.sharedExperts},
              {"dense_layers", m.denseLayers}, {"imbalance", m.imbalance}};
    if (m.sharedExperts > 0 || m.sharedFfnHidden != m.ffnHidden)
        j["shared_ffn_hidden"] = m.sharedFfnHidden;
    if (m.denseLayers > 0 || m.denseFfnHidden != modelFfnHidden)
        j["dense_ffn_hidden"] = m.denseFfnHidden;
    j["capacity_factor"] = m.capacityFactor ? json(*m.capacityFactor) : json(nullptr);
    return j;
}

json modelJson(const ModelShape& m)
{
    json j = {{"name", m.name},         {"layers", m.layers},
              {"hidden", m.hidden},     {"ffn_hidden", m.ffnHidden},
              {"heads", m.heads},       {"kv_heads", m.kvHeads},
              {"vocab", m.vocab},       {"seq_len", m.seqLen},
              {"gated_mlp", m.gatedMlp}};
    if (m.headDim > 0)
        j["head_dim"] = m.headDim;
    if (m.mtpLayers > 0)
        j["mtp_layers"] = m.mtpLayers;
    if (m.attention != Attention{})
        j["attention"] = attentionJson(m.attention);
    if (m.moe)
        j["moe"] = moeJson(*m.moe, m.ffnHidden);
    return j;
}

json recomputeJson(const Recompute& r)
{
    if (r.mode != RecomputeMode::Modules)
        return toString(r.mode);
    json modules = json::array();
    for (RecomputeModule m : enumValues<RecomputeModule>())
        if (r.recomputes(m))
            modules.push_back(toString(m));
    return modules;
}

json allocationJson(const Allocation& a)
{
    json ranges = json::array();
    for (const auto& [first, last] : a.ranges)
        ranges.push_back({first, last});
    return {{a.unit == Allocation::Unit::Racks ? "racks" : "nodes", ranges}};
}

json bookmarkJson(const Bookmark& b)
{
    json j = {{"title", b.title}, {"view", toJson(b.view)}};
    if (!b.notes.empty())
        j["notes"] = b.notes;
    return j;
}

} // namespace

json toJson(const Parallelism& p)
{
    json j = {{"tp", p.tp},
              {"cp", p.cp},
              {"pp", p.pp},
              {"vp", p.vp},
              {"sequence_parallel", p.sequenceParallel},
              {"distributed_optimizer", p.distributedOptimizer},
              {"recompute", recomputeJson(p.recompute)}};
    // Left out when derived, so that the run still fits a cluster of another size.
    if (p.dp > 0)
        j["dp"] = p.dp;
    if (p.ep > 1 || p.etp > 1) {
        j["ep"] = p.ep;
        j["etp"] = p.etp;
    }
    if (p.fsdp)
        j["fsdp"] = true;
    return j;
}

json toJson(const ClusterDesc& c)
{
    json j = c.extensions.value();
    j["format"] = kClusterFormat;
    j["name"] = c.name;
    j["gpu"] = gpuJson(c);
    j["racks"] = c.racks;
    j["nodes_per_rack"] = c.nodesPerRack;
    j["gpus_per_node"] = c.gpusPerNode;
    // Left out when automatic, so that the layout follows a later change of the rack count.
    if (c.layoutRows > 0)
        j["layout"] = {{"rows", c.layoutRows}};
    j["scale_up"] = {{"name", c.scaleUp.name},
                     {"domain", toString(c.scaleUp.domain)},
                     {"GBps_per_gpu", c.scaleUp.GBpsPerGpu},
                     {"latency_us", c.scaleUp.latencyUs}};
    j["scale_out"] = {{"name", c.scaleOut.name},
                      {"Gbps_per_gpu", c.scaleOut.GbpsPerGpu},
                      {"latency_us", c.scaleOut.latencyUs},
                      {"topology", topologyJson(c.scaleOut.topology)}};
    j["overheads"] = {{"virtualization", c.virtualization}};
    if (!c.failures.empty())
        j["failures"] = failuresJson(c.failures);
    if (c.storage)
        j["storage"] = {{"write_GBps", c.storage->writeGBps}, {"read_GBps", c.storage->readGBps}};
    if (c.reliability) {
        const Reliability& r = *c.reliability;
        j["reliability"] = {{"gpu_mtbf_h", r.gpuMtbfH},
                            {"node_mtbf_h", r.nodeMtbfH},
                            {"switch_mtbf_h", r.switchMtbfH},
                            {"restart_s", r.restartS},
                            {"step_jitter", r.stepJitter}};
    }
    return j;
}

json toJson(const RunDesc& r)
{
    json j = r.extensions.value();
    j["format"] = kRunFormat;
    j["name"] = r.name;
    if (!r.clusterPath.empty())
        j["cluster"] = r.clusterPath;
    j["model"] = modelJson(r.model);
    j["precision"] = toString(r.precision);
    j["batch"] = {{"global", r.batch.global}, {"micro", r.batch.micro}};
    j["parallelism"] = toJson(r.parallelism);
    j["placement"] = json::array();
    for (Dim d : r.placement)
        j["placement"].push_back(toString(d));
    if (r.trainingSteps)
        j["training"] = {{"steps", *r.trainingSteps}};
    if (r.measured)
        j["measured"] = {{"step_time_s", r.measured->stepTimeS}, {"source", r.measured->source}};
    if (r.checkpoint) {
        const Checkpoint& c = *r.checkpoint;
        j["checkpoint"] = {{"interval_steps", c.intervalSteps ? json(*c.intervalSteps) : "auto"},
                           {"async", c.async}};
    }
    if (r.allocation)
        j["allocation"] = allocationJson(*r.allocation);
    return j;
}

json toJson(const ViewState& v)
{
    return {{"zoom", v.zoom},
            {"center", {v.center[0], v.center[1]}},
            {"color_by", toString(v.colorBy)},
            {"highlight_rank", v.highlightRank},
            {"time_s", v.timeS},
            {"speed", v.speed},
            {"playing", v.playing}};
}

json toJson(const Session& s)
{
    json j = s.extensions.value();
    j["format"] = kSessionFormat;
    j["cluster"] = toJson(s.cluster);
    j["run"] = toJson(s.run);
    if (s.compare)
        j["compare"] = {{"cluster", toJson(s.compare->cluster)}, {"run", toJson(s.compare->run)}};
    if (!s.jobs.empty()) {
        j["jobs"] = json::array();
        for (const RunDesc& job : s.jobs)
            j["jobs"].push_back({{"run", toJson(job)}});
    }
    if (s.view)
        j["view"] = toJson(*s.view);
    if (!s.bookmarks.empty()) {
        j["bookmarks"] = json::array();
        for (const Bookmark& b : s.bookmarks)
            j["bookmarks"].push_back(bookmarkJson(b));
    }
    return j;
}

} // namespace cs
