// Descriptions from parsed JSON, the rules they must follow, and loading whole files.

#include "loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "fileio.h"
#include "jsonfields.h"
#include "validation.h"

namespace cs {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Bounds on what a file may say. They are wide enough for any machine built or announced
// (NVL72 and NVL576 domains, 100k-GPU clusters, 1M-token contexts) and narrow enough that
// products of them cannot overflow the cost model's arithmetic or hide a typo.
constexpr int kMaxRacks = 65536;
constexpr int kMaxNodesPerRack = 1024;
constexpr int kMaxGpusPerNode = 72;
constexpr double kMaxGBps = 100000; // GB/s or Gb/s per GPU
constexpr double kMaxLatencyUs = 10000;
constexpr int kMaxTiers = 3;
constexpr double kMaxOversubscription = 64;
constexpr double kMaxVirtualization = 0.5; // a VM layer adding half a step is surely a typo
constexpr double kMaxTflops = 100000;
constexpr double kMaxHbmGiB = 16384;
constexpr double kMinHbmTBps = 0.1;
constexpr double kMaxHbmTBps = 1000;
constexpr int kMaxLayers = 4096;
constexpr int kMaxHidden = 1 << 20;
constexpr int kMaxFfnHidden = 1 << 22;
constexpr int kMaxHeads = 4096;
constexpr int kMaxVocab = 1 << 24;
constexpr int kMaxSeqLen = 1 << 22;
constexpr int kMaxGlobalBatch = 1 << 24;
constexpr int kMaxMicroBatch = 65536;
constexpr int kMaxVirtualStages = 1024;
constexpr int kMaxTrainingSteps = 1000000000;
constexpr double kMaxStepTimeS = 1e6;
constexpr double kMinZoom = 1e-4;
constexpr double kMaxZoom = 1e4;
constexpr double kMaxCoordinate = 1e9;
constexpr double kMaxTimeS = 1e9;
constexpr double kMaxSpeed = 1e6;

constexpr int kMaxSwitchRadix = 4096;
constexpr int kMaxExperts = 65536;
constexpr int kMaxHeadDim = 65536;
constexpr double kMaxMtbfH = 1e9;
constexpr double kMaxRestartS = 1e7;
constexpr double kMaxCapacityFactor = 1000;

// Reads an enumeration's word into `out`; false when present and wrong.
template <typename E> bool readEnum(FieldReader& f, const std::string& key, E& out, Need need)
{
    std::string word;
    if (!f.readWord(key, word, enumWords<E>(), need))
        return false;
    if (!word.empty())
        out = *enumFromString<E>(word);
    return true;
}

bool checkFormat(FieldReader& fields, const char* expected)
{
    std::string format;
    if (!fields.readString("format", format, Need::Required))
        return false;
    if (format == expected)
        return true;
    fields.error("format", std::string("must be \"") + expected + "\", got " + inQuotes(format));
    return false;
}

bool requireObject(const json& j, const std::string& file, const std::string& base,
                   const char* what, Diagnostics& diags)
{
    if (j.is_object())
        return true;
    diags.atPointer(file, base,
                    std::string("expected ") + what + " object, got " + jsonTypeName(j));
    return false;
}

void readGpuObject(const json& object, FieldReader& owner, ClusterDesc& c, const std::string& file,
                   Diagnostics& diags)
{
    FieldReader g(object, file, owner.pointerOf("gpu"), diags);
    std::string name;
    g.readString("name", name, Need::Required);
    // A catalog name supplies every field the object leaves out.
    const GpuSpec* catalogEntry = findCatalogGpu(name);
    GpuSpec spec = catalogEntry ? *catalogEntry : GpuSpec{};
    spec.name = name;
    const Need need = catalogEntry ? Need::Optional : Need::Required;
    if (const json* peaks = g.readObject("peak_tflops", need)) {
        FieldReader p(*peaks, file, g.pointerOf("peak_tflops"), diags);
        p.readNumber("bf16", spec.peakTflopsBf16, 1, kMaxTflops, need);
        // 0 says the GPU lacks the precision, as in the catalog.
        p.readNumber("fp8", spec.peakTflopsFp8, 0, kMaxTflops, Need::Optional);
        p.readNumber("nvfp4", spec.peakTflopsNvfp4, 0, kMaxTflops, Need::Optional);
        p.reportUnknownKeys();
    }
    g.readNumber("hbm_gib", spec.hbmGiB, 1, kMaxHbmGiB, need);
    g.readNumber("hbm_TBps", spec.hbmTBps, kMinHbmTBps, kMaxHbmTBps, need);
    g.readNumber("nvlink_GBps", spec.nvlinkGBps, 0, kMaxGBps, Need::Optional);
    g.reportUnknownKeys();
    c.gpu = spec;
    c.gpuByName = false;
}

void readGpu(FieldReader& top, ClusterDesc& c, const std::string& file, Diagnostics& diags)
{
    const json* gpu = top.find("gpu", Need::Required);
    if (!gpu)
        return;
    if (gpu->is_object()) {
        readGpuObject(*gpu, top, c, file, diags);
        return;
    }
    if (!gpu->is_string()) {
        top.error("gpu", "expected a catalog GPU name or an object, got " + jsonTypeName(*gpu));
        return;
    }
    const std::string name = gpu->get<std::string>();
    if (const GpuSpec* spec = findCatalogGpu(name)) {
        c.gpu = *spec;
        c.gpuByName = true;
        return;
    }
    top.error("gpu", "unknown GPU " + inQuotes(name) + "; the catalog has " + catalogNames() +
                         " (describe any other GPU with an object)");
}

void readScaleUp(const json& object, const std::string& pointer, ClusterDesc& c,
                 const std::string& file, Diagnostics& diags)
{
    FieldReader u(object, file, pointer, diags);
    u.readString("name", c.scaleUp.name, Need::Optional);
    readEnum(u, "domain", c.scaleUp.domain, Need::Required);
    u.readNumber("GBps_per_gpu", c.scaleUp.GBpsPerGpu, 1, kMaxGBps, Need::Required);
    u.readNumber("latency_us", c.scaleUp.latencyUs, 0, kMaxLatencyUs, Need::Optional);
    u.reportUnknownKeys();
}

// One number for every tier boundary, or one per boundary (leaf->spine first).
void readOversubscription(FieldReader& t, FabricTopology& topology)
{
    const json* value = t.find("oversubscription", Need::Optional);
    if (!value)
        return;
    if (!value->is_array()) {
        double single = 1;
        if (t.readNumber("oversubscription", single, 1, kMaxOversubscription, Need::Optional))
            topology.oversubscription = {single};
        return;
    }
    const size_t boundaries = size_t(std::max(1, topology.tiers - 1));
    bool ok = value->size() == boundaries;
    for (const json& v : *value)
        ok = ok && v.is_number() && v.get<double>() >= 1 && v.get<double>() <= kMaxOversubscription;
    if (!ok) {
        t.error("oversubscription", "expected a number from 1 to " +
                                        numberText(kMaxOversubscription) + ", or " +
                                        std::to_string(boundaries) +
                                        " such numbers, one per tier boundary (leaf->spine first)");
        return;
    }
    topology.oversubscription = value->get<std::vector<double>>();
}

void readFabricTopology(const json& object, const std::string& pointer, ClusterDesc& c,
                        const std::string& file, Diagnostics& diags)
{
    FabricTopology& topology = c.scaleOut.topology;
    FieldReader t(object, file, pointer, diags);
    readEnum(t, "kind", topology.kind, Need::Optional);
    t.readInt("tiers", topology.tiers, 1, kMaxTiers, Need::Optional);
    readOversubscription(t, topology);
    t.readInt("switch_radix", topology.switchRadix, 4, kMaxSwitchRadix, Need::Optional);
    t.readInt("nodes_per_leaf", topology.nodesPerLeaf, 1, kMaxRacks * kMaxNodesPerRack,
              Need::Optional);
    t.readInt("rails", topology.rails, 1, kMaxGpusPerNode, Need::Optional);
    if (topology.rails > 0 && topology.kind != FabricKind::RailOptimized)
        t.error("rails", "rails apply to a rail-optimized fabric only");
    readEnum(t, "routing", topology.routing, Need::Optional);
    t.reportUnknownKeys();
}

void readScaleOut(const json& object, const std::string& pointer, ClusterDesc& c,
                  const std::string& file, Diagnostics& diags)
{
    FieldReader o(object, file, pointer, diags);
    o.readString("name", c.scaleOut.name, Need::Optional);
    o.readNumber("Gbps_per_gpu", c.scaleOut.GbpsPerGpu, 1, kMaxGBps, Need::Required);
    o.readNumber("latency_us", c.scaleOut.latencyUs, 0, kMaxLatencyUs, Need::Optional);
    if (const json* topology = o.readObject("topology", Need::Optional))
        readFabricTopology(*topology, o.pointerOf("topology"), c, file, diags);
    o.reportUnknownKeys();
}

void readAttention(const json& object, const std::string& pointer, Attention& a,
                   const std::string& file, Diagnostics& diags)
{
    FieldReader f(object, file, pointer, diags);
    readEnum(f, "kind", a.kind, Need::Optional);
    const Need mla = a.kind == AttentionKind::Mla ? Need::Required : Need::Optional;
    f.readInt("q_lora_rank", a.qLoraRank, 0, kMaxHidden, Need::Optional);
    f.readInt("kv_lora_rank", a.kvLoraRank, 1, kMaxHidden, mla);
    f.readInt("qk_nope_head_dim", a.qkNopeHeadDim, 0, kMaxHeadDim, mla);
    f.readInt("qk_rope_head_dim", a.qkRopeHeadDim, 0, kMaxHeadDim, mla);
    f.readInt("v_head_dim", a.vHeadDim, 1, kMaxHeadDim, mla);
    const Need window = a.kind == AttentionKind::SlidingWindow ? Need::Required : Need::Optional;
    f.readInt("window", a.window, 1, kMaxSeqLen, window);
    f.readInt("every", a.every, 1, kMaxLayers, Need::Optional);
    f.reportUnknownKeys();
}

void readMoe(const json& object, const std::string& pointer, ModelShape& m, const std::string& file,
             Diagnostics& diags)
{
    Moe& moe = *m.moe;
    FieldReader f(object, file, pointer, diags);
    f.readInt("experts", moe.experts, 1, kMaxExperts, Need::Required);
    f.readInt("top_k", moe.topK, 1, kMaxExperts, Need::Required);
    f.readInt("ffn_hidden", moe.ffnHidden, 1, kMaxFfnHidden, Need::Required);
    f.readInt("shared_experts", moe.sharedExperts, 0, kMaxExperts, Need::Optional);
    moe.sharedFfnHidden = moe.ffnHidden;
    f.readInt("shared_ffn_hidden", moe.sharedFfnHidden, 0, kMaxFfnHidden, Need::Optional);
    f.readInt("dense_layers", moe.denseLayers, 0, kMaxLayers, Need::Optional);
    moe.denseFfnHidden = m.ffnHidden;
    f.readInt("dense_ffn_hidden", moe.denseFfnHidden, 0, kMaxFfnHidden, Need::Optional);
    if (const json* capacity = f.find("capacity_factor", Need::Optional);
        capacity && !capacity->is_null()) {
        double factor = 0;
        if (f.readNumber("capacity_factor", factor, 1e-3, kMaxCapacityFactor, Need::Optional))
            moe.capacityFactor = factor;
    }
    f.readNumber("imbalance", moe.imbalance, 1, kMaxCapacityFactor, Need::Optional);
    f.reportUnknownKeys();
}

void readModel(const json& object, const std::string& pointer, ModelShape& m,
               const std::string& file, Diagnostics& diags)
{
    FieldReader f(object, file, pointer, diags);
    f.readString("name", m.name, Need::Optional);
    f.readInt("layers", m.layers, 1, kMaxLayers, Need::Required);
    f.readInt("hidden", m.hidden, 1, kMaxHidden, Need::Required);
    f.readInt("ffn_hidden", m.ffnHidden, 1, kMaxFfnHidden, Need::Required);
    f.readInt("heads", m.heads, 1, kMaxHeads, Need::Required);
    int kvHeads = 0;
    f.readInt("kv_heads", kvHeads, 1, kMaxHeads, Need::Optional);
    m.kvHeads = kvHeads > 0 ? kvHeads : m.heads;
    f.readInt("vocab", m.vocab, 1, kMaxVocab, Need::Required);
    f.readInt("seq_len", m.seqLen, 1, kMaxSeqLen, Need::Required);
    f.readBool("gated_mlp", m.gatedMlp, Need::Optional);
    f.readInt("head_dim", m.headDim, 1, kMaxHeadDim, Need::Optional);
    f.readInt("mtp_layers", m.mtpLayers, 0, kMaxLayers, Need::Optional);
    if (const json* attention = f.readObject("attention", Need::Optional))
        readAttention(*attention, f.pointerOf("attention"), m.attention, file, diags);
    if (const json* moe = f.readObject("moe", Need::Optional)) {
        m.moe = Moe{};
        readMoe(*moe, f.pointerOf("moe"), m, file, diags);
    }
    f.reportUnknownKeys();
}

// A word (none, selective, full) or the list of modules recomputed.
void readRecompute(FieldReader& f, Recompute& out)
{
    const json* value = f.find("recompute", Need::Optional);
    if (!value)
        return;
    if (!value->is_array()) {
        RecomputeMode mode = RecomputeMode::None;
        if (readEnum(f, "recompute", mode, Need::Optional))
            out = Recompute::of(mode);
        return;
    }
    Recompute modules{RecomputeMode::Modules, 0};
    for (size_t i = 0; i < value->size(); ++i) {
        const json& item = (*value)[i];
        const auto module = item.is_string()
                                ? enumFromString<RecomputeModule>(item.get<std::string>())
                                : std::nullopt;
        if (!module) {
            f.error("recompute", "item " + std::to_string(i) + " must be one of " +
                                     wordList(enumWords<RecomputeModule>()));
            return;
        }
        modules.modules |= uint8_t(1u << unsigned(*module));
    }
    out = modules.modules == 0 ? Recompute::of(RecomputeMode::None) : modules;
}

void readParallelism(const json& object, const std::string& pointer, Parallelism& p,
                     const std::string& file, Diagnostics& diags)
{
    FieldReader f(object, file, pointer, diags);
    const int maxSize = int(kMaxGpus);
    f.readInt("tp", p.tp, 1, maxSize, Need::Optional);
    f.readInt("cp", p.cp, 1, maxSize, Need::Optional);
    f.readInt("pp", p.pp, 1, maxSize, Need::Optional);
    f.readInt("vp", p.vp, 1, kMaxVirtualStages, Need::Optional);
    f.readInt("dp", p.dp, 1, maxSize, Need::Optional);
    f.readInt("ep", p.ep, 1, maxSize, Need::Optional);
    f.readInt("etp", p.etp, 1, maxSize, Need::Optional);
    f.readBool("sequence_parallel", p.sequenceParallel, Need::Optional);
    f.readBool("distributed_optimizer", p.distributedOptimizer, Need::Optional);
    f.readBool("fsdp", p.fsdp, Need::Optional);
    readRecompute(f, p.recompute);
    f.reportUnknownKeys();
}

std::vector<std::string> placedDimWords()
{
    std::vector<std::string> words;
    for (Dim d : kPlacedDims)
        words.emplace_back(toString(d));
    return words;
}

bool isPlaced(Dim d)
{
    return dimInfo(d).placed;
}

void readPlacement(const json& array, const std::string& pointer, PlacementOrder& placement,
                   const std::string& file, Diagnostics& diags)
{
    std::vector<Dim> dims;
    bool wordsOk = true;
    for (size_t i = 0; i < array.size(); ++i) {
        const json& item = array[i];
        const std::string at = pointer + "/" + std::to_string(i);
        const std::optional<Dim> dim =
            item.is_string() ? enumFromString<Dim>(item.get<std::string>()) : std::nullopt;
        if (!dim || !isPlaced(*dim)) {
            diags.atPointer(
                file, at,
                "must be one of " + wordList(placedDimWords(), ", ") + "; got " +
                    (item.is_string() ? inQuotes(item.get<std::string>()) : jsonTypeName(item)));
            wordsOk = false;
            continue;
        }
        dims.push_back(*dim);
    }
    if (!wordsOk)
        return;
    std::vector<std::string> missing, repeated;
    for (Dim d : kPlacedDims) {
        const auto count = std::count(dims.begin(), dims.end(), d);
        if (count == 0)
            missing.push_back(toString(d));
        if (count > 1)
            repeated.push_back(toString(d));
    }
    if (missing.empty() && repeated.empty()) {
        std::copy(dims.begin(), dims.end(), placement.begin());
        return;
    }
    std::string message = "must list " + wordList(placedDimWords(), " and ") + " once each";
    if (!missing.empty())
        message += "; missing " + wordList(missing, ", ");
    if (!repeated.empty())
        message += "; repeated " + wordList(repeated, ", ");
    diags.atPointer(file, pointer, message);
}

Checkpoint readCheckpoint(const json& object, const std::string& pointer, const std::string& file,
                          Diagnostics& diags)
{
    Checkpoint c;
    FieldReader f(object, file, pointer, diags);
    if (const json* interval = f.find("interval_steps", Need::Optional)) {
        if (interval->is_string() && interval->get<std::string>() == "auto") {
            c.intervalSteps.reset();
        } else {
            int steps = 0;
            if (interval->is_number() || !interval->is_string()) {
                if (f.readInt("interval_steps", steps, 1, kMaxTrainingSteps, Need::Optional))
                    c.intervalSteps = steps;
            } else {
                f.error("interval_steps", "expected a number of steps or \"auto\", got " +
                                              inQuotes(interval->get<std::string>()));
            }
        }
    }
    f.readBool("async", c.async, Need::Optional);
    f.reportUnknownKeys();
    return c;
}

// Indices of racks, nodes or GPUs, each below `count`.
void readIndices(FieldReader& f, const std::string& key, std::vector<int>& out, int64_t count)
{
    const json* list = f.readArray(key, Need::Optional);
    if (!list)
        return;
    for (size_t i = 0; i < list->size(); ++i) {
        const json& item = (*list)[i];
        if (!item.is_number_integer() || item.get<int64_t>() < 0 || item.get<int64_t>() >= count) {
            f.error(key, "item " + std::to_string(i) + " must be an index from 0 to " +
                             withThousands(count - 1));
            return;
        }
        out.push_back(int(item.get<int64_t>()));
    }
}

void readNames(FieldReader& f, const std::string& key, std::vector<std::string>& out)
{
    const json* list = f.readArray(key, Need::Optional);
    if (!list)
        return;
    for (size_t i = 0; i < list->size(); ++i) {
        if (!(*list)[i].is_string()) {
            f.error(key,
                    "item " + std::to_string(i) + " must be a name as `describe --json` lists it");
            return;
        }
        out.push_back((*list)[i].get<std::string>());
    }
}

void readFailures(const json& object, const std::string& pointer, ClusterDesc& c,
                  const std::string& file, Diagnostics& diags)
{
    FieldReader f(object, file, pointer, diags);
    readIndices(f, "racks", c.failures.racks, c.racks);
    readIndices(f, "nodes", c.failures.nodes, c.nodeCount());
    readIndices(f, "gpus", c.failures.gpus, c.gpuCount());
    readNames(f, "switches", c.failures.switches);
    readNames(f, "links", c.failures.links);
    f.reportUnknownKeys();
}

void readStorage(const json& object, const std::string& pointer, ClusterDesc& c,
                 const std::string& file, Diagnostics& diags)
{
    Storage storage;
    FieldReader f(object, file, pointer, diags);
    f.readNumber("write_GBps", storage.writeGBps, 1e-3, kMaxGBps * 1e3, Need::Required);
    storage.readGBps = storage.writeGBps;
    f.readNumber("read_GBps", storage.readGBps, 1e-3, kMaxGBps * 1e3, Need::Optional);
    f.reportUnknownKeys();
    c.storage = storage;
}

void readReliability(const json& object, const std::string& pointer, ClusterDesc& c,
                     const std::string& file, Diagnostics& diags)
{
    Reliability r;
    FieldReader f(object, file, pointer, diags);
    f.readNumber("gpu_mtbf_h", r.gpuMtbfH, 1, kMaxMtbfH, Need::Optional);
    f.readNumber("node_mtbf_h", r.nodeMtbfH, 1, kMaxMtbfH, Need::Optional);
    f.readNumber("switch_mtbf_h", r.switchMtbfH, 1, kMaxMtbfH, Need::Optional);
    f.readNumber("restart_s", r.restartS, 0, kMaxRestartS, Need::Optional);
    f.readNumber("step_jitter", r.stepJitter, 0, 1, Need::Optional);
    f.reportUnknownKeys();
    c.reliability = r;
}

std::optional<ClusterRun> readClusterRun(FieldReader& owner, const std::string& file,
                                         Diagnostics& diags)
{
    const json* clusterJson = owner.readObject("cluster", Need::Required);
    const json* runJson = owner.readObject("run", Need::Required);
    std::optional<ClusterDesc> cluster;
    std::optional<RunDesc> run;
    if (clusterJson)
        cluster = clusterFromJson(*clusterJson, file, owner.pointerOf("cluster"), diags);
    if (runJson)
        run = runFromJson(*runJson, file, owner.pointerOf("run"), diags);
    if (!cluster || !run)
        return std::nullopt;
    const size_t before = diags.size();
    checkRunOnCluster(*run, *cluster, file, owner.pointerOf("run"), diags);
    if (diags.size() != before)
        return std::nullopt;
    return ClusterRun{*cluster, *run};
}

std::optional<Bookmark> readBookmark(const json& j, const std::string& pointer,
                                     const std::string& file, Diagnostics& diags)
{
    if (!requireObject(j, file, pointer, "a bookmark", diags))
        return std::nullopt;
    const size_t before = diags.size();
    FieldReader f(j, file, pointer, diags);
    Bookmark bookmark;
    f.readString("title", bookmark.title, Need::Required);
    f.readString("notes", bookmark.notes, Need::Optional);
    if (const json* view = f.readObject("view", Need::Required)) {
        if (auto state = viewFromJson(*view, file, f.pointerOf("view"), diags))
            bookmark.view = *state;
    }
    f.reportUnknownKeys();
    if (diags.size() != before)
        return std::nullopt;
    return bookmark;
}

} // namespace

