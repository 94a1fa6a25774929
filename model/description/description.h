#pragma once
// The cluster, run and session descriptions of formats.md, as plain values.
// Every optional field of the file format is resolved to its default here, so a
// description written back out (writer.h) and read again compares equal.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dims.h"
#include "enumtext.h"
#include "extensions.h"

namespace cs {

enum class Precision : uint8_t { BF16, FP8, NVFP4 };
constexpr auto enumTexts(Precision)
{
    return std::array<EnumText<Precision>, 3>{{{Precision::BF16, "bf16", "BF16"},
                                               {Precision::FP8, "fp8", "FP8"},
                                               {Precision::NVFP4, "nvfp4", "NVFP4"}}};
}

enum class DomainKind : uint8_t { Node, Rack };
constexpr auto enumTexts(DomainKind)
{
    return std::array<EnumText<DomainKind>, 2>{{{DomainKind::Node, "node", "node (HGX board)"},
                                                {DomainKind::Rack, "rack", "rack (NVL72)"}}};
}

enum class FabricKind : uint8_t { RailOptimized, FatTree };
constexpr auto enumTexts(FabricKind)
{
    return std::array<EnumText<FabricKind>, 2>{
        {{FabricKind::RailOptimized, "rail-optimized", "rail-optimized"},
         {FabricKind::FatTree, "fat-tree", "fat tree"}}};
}

enum class Routing : uint8_t { Adaptive, Ecmp };
constexpr auto enumTexts(Routing)
{
    return std::array<EnumText<Routing>, 2>{
        {{Routing::Adaptive, "adaptive", "adaptive"}, {Routing::Ecmp, "ecmp", "ECMP (hashed)"}}};
}

// What the backward pass recomputes instead of keeping: nothing, the attention core
// (selective), whole layers (full), or a list of modules as Megatron-Core names them.
enum class RecomputeMode : uint8_t { None, Selective, Full, Modules };
constexpr auto enumTexts(RecomputeMode)
{
    return std::array<EnumText<RecomputeMode>, 3>{
        {{RecomputeMode::None, "none", "none"},
         {RecomputeMode::Selective, "selective", "selective"},
         {RecomputeMode::Full, "full", "full"}}};
}

enum class RecomputeModule : uint8_t {
    CoreAttn,
    MlaUpProj,
    Layernorm,
    Mlp,
    MoeAct,
    SharedExperts,
    Moe
};
constexpr auto enumTexts(RecomputeModule)
{
    using M = RecomputeModule;
    return std::array<EnumText<M>, 7>{{{M::CoreAttn, "core_attn", "attention core"},
                                       {M::MlaUpProj, "mla_up_proj", "MLA up-projections"},
                                       {M::Layernorm, "layernorm", "layer norms"},
                                       {M::Mlp, "mlp", "MLP"},
                                       {M::MoeAct, "moe_act", "expert activations"},
                                       {M::SharedExperts, "shared_experts", "shared experts"},
                                       {M::Moe, "moe", "MoE layer"}}};
}

struct Recompute {
    RecomputeMode mode = RecomputeMode::None;
    uint8_t modules = 0; // bit per RecomputeModule, for mode Modules

    static Recompute of(RecomputeMode m) { return {m, 0}; }
    bool recomputes(RecomputeModule m) const; // selective counts as core_attn
    bool operator==(const Recompute&) const = default;
};
// "none", "selective", "full" or the modules joined by "+"; "heavier" recompute sorts later.
std::string toString(const Recompute& r);

enum class AttentionKind : uint8_t { Gqa, Mla, SlidingWindow };
constexpr auto enumTexts(AttentionKind)
{
    return std::array<EnumText<AttentionKind>, 3>{
        {{AttentionKind::Gqa, "gqa", "grouped-query attention"},
         {AttentionKind::Mla, "mla", "multi-head latent attention"},
         {AttentionKind::SlidingWindow, "sliding_window", "sliding-window attention"}}};
}

struct GpuSpec {
    std::string name;
    double peakTflopsBf16 = 0;
    double peakTflopsFp8 = 0;   // 0: the GPU has no FP8 tensor cores
    double peakTflopsNvfp4 = 0; // 0: the GPU has no FP4 tensor cores
    double hbmGiB = 0;
    double hbmTBps = 0;
    double nvlinkGBps = 0; // per GPU, both directions together
    // What a GEMM's time depends on besides its FLOPs (model/cost/gemm.h): the architecture
    // (GPUs of one architecture share their GEMM efficiencies), the streaming multiprocessors
    // (SMs) that run its output tiles in waves, and the tile one SM computes at a time.
    // A GPU outside the catalog is its own architecture, with no waves (0 SMs).
    std::string architecture;
    int sms = 0;
    // BF16 tensor-core FLOPs an SM computes in the time its special function units compute one
    // exponential (model/cost/attention.h); 0: attention is not bound by its exponentials.
    int flopsPerExponential = 0;
    int tileM = 128, tileN = 256;

