#pragma once
// What one GPU reaches for a run: its GEMMs at each precision, flash attention, HBM, from the
// catalog's peaks and the calibration's efficiencies; and the recipe switches those rates
// follow from (docs/cost-model.md, "Rates of one GPU").

#include "calibration.h"
#include "description.h"
#include "gemm.h"
#include "workload.h"

namespace cs {

// Throughputs of one GPU as the calibration says they are reached.
struct Rates {
    GemmDevice gemm;          // GEMMs at the run's precision
    GemmDevice gemmBf16;      // BF16 GEMMs (the router)
    GemmDevice head;          // the LM head: BF16, or the run's MXFP8 (fp8OutputProjOf)
    GemmDevice grouped;       // expert GEMMs (grouped kernels) at the run's precision
    double bf16Peak = 0;      // FLOP/s
    double attention = 0;     // FLOP/s of flash attention
    double exponentials = 0;  // a second, in flash attention's softmax; 0: no bound
    double memory = 0;        // bytes/s reached by elementwise and streaming kernels
    double weightBytes = 0;   // HBM bytes per parameter per micro-batch outside the GEMM FLOPs
    double castBytes = 0;     // per element cast to the GEMM precision (0 in BF16)
    double headCastBytes = 0; // the same for the LM head's inputs (0 where it runs in BF16)
};

// Bytes of one weight in the GEMM precision: NVFP4 holds 4 bits and one FP8 scale per 16.
double weightBytesOf(Precision p);

// Bytes written per element when a GEMM input is quantized to the run's precision. A tensor
// that one format cannot serve both ways is written twice: Hopper's FP8 GEMMs take only the
// TN layout, so Transformer Engine writes a transpose too; MXFP8 and NVFP4 scale blocks along
// one axis, so the backward's GEMMs need a second copy scaled along the other. Blackwell's
// per-tensor FP8 reads one copy both ways. 0 in BF16, which casts nothing.
double quantizedBytesOf(const RunDesc& run, const GpuSpec& gpu, Framework framework);

// The run's rates on its GPU; sets the recipe switches of `w` they depend on (whole-step CUDA
// graph, all-to-all overlap, the dispatcher, offloading, host copies).
Rates resolveRates(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                   Workload& w);

} // namespace cs