std::optional<ClusterDesc> clusterFromJson(const json& j, const std::string& file,
                                           const std::string& base, Diagnostics& diags)
{
    if (!requireObject(j, file, base, "a cluster", diags))
        return std::nullopt;
    const size_t before = diags.size();
    ClusterDesc c;
    FieldReader top(j, file, base, diags);
    checkFormat(top, kClusterFormat);
    top.readString("name", c.name, Need::Required);
    readGpu(top, c, file, diags);
    bool sizeOk = top.readInt("racks", c.racks, 1, kMaxRacks, Need::Required);
    sizeOk = top.readInt("nodes_per_rack", c.nodesPerRack, 1, kMaxNodesPerRack, Need::Required) &&
             sizeOk;
    sizeOk =
        top.readInt("gpus_per_node", c.gpusPerNode, 1, kMaxGpusPerNode, Need::Required) && sizeOk;
    if (sizeOk && c.gpuCount() > kMaxGpus)
        top.error("racks", "the cluster has " + withThousands(c.gpuCount()) +
                               " GPUs; ClusterScope handles at most " + withThousands(kMaxGpus));
    if (const json* layout = top.readObject("layout", Need::Optional)) {
        FieldReader l(*layout, file, top.pointerOf("layout"), diags);
        l.readInt("rows", c.layoutRows, 1, sizeOk ? c.racks : kMaxRacks, Need::Optional);
        l.reportUnknownKeys();
    }
    if (const json* up = top.readObject("scale_up", Need::Required))
        readScaleUp(*up, top.pointerOf("scale_up"), c, file, diags);
    if (const json* out = top.readObject("scale_out", Need::Required))
        readScaleOut(*out, top.pointerOf("scale_out"), c, file, diags);
    if (const json* overheads = top.readObject("overheads", Need::Optional)) {
        FieldReader o(*overheads, file, top.pointerOf("overheads"), diags);
        o.readNumber("virtualization", c.virtualization, 0, kMaxVirtualization, Need::Optional);
        o.reportUnknownKeys();
    }
    if (const json* failures = top.readObject("failures", Need::Optional); failures && sizeOk)
        readFailures(*failures, top.pointerOf("failures"), c, file, diags);
    if (const json* storage = top.readObject("storage", Need::Optional))
        readStorage(*storage, top.pointerOf("storage"), c, file, diags);
    if (const json* reliability = top.readObject("reliability", Need::Optional))
        readReliability(*reliability, top.pointerOf("reliability"), c, file, diags);
    top.reportUnknownKeys();
    c.extensions = Extensions(top.extensions());
    if (diags.size() != before)
        return std::nullopt;
    return c;
}

