// Descriptions from parsed JSON, the rules they must follow, and loading whole files.

#include "loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "jsonfields.h"

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

const std::vector<std::string> kDomainWords{"node", "rack"};
const std::vector<std::string> kFabricWords{"rail-optimized", "fat-tree"};
const std::vector<std::string> kPrecisionWords{"bf16", "fp8", "nvfp4"};
const std::vector<std::string> kRecomputeWords{"none", "selective", "full"};

std::string joined(const std::vector<std::string>& words, const std::string& separator)
{
    std::string text;
    for (const std::string& word : words)
        text += (text.empty() ? "" : separator) + word;
    return text;
}

std::string catalogNames()
{
    std::vector<std::string> names;
    for (const GpuSpec& gpu : gpuCatalog())
        names.push_back(gpu.name);
    return joined(names, ", ");
}

std::string str(int64_t n)
{
    return std::to_string(n);
}

bool checkFormat(FieldReader& fields, const char* expected)
{
    std::string format;
    if (!fields.readString("format", format, Need::Required))
        return false;
    if (format == expected)
        return true;
    fields.error("format", std::string("must be \"") + expected + "\", got \"" + format + "\"");
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
    top.error("gpu", "unknown GPU \"" + name + "\"; the catalog has " + catalogNames() +
                         " (describe any other GPU with an object)");
}

void readScaleUp(const json& object, const std::string& pointer, ClusterDesc& c,
                 const std::string& file, Diagnostics& diags)
{
    FieldReader u(object, file, pointer, diags);
    u.readString("name", c.scaleUp.name, Need::Optional);
    std::string domain;
    if (u.readWord("domain", domain, kDomainWords, Need::Required) && !domain.empty())
        c.scaleUp.domain = domain == "rack" ? DomainKind::Rack : DomainKind::Node;
    u.readNumber("GBps_per_gpu", c.scaleUp.GBpsPerGpu, 1, kMaxGBps, Need::Required);
    u.readNumber("latency_us", c.scaleUp.latencyUs, 0, kMaxLatencyUs, Need::Optional);
    u.reportUnknownKeys();
}

void readScaleOut(const json& object, const std::string& pointer, ClusterDesc& c,
                  const std::string& file, Diagnostics& diags)
{
    FieldReader o(object, file, pointer, diags);
    o.readString("name", c.scaleOut.name, Need::Optional);
    o.readNumber("Gbps_per_gpu", c.scaleOut.GbpsPerGpu, 1, kMaxGBps, Need::Required);
    o.readNumber("latency_us", c.scaleOut.latencyUs, 0, kMaxLatencyUs, Need::Optional);
    if (const json* topology = o.readObject("topology", Need::Optional)) {
        FieldReader t(*topology, file, o.pointerOf("topology"), diags);
        std::string kind;
        if (t.readWord("kind", kind, kFabricWords, Need::Optional) && !kind.empty())
            c.scaleOut.topology.kind =
                kind == "fat-tree" ? FabricKind::FatTree : FabricKind::RailOptimized;
        t.readInt("tiers", c.scaleOut.topology.tiers, 1, kMaxTiers, Need::Optional);
        t.readNumber("oversubscription", c.scaleOut.topology.oversubscription, 1,
                     kMaxOversubscription, Need::Optional);
        t.reportUnknownKeys();
    }
    o.reportUnknownKeys();
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
    f.reportUnknownKeys();
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
    f.readBool("sequence_parallel", p.sequenceParallel, Need::Optional);
    f.readBool("distributed_optimizer", p.distributedOptimizer, Need::Optional);
    std::string recompute;
    if (f.readWord("recompute", recompute, kRecomputeWords, Need::Optional) && !recompute.empty())
        p.recompute = recompute == "full"        ? Recompute::Full
                      : recompute == "selective" ? Recompute::Selective
                                                 : Recompute::None;
    f.reportUnknownKeys();
}

