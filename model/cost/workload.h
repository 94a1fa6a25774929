#pragma once
// The work of one step before any timing: what each op (a chunk of layers for one
// micro-batch, forward or backward) costs on each pipeline stage, what each pipeline hop
// sends, what the data-parallel group reduces and gathers, the optimizer and the memory.
// simulation.cpp times it as a schedule; closedform.cpp bounds it for the search.

#include <cstdint>
#include <memory>
#include <vector>

#include "calibration.h"
#include "collectives.h"
#include "description.h"
#include "evaluation.h"
#include "fabricfactors.h"
#include "topology.h"

namespace cs {

// Bytes of one activation, its gradient, or a GEMM's output: BF16 whatever the GEMM precision.
inline constexpr double kActivationBytes = 2;

// Time split of one op as the breakdown names it.
struct Parts {
    double compute = 0;
    double recompute = 0;
    PerDim<double> comm;   // exposed communication inside the op (tp, cp, ep)
    PerDim<double> hidden; // the rest of it, which runs under the op's compute

    double total() const;
    Parts& operator+=(const Parts& o) { return addTimes(o, 1); }
    Parts times(double k) const { return Parts{}.addTimes(*this, k); }
    // Adds k times `o`: a chunk sums its layers of each kind (workload.cpp) for every layout a
    // search tries, so this stays in line.
    Parts& addTimes(const Parts& o, double k)
    {
        compute += k * o.compute;
        recompute += k * o.recompute;
        for (size_t d = 0; d < comm.values.size(); ++d) {
            comm.values[d] += k * o.comm.values[d];
            hidden.values[d] += k * o.hidden.values[d];
        }
        return *this;
    }
};

// How a dimension's groups sit on NVLink domains, as a two-level group.
struct GroupShape {
    int perDomain = 1;
    int domains = 1;
    bool crossesDomains() const { return domains > 1; }
};

struct DimComm {
    GroupShape shape;
    // Its inner and outer speeds are the links' times the contention factors of its routed
    // flows on NVLink and across domains (fabricfactors.h).
    HierarchicalGroup group;
    bool scaleOut = false;
};

struct Links {
    LinkSpeed nvlink;
    LinkSpeed fabric;                             // a NIC's rate, before contention on the fabric
    bool nvls = false;                            // NVLink SHARP for all-reduces in a domain
    LinkClass fabricClass = LinkClass::ScaleOut1; // neighbours: through the leaf
    LinkClass spanClass = LinkClass::ScaleOut1;   // groups spanning the cluster
    // The factors of the run's routed flows; nothing when the fabric slows no flow below its
    // NICs' rate (full bisection, adaptive routing, nothing out of service).
    std::shared_ptr<const FabricFactors> factors;
};

struct Workload {
    int p = 1, v = 1, m = 1, t = 1, c = 1, d = 1;
    int ep = 1, etp = 1;                    // experts are split over ep x etp GPUs
    std::vector<int> layers;                // per virtual stage, index chunk * p + stage
    std::vector<Parts> forward, backward;   // per op, index stage * v + chunk
    std::vector<PerDim<double>> commPerOp;  // all communication of one op pair (fwd + bwd)
    std::vector<double> send;               // per hop s -> s+1
    double sendBytes = 0;                   // what one pipeline send carries
    std::vector<bool> sendScaleOut;         // per hop
    std::vector<double> paramsOfChunk;      // dense, per GPU, index stage * v + chunk (with ends)
    std::vector<double> layerParamsOfChunk; // dense, in the chunk's layers
    std::vector<double> expertParamsOfChunk;
    std::vector<double> activationBytesOfChunk; // kept for backward, per micro-batch
    PerDim<DimComm> dims; // the groups of each dimension; dp's includes cp (gradients)
    DimComm expertData;   // the groups expert gradients are reduced over
    int expertDataWidth = 1;
    Links links;
    Framework framework = Framework::MegatronCore2026;
    // The 2026 recipes capture the whole iteration in one CUDA graph, but only for MXFP8 on
    // Blackwell (the GPUs with FP4); their other recipes launch layer by layer.
    bool wholeStepGraph = false;
    bool allToAllOverlap = false; // the expert all-to-all under another micro-batch's compute
    // The experts' second bias is added after their GEMM, expert by expert (biasedLinearsOf);
    // the full-iteration recipes' fused expert MLP adds it inside.
    bool expertBiasApart = false;
    bool gluClampApart = false;  // the same for the GLU's clamp (gluClampOf)
    bool unfusedRope = false;    // rotary embeddings outside the fused kernel (unfusedRopeOf)
    bool teCrossEntropy = false; // the loss in Transformer Engine's kernels (teCrossEntropyOf)
    bool flexDispatcher = false; // a token once per GPU and domain, not once per expert
    bool routerGraph = false;    // router and preprocessing replayed as CUDA graphs (routerGraphOf)
    bool attentionGraph = false; // and attention (attentionGraphOf)
    double tpExposed = 1;        // the share of the TP collectives left on the critical path
    std::optional<RouterGroups> routerGroups;
    bool distributedOptimizer = false;
    bool fsdp = false;
    bool overlapGradReduce = true; // buckets reduced as the backward releases them
    double gradBytesPerParam = 2;  // gradients are reduced in BF16 (FP32 on Megatron-LM's defaults)
    double gatherBytesPerParam = 2; // parameters are gathered in the GEMM precision
    int offloadLayers = 0;          // per chunk, activations kept in host memory
    double toHostRate = 0;          // bytes/s a GPU copies to host memory (offloading)
    double fromHostRate = 0;        // and back (reloading)
    std::vector<double> optimizerS; // per stage
    std::vector<double> dpHbmS;     // per stage: its once-a-step DP collectives' HBM time, s
    std::vector<double> memoryGiB;  // per stage
    MemoryParts busiestMemory;      // the parts of the most loaded stage's
    double modelFlopsPerStep = 0;
    double tokensPerStep = 0;
    double virtualization = 0;
    double dpContention = 0;
    double peakFlopsPerGpu = 0;
    int64_t gpus = 1; // GPUs the run uses