std::optional<RunDesc> runFromJson(const json& j, const std::string& file, const std::string& base,
                                   Diagnostics& diags)
{
    if (!requireObject(j, file, base, "a run", diags))
        return std::nullopt;
    const size_t before = diags.size();
    RunDesc r;
    FieldReader top(j, file, base, diags);
    checkFormat(top, kRunFormat);
    top.readString("name", r.name, Need::Required);
    if (top.readString("cluster", r.clusterPath, Need::Optional) && j.contains("cluster") &&
        r.clusterPath.empty())
        top.error("cluster", "must name a cluster file; leave the key out for none");

    // Rules between fields only run on fields that were read, so that one typo does not
    // also show up as several broken divisibility rules.
    size_t mark = diags.size();
    const json* model = top.readObject("model", Need::Required);
    if (model)
        readModel(*model, top.pointerOf("model"), r.model, file, diags);
    const json* parallelism = top.readObject("parallelism", Need::Optional);
    if (parallelism)
        readParallelism(*parallelism, top.pointerOf("parallelism"), r.parallelism, file, diags);
    const json* batch = top.readObject("batch", Need::Required);
    if (batch) {
        FieldReader b(*batch, file, top.pointerOf("batch"), diags);
        b.readInt("global", r.batch.global, 1, kMaxGlobalBatch, Need::Required);
        b.readInt("micro", r.batch.micro, 1, kMaxMicroBatch, Need::Required);
        b.reportUnknownKeys();
    }
    const bool shapeOk = model && batch && diags.size() == mark;

    readEnum(top, "precision", r.precision, Need::Required);
    if (const json* placement = top.readArray("placement", Need::Optional))
        readPlacement(*placement, top.pointerOf("placement"), r.placement, file, diags);
    if (const json* training = top.readObject("training", Need::Optional)) {
        FieldReader t(*training, file, top.pointerOf("training"), diags);
        int steps = 0;
        if (t.readInt("steps", steps, 1, kMaxTrainingSteps, Need::Required))
            r.trainingSteps = steps;
        t.reportUnknownKeys();
    }
    if (const json* measured = top.readObject("measured", Need::Optional)) {
        FieldReader m(*measured, file, top.pointerOf("measured"), diags);
        Measured value;
        m.readNumber("step_time_s", value.stepTimeS, 1e-6, kMaxStepTimeS, Need::Required);
        m.readString("source", value.source, Need::Optional);
        m.reportUnknownKeys();
        r.measured = value;
    }
    if (const json* checkpoint = top.readObject("checkpoint", Need::Optional))
        r.checkpoint = readCheckpoint(*checkpoint, top.pointerOf("checkpoint"), file, diags);
    top.reportUnknownKeys();
    r.extensions = Extensions(top.extensions());
    if (shapeOk)
        checkRunShape(r, file, base, diags);
    if (diags.size() != before)
        return std::nullopt;
    return r;
}

