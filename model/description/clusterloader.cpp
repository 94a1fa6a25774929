// Clusters from parsed JSON (formats.md "Cluster") and the rules a cluster must follow.

#include <algorithm>

#include "loader.h"
#include "loaderfields.h"

namespace cs {

using nlohmann::json;

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
constexpr int kMaxSwitchRadix = 4096;
constexpr double kMaxMtbfH = 1e9;
constexpr double kMaxRestartS = 1e7;

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

} // namespace cs
