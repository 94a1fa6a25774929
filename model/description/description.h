#pragma once
// The cluster, run and session descriptions of formats.md, as plain values.
// Every optional field of the file format is resolved to its default here, so a
// description written back out (toJson) and read again compares equal.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cs {

enum class Precision { BF16, FP8, NVFP4 };
enum class DomainKind { Node, Rack };
enum class FabricKind { RailOptimized, FatTree };
enum class Recompute { None, Selective, Full };
// The four parallel dimensions; the values index arrays of per-dimension data.
enum class Dim { TP = 0, CP = 1, PP = 2, DP = 3 };
constexpr std::array<Dim, 4> kAllDims{Dim::TP, Dim::CP, Dim::PP, Dim::DP};

const char* toString(Precision p);
const char* toString(DomainKind d);
const char* toString(FabricKind f);
const char* toString(Recompute r);
const char* toString(Dim d); // "tp", "cp", "pp", "dp"
std::optional<Precision> precisionFromString(const std::string& s);
std::optional<Dim> dimFromString(const std::string& s);

struct GpuSpec {
    std::string name;
    double peakTflopsBf16 = 0;
    double peakTflopsFp8 = 0;   // 0: the GPU has no FP8 tensor cores
    double peakTflopsNvfp4 = 0; // 0: the GPU has no FP4 tensor cores
    double hbmGiB = 0;
    double hbmTBps = 0;
    double nvlinkGBps = 0; // per GPU, both directions together

    double peakTflops(Precision p) const;
    bool operator==(const GpuSpec&) const = default;
};

// The built-in catalog of formats.md.
const std::vector<GpuSpec>& gpuCatalog();
const GpuSpec* findCatalogGpu(const std::string& name);

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
    double oversubscription = 1.0;
    bool operator==(const FabricTopology&) const = default;
};

struct ScaleOut {
    std::string name;
    double GbpsPerGpu = 0; // one direction
    double latencyUs = 5.0;
    FabricTopology topology;
    bool operator==(const ScaleOut&) const = default;
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
    // `notes` and `x-*` keys, kept verbatim so a round trip preserves them.
    nlohmann::json extensions = nlohmann::json::object();

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
    bool operator==(const ClusterDesc&) const = default;
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
    bool operator==(const ModelShape&) const = default;
};

struct Parallelism {
    int tp = 1;
    int cp = 1;
    int pp = 1;
    int vp = 1;
    int dp = 0; // 0: derived from the cluster's GPU count
    bool sequenceParallel = false;
    bool distributedOptimizer = false;
    Recompute recompute = Recompute::None;
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

struct RunDesc {
    std::string name;
    std::string clusterPath; // as written in the file: relative to the run file
    ModelShape model;
    Precision precision = Precision::BF16;
    Batch batch;
    Parallelism parallelism;
    std::array<Dim, 4> placement{Dim::TP, Dim::CP, Dim::PP, Dim::DP}; // innermost first
    std::optional<int> trainingSteps;
    std::optional<Measured> measured;
    nlohmann::json extensions = nlohmann::json::object();
    bool operator==(const RunDesc&) const = default;

    // dp as given, or derived from the GPU count (0 when it does not divide).
    int dpFor(int64_t gpus) const;
    // Micro-batches each pipeline runs per step: global / (dp x micro).
    int microBatchesFor(int64_t gpus) const;
};

// What the application shows; kept in sessions and bookmarks.
struct ViewState {
    double zoom = 1.0;
    std::array<double, 2> center{0, 0};
    std::string colorBy = "pp"; // tp, cp, pp, dp, domain, memory, activity
    int highlightRank = -1;     // -1: nothing selected
    double timeS = 0;
    double speed = 0.05; // simulated seconds per wall second
    bool playing = false;
    bool operator==(const ViewState&) const = default;
};
const std::vector<std::string>& colorByModes();

struct Bookmark {
    std::string title;
    ViewState view;
    bool operator==(const Bookmark&) const = default;
};

struct ClusterRun {
    ClusterDesc cluster;
    RunDesc run;
    bool operator==(const ClusterRun&) const = default;
};

struct Session {
    ClusterDesc cluster;
    RunDesc run;
    std::optional<ClusterRun> compare;
    std::optional<ViewState> view;
    std::vector<Bookmark> bookmarks;
    nlohmann::json extensions = nlohmann::json::object();
    bool operator==(const Session&) const = default;
};

} // namespace cs