std::optional<ViewState> viewFromJson(const json& j, const std::string& file,
                                      const std::string& base, Diagnostics& diags)
{
    if (!requireObject(j, file, base, "a view", diags))
        return std::nullopt;
    const size_t before = diags.size();
    ViewState v;
    FieldReader f(j, file, base, diags);
    f.readNumber("zoom", v.zoom, kMinZoom, kMaxZoom, Need::Optional);
    if (const json* center = f.readArray("center", Need::Optional)) {
        const bool ok = center->size() == 2 && (*center)[0].is_number() &&
                        (*center)[1].is_number() &&
                        std::fabs((*center)[0].get<double>()) <= kMaxCoordinate &&
                        std::fabs((*center)[1].get<double>()) <= kMaxCoordinate;
        if (ok)
            v.center = {(*center)[0].get<double>(), (*center)[1].get<double>()};
        else
            f.error("center", "expected [x, y]: two numbers of at most " +
                                  numberText(kMaxCoordinate) + " in size");
    }
    std::vector<std::string> modes;
    for (const ColorMode& mode : colorModes())
        modes.push_back(toString(mode));
    std::string colorBy;
    if (f.readWord("color_by", colorBy, modes, Need::Optional) && !colorBy.empty())
        v.colorBy = *colorModeFromString(colorBy);
    f.readInt("highlight_rank", v.highlightRank, -1, int(kMaxGpus - 1), Need::Optional);
    f.readNumber("time_s", v.timeS, 0, kMaxTimeS, Need::Optional);
    f.readNumber("speed", v.speed, 0, kMaxSpeed, Need::Optional);
    f.readBool("playing", v.playing, Need::Optional);
    f.reportUnknownKeys();
    if (diags.size() != before)
        return std::nullopt;
    return v;
}

