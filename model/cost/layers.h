#pragma once
// What one transformer layer costs on one GPU for one micro-batch: its GEMMs, attention,
// elementwise kernels and fixed per-layer costs, the collectives inside it, the parameters it
// holds and the activations it keeps for the backward pass. A model has at most a few kinds of
// layer (dense or mixture-of-experts, full or sliding-window attention); each kind is costed
// once and the pipeline chunks sum their layers (workload.cpp).

#include "collectives.h"
#include "description.h"
#include "layerkinds.h"
#include "rates.h"
#include "workload.h"

namespace cs {

struct Calibration;

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

} // namespace cs