void readPlacement(const json& array, const std::string& pointer, std::array<Dim, 4>& placement,
                   const std::string& file, Diagnostics& diags)
{
    std::vector<Dim> dims;
    bool wordsOk = true;
    for (size_t i = 0; i < array.size(); ++i) {
        const json& item = array[i];
        const std::string at = pointer + "/" + std::to_string(i);
        const std::optional<Dim> dim =
            item.is_string() ? dimFromString(item.get<std::string>()) : std::nullopt;
        if (!dim) {
            diags.atPointer(file, at,
                            "must be one of tp, cp, pp, dp; got " +
                                (item.is_string() ? "\"" + item.get<std::string>() + "\""
                                                  : jsonTypeName(item)));
            wordsOk = false;
            continue;
        }
        dims.push_back(*dim);
    }
    if (!wordsOk)
        return;
    std::vector<std::string> missing, repeated;
    for (Dim d : kAllDims) {
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
    std::string message = "must list tp, cp, pp and dp once each";
    if (!missing.empty())
        message += "; missing " + joined(missing, ", ");
    if (!repeated.empty())
        message += "; repeated " + joined(repeated, ", ");
    diags.atPointer(file, pointer, message);
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
    top.reportUnknownKeys();
    c.extensions = top.extensions();
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

    std::string precision;
    if (top.readWord("precision", precision, kPrecisionWords, Need::Required) && !precision.empty())
        r.precision = *precisionFromString(precision);
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
    top.reportUnknownKeys();
    r.extensions = top.extensions();
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
    f.readWord("color_by", v.colorBy, colorByModes(), Need::Optional);
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
    s.extensions = top.extensions();
    if (diags.size() != before)
        return std::nullopt;
    return s;
}

void checkRunShape(const RunDesc& r, const std::string& file, const std::string& base,
                   Diagnostics& diags)
{
    const ModelShape& m = r.model;
    const Parallelism& p = r.parallelism;
    // A struct built in code may hold anything; the rules below divide by these.
    if (p.tp < 1 || p.cp < 1 || p.pp < 1 || p.vp < 1 || p.dp < 0 || m.kvHeads < 1 ||
        r.batch.micro < 1) {
        diags.atPointer(file, base + "/parallelism",
                        "tp, cp, pp, vp, kv_heads and micro must be at least 1, dp at least 0");
        return;
    }
    if (m.heads % p.tp != 0)
        diags.atPointer(file, base + "/parallelism/tp",
                        "tp = " + str(p.tp) + " must divide the model's " + str(m.heads) +
                            " attention heads");
    if (m.kvHeads % p.tp != 0 && p.tp % m.kvHeads != 0)
        diags.atPointer(file, base + "/model/kv_heads",
                        "kv_heads = " + str(m.kvHeads) + " and tp = " + str(p.tp) +
                            ": one must divide the other so that KV heads split or replicate "
                            "evenly over tensor-parallel ranks");
    if (m.heads % m.kvHeads != 0)
        diags.atPointer(file, base + "/model/kv_heads",
                        "kv_heads = " + str(m.kvHeads) + " must divide heads = " + str(m.heads) +
                            " (each KV head serves an equal group of query heads)");
    // Context parallelism cuts each sequence into 2 x cp chunks to balance causal attention;
    // with cp = 1 the sequence is not cut at all.
    if (p.cp > 1 && m.seqLen % (2 * p.cp) != 0)
        diags.atPointer(file, base + "/model/seq_len",
                        "seq_len = " + str(m.seqLen) +
                            " must be divisible by 2 x cp = " + str(2 * int64_t(p.cp)));
    const int64_t stages = int64_t(p.pp) * p.vp;
    if (m.layers < stages)
        diags.atPointer(file, base + "/model/layers",
                        "layers = " + str(m.layers) + " is fewer than pp x vp = " + str(p.pp) +
                            " x " + str(p.vp) + " = " + str(stages) +
                            " pipeline stages; each stage needs a layer");
    if (p.vp > 1 && p.pp == 1)
        diags.atPointer(file, base + "/parallelism/vp",
                        "vp = " + str(p.vp) +
                            " needs pp > 1: virtual stages interleave a pipeline");
    const int64_t perStep = int64_t(p.dp) * r.batch.micro;
    if (p.dp > 0 && r.batch.global % perStep != 0)
        diags.atPointer(file, base + "/batch/global",
                        "global batch " + str(r.batch.global) +
                            " must be divisible by dp x micro = " + str(p.dp) + " x " +
                            str(r.batch.micro) + " = " + str(perStep));
}

void checkRunOnCluster(const RunDesc& run, const ClusterDesc& cluster, const std::string& file,
                       const std::string& runBase, Diagnostics& diags)
{
    const Parallelism& p = run.parallelism;
    const int64_t gpus = cluster.gpuCount();
    const int64_t modelParallel = int64_t(p.tp) * p.cp * p.pp;
    const std::string factors = str(p.tp) + " x " + str(p.cp) + " x " + str(p.pp);
    if (p.dp > 0) {
        if (modelParallel * p.dp != gpus)
            diags.atPointer(file, runBase + "/parallelism/dp",
                            "tp x cp x pp x dp = " + factors + " x " + str(p.dp) + " = " +
                                withThousands(modelParallel * p.dp) + ", but the cluster has " +
                                withThousands(gpus) + " GPUs");
    } else if (gpus % modelParallel != 0) {
        diags.atPointer(file, runBase + "/parallelism",
                        "the cluster's " + withThousands(gpus) +
                            " GPUs do not divide by tp x cp x pp = " + factors + " = " +
                            str(modelParallel) + ", so dp cannot be derived");
    } else {
        const int64_t perStep = gpus / modelParallel * run.batch.micro;
        if (run.batch.global % perStep != 0)
            diags.atPointer(file, runBase + "/batch/global",
                            "global batch " + str(run.batch.global) +
                                " must be divisible by dp x micro = " + str(gpus / modelParallel) +
                                " x " + str(run.batch.micro) + " = " + str(perStep) +
                                " (dp derived from the cluster's " + withThousands(gpus) +
                                " GPUs)");
    }
    if (cluster.gpu.peakTflops(run.precision) <= 0) {
        std::vector<std::string> supported;
        for (const std::string& word : kPrecisionWords) {
            if (cluster.gpu.peakTflops(*precisionFromString(word)) > 0)
                supported.push_back(word);
        }
        diags.atPointer(file, runBase + "/precision",
                        "the " + cluster.gpu.name + " has no " + toString(run.precision) +
                            " peak; it supports " + joined(supported, ", "));
    }
}

json toJson(const ClusterDesc& c)
{
    json j = c.extensions;
    j["format"] = kClusterFormat;
    j["name"] = c.name;
    if (c.gpuByName) {
        j["gpu"] = c.gpu.name;
    } else {
        j["gpu"] = {{"name", c.gpu.name},
                    {"peak_tflops",
                     {{"bf16", c.gpu.peakTflopsBf16},
                      {"fp8", c.gpu.peakTflopsFp8},
                      {"nvfp4", c.gpu.peakTflopsNvfp4}}},
                    {"hbm_gib", c.gpu.hbmGiB},
                    {"hbm_TBps", c.gpu.hbmTBps},
                    {"nvlink_GBps", c.gpu.nvlinkGBps}};
    }
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
                      {"topology",
                       {{"kind", toString(c.scaleOut.topology.kind)},
                        {"tiers", c.scaleOut.topology.tiers},
                        {"oversubscription", c.scaleOut.topology.oversubscription}}}};
    j["overheads"] = {{"virtualization", c.virtualization}};
    return j;
}