std::optional<Session> sessionFromJson(const json& j, const std::string& file, Diagnostics& diags)
{
    if (!requireObject(j, file, "", "a session", diags))
        return std::nullopt;
    const size_t before = diags.size();
    Session s;
    FieldReader top(j, file, "", diags);
    checkFormat(top, kSessionFormat);
    if (auto main = readClusterRun(top, file, diags)) {
        s.cluster = main->cluster;
        s.run = main->run;
    }
    if (const json* compare = top.readObject("compare", Need::Optional)) {
        FieldReader c(*compare, file, top.pointerOf("compare"), diags);
        s.compare = readClusterRun(c, file, diags);
        c.reportUnknownKeys();
    }
    if (const json* view = top.readObject("view", Need::Optional))
        s.view = viewFromJson(*view, file, top.pointerOf("view"), diags);
    if (const json* bookmarks = top.readArray("bookmarks", Need::Optional)) {
        for (size_t i = 0; i < bookmarks->size(); ++i) {
            const std::string pointer = top.pointerOf("bookmarks") + "/" + std::to_string(i);
            if (auto bookmark = readBookmark((*bookmarks)[i], pointer, file, diags))
                s.bookmarks.push_back(*bookmark);
        }
    }
    top.reportUnknownKeys();
    s.extensions = Extensions(top.extensions());
    if (diags.size() != before)
        return std::nullopt;
    return s;
}

