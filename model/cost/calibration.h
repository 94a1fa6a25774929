#pragma once
// The cost model's efficiency constants: the fraction of a datasheet peak that real kernels
// and collectives reach. One GEMM efficiency per GPU and precision, the rest shared; fitted
// on the public measured runs (docs/cost-model.md says how). Never one per run.

#include <string>
#include <vector>

#include "description.h"

namespace cs {

struct GemmEfficiency {
    std::string gpu; // catalog name
    Precision precision = Precision::BF16;
    // Fraction of the dense tensor-core peak at that precision reached by a GEMM of the
    // reference size (kReferenceGemmRows x kReferenceGemmWidth).
    double efficiency = 0;
};

inline constexpr double kReferenceGemmRows = 4096;
inline constexpr double kReferenceGemmWidth = 4096;

struct Calibration {
    std::vector<GemmEfficiency> gemm;
    double defaultGemmEfficiency = 0.45; // a GPU or precision with no measured run
    // Small GEMMs fill the GPU badly: efficiency scales as 1 / (1 + gemmHalfRows / rows +
    // gemmHalfWidth / width), where rows are the tokens of a micro-batch on one GPU and width
    // the hidden size on one GPU (hidden / tp); the table holds it at the reference size.
    double gemmHalfRows = 0;
    double gemmHalfWidth = 0;
    double attentionEfficiency = 0.4; // flash attention, as a fraction of the BF16 peak
    double memoryEfficiency = 0.7;    // elementwise kernels, of the HBM bandwidth
    double nvlinkEfficiency = 0.8;    // bus bandwidth reached by NCCL on NVLink
    double scaleOutEfficiency = 0.8;  // bus bandwidth reached on the NIC
    // Fraction of the TP collectives hidden under the GEMMs they feed (comm overlap).
    double tpOverlap = 0;
    // NCCL kernels under compute take SMs and HBM bandwidth: each second of data-parallel
    // collective hidden under compute slows that compute by this many seconds.
    double dpContention = 0;
    double frameworkMemoryGiB = 4; // CUDA context, NCCL buffers, allocator fragmentation

    // At the reference size.
    double gemmEfficiency(const std::string& gpu, Precision p) const;
    // For a GEMM of `rows` tokens by `width` hidden units on one GPU.
    double gemmEfficiency(const std::string& gpu, Precision p, double rows, double width) const;
};

const Calibration& defaultCalibration();

} // namespace cs