    double peakTflops(Precision p) const;
    const std::string& architectureName() const
    {
        return architecture.empty() ? name : architecture;
    }
    bool operator==(const GpuSpec&) const = default;
};

// Which way a copy between a GPU and its host's memory goes.
enum class HostCopy : uint8_t { ToHost, FromHost };
// GB/s one GPU copies to or from host memory, one direction, as pinned copies reach it: on a
// Grace superchip (GB200, GB300) over NVLink-C2C, else over PCIe.
double hostCopyGBps(const GpuSpec& gpu, HostCopy direction);

// The built-in catalog of formats.md.
const std::vector<GpuSpec>& gpuCatalog();
const GpuSpec* findCatalogGpu(const std::string& name);
std::string catalogNames(); // "A100, H100, ..." for messages

struct ScaleUp {
    std::string name;
    DomainKind domain = DomainKind::Node;
    double GBpsPerGpu = 0; // both directions together
    double latencyUs = 1.0;
    bool operator==(const ScaleUp&) const = default;
};

struct FabricTopology {
    FabricKind kind = FabricKind::RailOptimized;
    int tiers = 2;
    // Per tier boundary, leaf->spine first; one value applies to every boundary.
    std::vector<double> oversubscription{1.0};
    int switchRadix = 64;
    int nodesPerLeaf = 0; // 0: as many as a leaf's downlinks serve
    int rails = 0;        // 0: gpus_per_node (rail-optimized only)
    Routing routing = Routing::Adaptive;

    // boundary 0 is leaf->spine, 1 spine->core.
    double oversubscriptionAt(int boundary) const;
    bool operator==(const FabricTopology&) const = default;
};

struct ScaleOut {
    std::string name;
    double GbpsPerGpu = 0; // one direction
    double latencyUs = 5.0;
    FabricTopology topology;
    bool operator==(const ScaleOut&) const = default;
};

// What is out of service. Racks, nodes and GPUs by global index; switches and links by the
// names the topology gives them.
struct Failures {
    std::vector<int> racks;
    std::vector<int> nodes;
    std::vector<int> gpus;
    std::vector<std::string> switches;
    std::vector<std::string> links;
    bool empty() const
    {
        return racks.empty() && nodes.empty() && gpus.empty() && switches.empty() && links.empty();
    }
    bool operator==(const Failures&) const = default;
};

struct Storage {
    double writeGBps = 0; // aggregate
    double readGBps = 0;
    bool operator==(const Storage&) const = default;
};

struct Reliability {
    double gpuMtbfH = 50000;
    double nodeMtbfH = 25000;
    double switchMtbfH = 200000;
    double restartS = 300;
    double stepJitter = 0.002; // relative standard deviation of one GPU's step time
    bool operator==(const Reliability&) const = default;
};

struct ClusterDesc {
    std::string name;
    GpuSpec gpu;
    // True when the file named a catalog GPU by a plain string; false when it gave an object.
    bool gpuByName = true;
    int racks = 1;
    int nodesPerRack = 1;
    int gpusPerNode = 1;
    int layoutRows = 0; // 0: about the square root of the rack count
    ScaleUp scaleUp;
    ScaleOut scaleOut;
    double virtualization = 0; // fraction of step time added by the VM layer
    Failures failures;
    std::optional<Storage> storage;         // absent: the goodput model's assumption
    std::optional<Reliability> reliability; // absent: the defaults above, said to be assumed
    Extensions extensions;                  // `notes` and `x-*` keys, kept verbatim