FileKind fileKindOf(const json& j)
{
    if (!j.is_object())
        return FileKind::Unknown;
    const auto format = j.find("format");
    if (format == j.end() || !format->is_string())
        return FileKind::Unknown;
    const std::string& text = format->get_ref<const std::string&>();
    if (text == kClusterFormat)
        return FileKind::Cluster;
    if (text == kRunFormat)
        return FileKind::Run;
    if (text == kSessionFormat)
        return FileKind::Session;
    return FileKind::Unknown;
}

namespace {

void reportUnknownFormat(const json& j, const std::string& file, Diagnostics& diags)
{
    const std::string expected = std::string("expected one of \"") + kClusterFormat + "\", \"" +
                                 kRunFormat + "\", \"" + kSessionFormat + "\"";
    const auto format = j.find("format");
    if (format == j.end())
        diags.atPointer(file, "/format", "missing required key \"format\"; " + expected);
    else if (!format->is_string())
        diags.atPointer(file, "/format", "expected a string, got " + jsonTypeName(*format));
    else
        diags.atPointer(file, "/format",
                        "unknown format \"" + format->get<std::string>() + "\"; " + expected);
}

std::optional<json> readJsonFile(const std::string& path, Diagnostics& diags)
{
    const std::optional<std::string> text = readFileText(path, diags);
    if (!text)
        return std::nullopt;
    return parseJson(*text, path, diags);
}

// The cluster a run names, with its own problems reported under its own file name.
void loadRunCluster(LoadedFile& loaded, Diagnostics& diags)
{
    const RunDesc& run = *loaded.run;
    loaded.clusterPath = resolveRelative(loaded.path, run.clusterPath);
    std::error_code ec;
    if (!fs::exists(loaded.clusterPath, ec)) {
        diags.atPointer(loaded.path, "/cluster",
                        "cluster file \"" + run.clusterPath + "\" does not exist (looked for " +
                            loaded.clusterPath + ")");
        return;
    }
    const std::optional<json> j = readJsonFile(loaded.clusterPath, diags);
    if (!j)
        return;
    if (fileKindOf(*j) != FileKind::Cluster) {
        diags.atPointer(loaded.path, "/cluster",
                        inQuotes(run.clusterPath) + " is not a cluster file (its format is not \"" +
                            kClusterFormat + "\")");
        return;
    }
    loaded.cluster = clusterFromJson(*j, loaded.clusterPath, "", diags);
    if (loaded.cluster)
        checkRunOnCluster(run, *loaded.cluster, loaded.path, "", diags);
}

} // namespace