    size_t op(int stage, int chunk) const { return size_t(stage) * v + chunk; }
    int layersOf(int stage, int chunk) const { return layers[size_t(chunk) * p + stage]; }
    const DimComm& dp() const { return dims[Dim::DP]; }
    // The model's parameters: the dense ones of every stage split over tp, the experts' over
    // ep x etp.
    double modelParams() const
    {
        double dense = 0, expert = 0;
        for (size_t i = 0; i < paramsOfChunk.size(); ++i) {
            dense += paramsOfChunk[i];
            expert += expertParamsOfChunk[i];
        }
        return dense * t + expert * ep * etp;
    }

    // Reducing gradients (all-reduce, or reduce-scatter with a sharded optimizer) of dense and
    // expert parameters, each over its own group; gathering the parameters back.
    double gradientReduceS(double denseBytes, double expertBytes) const;
    double parameterGatherS(double denseBytes, double expertBytes) const;
    // The compute a stage loses to the DP collectives hidden under it (`total - exposed` of
    // `total` seconds): their kernels' SMs, `dpContention` a second, and their HBM traffic.
    double dpContentionS(int stage, double total, double exposed) const;
    // The farthest link tier a dimension's collectives use.
    LinkClass linkOf(Dim d) const;
    // Whether the pipeline hop between two stages crosses NVLink domains.
    bool hopScaleOut(int from, int to) const;
};

// The run must be valid on the cluster (checkRunOnCluster reports nothing). `fabric`: the
// contention factors to use in place of the run's own (EvalOptions::fabric).
Workload buildWorkload(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                       std::shared_ptr<const FabricFactors> fabric = nullptr);
// The same into `w`, whatever it held, reusing its buffers: a search builds one per layout.
void rebuildWorkload(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                     Workload& w, std::shared_ptr<const FabricFactors> fabric = nullptr);

// What the compute waits for `offloaded` (0 to layers - 1) of a chunk's `layers` layers whose
// activations each take `copyS` to copy to or from host memory, against `layerS` of compute a
// layer, as Transformer Engine spreads the copies (workload.cpp, offloadActivations).
double offloadWaitS(double copyS, double layerS, int layers, int offloaded);

} // namespace cs