    int64_t gpuCount() const { return int64_t(racks) * nodesPerRack * gpusPerNode; }
    int nodeCount() const { return racks * nodesPerRack; }
    int domainSize() const
    {
        return scaleUp.domain == DomainKind::Rack ? nodesPerRack * gpusPerNode : gpusPerNode;
    }
    int domainCount() const { return int(gpuCount() / domainSize()); }
    int rows() const;    // the resolved number of rack rows
    int columns() const; // racks per row (the last row may be shorter)
    double nvlinkGBpsPerDirection() const { return scaleUp.GBpsPerGpu / 2; }
    double nicGBpsPerDirection() const { return scaleOut.GbpsPerGpu / 8; }
    // GPUs in service: every GPU but those of failed racks, nodes and GPUs.
    std::vector<bool> healthyGpus() const;
    int64_t healthyGpuCount() const;
    bool operator==(const ClusterDesc&) const = default;
};

struct Attention {
    AttentionKind kind = AttentionKind::Gqa;
    // Multi-head latent attention: the ranks of the compressed projections and the head dims.
    int qLoraRank = 0; // 0: queries are not compressed
    int kvLoraRank = 0;
    int qkNopeHeadDim = 0;
    int qkRopeHeadDim = 0;
    int vHeadDim = 0;
    // Sliding window: `window` tokens on every `every`-th layer, full attention on the others.
    int window = 0;
    int every = 1;
    bool operator==(const Attention&) const = default;
};

struct Moe {
    int experts = 1;
    int topK = 1;
    int ffnHidden = 1; // per expert
    int sharedExperts = 0;
    int sharedFfnHidden = 0;
    int denseLayers = 0; // leading dense layers
    int denseFfnHidden = 0;
    std::optional<double> capacityFactor; // nothing: dropless
    double imbalance = 1.0;               // tokens on the busiest expert over the mean
    bool operator==(const Moe&) const = default;
};

struct ModelShape {
    std::string name;
    int layers = 1;
    int hidden = 1;
    int ffnHidden = 1;
    int heads = 1;
    int kvHeads = 1;
    int vocab = 1;
    int seqLen = 1;
    bool gatedMlp = false;
    int headDim = 0; // 0: hidden / heads
    int mtpLayers = 0;
    Attention attention;
    std::optional<Moe> moe;

    int resolvedHeadDim() const { return headDim > 0 ? headDim : hidden / heads; }
    bool operator==(const ModelShape&) const = default;
};

struct Parallelism {
    int tp = 1;
    int cp = 1;
    int pp = 1;
    int vp = 1;
    int dp = 0; // 0: derived from the cluster's healthy GPU count
    int ep = 1;
    int etp = 1;
    bool sequenceParallel = false;
    bool distributedOptimizer = false;
    bool fsdp = false;
    Recompute recompute;
    bool operator==(const Parallelism&) const = default;

    int size(Dim d) const;
};

struct Batch {
    int global = 1;
    int micro = 1;
    bool operator==(const Batch&) const = default;
};

struct Measured {
    double stepTimeS = 0;
    std::string source;
    bool operator==(const Measured&) const = default;
};

struct Checkpoint {
    std::optional<int> intervalSteps; // nothing: "auto", the interval that maximizes goodput
    bool async = false;
    bool operator==(const Checkpoint&) const = default;
};

// The part of a cluster a run occupies when several jobs share it (formats.md `allocation`):
// inclusive ranges of rack or node indices, in the order `describe` numbers them.
struct Allocation {
    enum class Unit : uint8_t { Racks, Nodes };
    Unit unit = Unit::Racks;
    std::vector<std::pair<int, int>> ranges; // [first, last], inclusive
    bool operator==(const Allocation&) const = default;
};

struct RunDesc {
    std::string name;
    std::string clusterPath; // as written in the file: relative to the run file
    ModelShape model;
    Precision precision = Precision::BF16;
    Batch batch;
    Parallelism parallelism;
    PlacementOrder placement = kPlacedDims; // innermost first
    std::optional<int> trainingSteps;
    std::optional<Measured> measured;
    std::optional<Checkpoint> checkpoint;
    std::optional<Allocation> allocation; // nothing: the whole cluster
    Extensions extensions;
    bool operator==(const RunDesc&) const = default;

