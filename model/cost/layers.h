#pragma once
// What one transformer layer costs on one GPU for one micro-batch: its GEMMs, attention,
// elementwise kernels and fixed per-layer costs, the collectives inside it, the parameters it
// holds and the activations it keeps for the backward pass. A model has at most a few kinds of
// layer (dense or mixture-of-experts, full or sliding-window attention); each kind is costed
// once and the pipeline chunks sum their layers (workload.cpp).

#include "collectives.h"
#include "description.h"
#include "rates.h"
#include "workload.h"

namespace cs {

struct Calibration;

struct LayerKind {
    bool moe = false;     // experts instead of a dense MLP
    bool sliding = false; // sliding-window attention
    bool operator==(const LayerKind&) const = default;
};
// Which layers of a model are of which kind: leading dense layers then experts, sliding-window
// attention on every n-th layer. Counts in a range of layers are closed-form, so that a
// pipeline chunk's layers are summed by kind without a pass over them.
struct LayerKinds {
    int layers = 0;
    int denseLayers = 0;  // before the first expert layer: all of them in a dense model
    int slidingEvery = 0; // 0: no sliding-window layer
    bool operator==(const LayerKinds&) const = default;

    LayerKind kindAt(int index) const;
    int count(LayerKind kind, int first, int end) const; // of the layers [first, end)
    std::vector<LayerKind> present() const;              // by first layer
};
LayerKinds layerKindsOf(const ModelShape& model);

// Everything a layer's cost depends on besides its kind.
struct LayerContext {
    const RunDesc& run;
    const Workload& w;
    const Rates& rates;
    const Calibration& cal;
};

struct LayerCosts {
    Parts forward, backward;
    PerDim<double> comm;        // all of it, hidden or not, forward and backward
    double denseParams = 0;     // per GPU: reduced over data x context parallel ranks
    double expertParams = 0;    // per GPU: reduced over the expert data-parallel ranks
    double activationBytes = 0; // saved for backward, per micro-batch
    double fullLayerBytes = 0;  // everything one layer saves without recompute
    double modelFlops = 0;      // forward, per micro-batch, per GPU, active parameters only
};

LayerCosts layerCosts(const LayerContext& ctx, LayerKind kind);

// A layer's time when the CPU takes `host` to launch it and the GPU's last `gpuAfterWait`
// seconds of it cannot start before the launches end (the wait for token counts of dropless
// routing drains the GPU's queue); otherwise the GPU runs behind the launches.
double launchBoundSeconds(double gpu, double host, double gpuAfterWait);

// The chance that a token's top-k experts miss one given NVLink domain of the `domains` an
// expert-parallel group spans, the experts spread evenly over them. With group-limited routing
// (`limit`) they come from limit->topK of the groups; a domain holds whole groups, or a group
// spans whole domains (the token's experts spread evenly over its groups). Other shapes are
// taken as unlimited.
double missesDomain(double domains, int topK, const std::optional<RouterGroups>& limit);

// The copies of one token an expert-parallel group's dispatch (or combine) sends from a GPU,
// over NVLink and across NVLink domains (docs/cost-model.md, "Mixture of experts"). Megatron-
// Core's alltoall dispatcher sends one for each of the token's experts straight to the expert's
// GPU. Its flex dispatcher (DeepEP, HybridEP; `flex`) sends one to each other domain that holds
// one of the token's experts and one over NVLink to each other GPU that holds one, whether the
// GPU is in the sender's domain or the token was forwarded there (at most: a domain's first
// receiver may be a target itself).
struct AllToAllCopies {
    double nvlink = 0;
    double fabric = 0;
};
AllToAllCopies allToAllCopies(const GroupShape& shape, int topK,
                              const std::optional<RouterGroups>& limit, bool flex);

} // namespace cs