json toJson(const RunDesc& r)
{
    json j = r.extensions;
    j["format"] = kRunFormat;
    j["name"] = r.name;
    if (!r.clusterPath.empty())
        j["cluster"] = r.clusterPath;
    const ModelShape& m = r.model;
    j["model"] = {{"name", m.name},         {"layers", m.layers},
                  {"hidden", m.hidden},     {"ffn_hidden", m.ffnHidden},
                  {"heads", m.heads},       {"kv_heads", m.kvHeads},
                  {"vocab", m.vocab},       {"seq_len", m.seqLen},
                  {"gated_mlp", m.gatedMlp}};
    j["precision"] = toString(r.precision);
    j["batch"] = {{"global", r.batch.global}, {"micro", r.batch.micro}};
    const Parallelism& p = r.parallelism;
    json parallelism = {{"tp", p.tp},
                        {"cp", p.cp},
                        {"pp", p.pp},
                        {"vp", p.vp},
                        {"sequence_parallel", p.sequenceParallel},
                        {"distributed_optimizer", p.distributedOptimizer},
                        {"recompute", toString(p.recompute)}};
    // Left out when derived, so that the run still fits a cluster of another size.
    if (p.dp > 0)
        parallelism["dp"] = p.dp;
    j["parallelism"] = parallelism;
    j["placement"] = json::array();
    for (Dim d : r.placement)
        j["placement"].push_back(toString(d));
    if (r.trainingSteps)
        j["training"] = {{"steps", *r.trainingSteps}};
    if (r.measured)
        j["measured"] = {{"step_time_s", r.measured->stepTimeS}, {"source", r.measured->source}};
    return j;
}

json toJson(const ViewState& v)
{
    return {{"zoom", v.zoom},        {"center", {v.center[0], v.center[1]}},
            {"color_by", v.colorBy}, {"highlight_rank", v.highlightRank},
            {"time_s", v.timeS},     {"speed", v.speed},
            {"playing", v.playing}};
}

json toJson(const Session& s)
{
    json j = s.extensions;
    j["format"] = kSessionFormat;
    j["cluster"] = toJson(s.cluster);
    j["run"] = toJson(s.run);
    if (s.compare)
        j["compare"] = {{"cluster", toJson(s.compare->cluster)}, {"run", toJson(s.compare->run)}};
    if (s.view)
        j["view"] = toJson(*s.view);
    if (!s.bookmarks.empty()) {
        j["bookmarks"] = json::array();
        for (const Bookmark& b : s.bookmarks)
            j["bookmarks"].push_back({{"title", b.title}, {"view", toJson(b.view)}});
    }
    return j;
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
                        "\"" + run.clusterPath + "\" is not a cluster file (its format is not \"" +
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