    // dp as given, or derived from the GPU count (0 when it does not divide).
    int dpFor(int64_t gpus) const;
    // Micro-batches each pipeline runs per step: global / (dp x micro).
    int microBatchesFor(int64_t gpus) const;
    // GPUs the run uses: tp x cp x pp x dp.
    int64_t worldSizeFor(int64_t gpus) const;
};

// Whether the run has a dimension at all: the placed ones always, expert parallelism when the
// model has experts. What a run does not have is left out of its reports.
bool usesDim(const RunDesc& run, Dim d);

// "tp, cp, pp, dp": the one text of a placement order, for every view and the command line.
std::string placementText(const PlacementOrder& order);
// The order from words separated by commas (spaces allowed); nothing unless each placed
// dimension is named once.
std::optional<PlacementOrder> placementFromText(std::string_view text);

// What the GPUs of the topology view are coloured by: a parallel dimension's groups, the
// NVLink domain, memory, what each GPU does during the step, or the links by their load.
// MeasuredStep and MeasuredComm colour by a measured profile (each GPU's step against the
// median, and its exposed communication), when the document has one; Job by the job whose
// allocation holds each GPU (several jobs on one cluster).
enum class ColorKind : uint8_t {
    Dimension,
    Domain,
    Memory,
    Activity,
    LinkLoad,
    MeasuredStep,
    MeasuredComm,
    Job
};
// The modes other than the dimensions'.
constexpr auto enumTexts(ColorKind)
{
    return std::array<EnumText<ColorKind>, 7>{
        {{ColorKind::Domain, "domain", "NVLink domain"},
         {ColorKind::Memory, "memory", "memory per GPU"},
         {ColorKind::Activity, "activity", "activity during the step"},
         {ColorKind::LinkLoad, "links", "link load"},
         {ColorKind::MeasuredStep, "measured_step", "measured step"},
         {ColorKind::MeasuredComm, "measured_comm", "measured communication"},
         {ColorKind::Job, "job", "job"}}};
}
struct ColorMode {
    ColorKind kind = ColorKind::Dimension;
    Dim dim = Dim::PP; // for ColorKind::Dimension
    bool operator==(const ColorMode&) const = default;
};
// Every mode, the dimensions' first: "tp", "cp", ..., "domain", "memory", "activity", "links".
std::vector<ColorMode> colorModes();
std::string toString(const ColorMode& mode);
std::string labelOf(const ColorMode& mode);
std::optional<ColorMode> colorModeFromString(std::string_view text);

// What the application shows; kept in sessions and bookmarks.
struct ViewState {
    double zoom = 1.0;
    std::array<double, 2> center{0, 0};
    ColorMode colorBy;
    int highlightRank = -1; // -1: nothing selected
    double timeS = 0;
    double speed = 0.05; // simulated seconds per wall second
    bool playing = false;
    bool operator==(const ViewState&) const = default;
};

struct Bookmark {
    std::string title;
    std::string notes; // speaker notes
    ViewState view;
    bool operator==(const Bookmark&) const = default;
};

struct ClusterRun {
    ClusterDesc cluster;
    RunDesc run;
    bool operator==(const ClusterRun&) const = default;
};

// The GPUs an allocation holds as ranges [first, end) of GPU indices, in order and merged,
// clipped to the cluster (validation refuses ranges past it). Racks index racks and nodes
// nodes, node = rack x nodes_per_rack + node in the rack.
std::vector<std::pair<int64_t, int64_t>> allocatedGpuRanges(const ClusterDesc& cluster,
                                                            const Allocation& allocation);
// The healthy GPUs of the run's allocation: what its dp is derived from. Without an
// allocation, the cluster's healthy GPU count.
int64_t allocatedGpuCount(const ClusterDesc& cluster, const RunDesc& run);
// The GPUs the run's allocation holds, those out of service included; without an allocation,
// the cluster's.
int64_t heldGpuCount(const ClusterDesc& cluster, const RunDesc& run);

struct Session {
    ClusterDesc cluster;
    RunDesc run; // the job the views show in detail
    // The other jobs on the cluster (formats.md "Several jobs on one cluster"), each with its
    // allocation; empty for a session of one run.
    std::vector<RunDesc> jobs;
    std::optional<ClusterRun> compare;
    std::optional<ViewState> view;
    std::vector<Bookmark> bookmarks;
    Extensions extensions;
    bool operator==(const Session&) const = default;
};

// Every job of a session: its run first, then the other jobs in order.
std::vector<RunDesc> sessionRuns(const Session& session);

} // namespace cs