std::optional<LoadedFile> loadFile(const std::string& path, Diagnostics& diags)
{
    LoadedFile loaded;
    loaded.path = path;
    // Measured runs have their own reader; here only their kind is told.
    if (path.ends_with(".jsonl")) {
        loaded.kind = FileKind::MeasuredRuns;
        return loaded;
    }
    const size_t before = diags.size();
    const std::optional<json> j = readJsonFile(path, diags);
    if (!j)
        return std::nullopt;
    if (!j->is_object()) {
        diags.atPointer(path, "", "the top level must be a JSON object, got " + jsonTypeName(*j));
        return std::nullopt;
    }
    loaded.kind = fileKindOf(*j);
    switch (loaded.kind) {
    case FileKind::Cluster:
        loaded.cluster = clusterFromJson(*j, path, "", diags);
        break;
    case FileKind::Run:
        loaded.run = runFromJson(*j, path, "", diags);
        if (loaded.run && !loaded.run->clusterPath.empty())
            loadRunCluster(loaded, diags);
        break;
    case FileKind::Session:
        loaded.session = sessionFromJson(*j, path, diags);
        break;
    default:
        reportUnknownFormat(*j, path, diags);
        break;
    }
    if (diags.size() != before)
        return std::nullopt;
    return loaded;
}

} // namespace cs
