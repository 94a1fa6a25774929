#pragma once
// How long a GEMM takes on one GPU, from its shape (docs/cost-model.md, "GEMMs").
//
// C[m x n] = A[m x k] B[k x n] is cut into output tiles (tileM x tileN), each computed by one
// SM; the tiles run in waves over the GPU's SMs, so a GEMM one tile past a full wave takes two
// waves, and a tile half outside C costs a whole tile. A tile costs its FLOPs at one SM's share
// of the peak times the architecture's efficiency, plus a fixed part (filling the pipeline,
// writing the tile out) worth `kHalf` steps of the inner dimension: a GEMM with k = kHalf runs at
// half the speed of an endless one. A GEMM whose bytes take longer than its tiles (few rows,
// many weights: an expert that receives few tokens) is memory bound and takes its bytes over
// the HBM bandwidth: the larger of the two is its time (a roofline).

namespace cs {

struct GemmShape {
    double m = 1, n = 1, k = 1; // C is m x n; k the inner dimension
    double flops() const { return 2 * m * n * k; }
};

// The GPU as its GEMMs at one precision see it.
struct GemmDevice {
    double peak = 0; // FLOP/s, dense tensor cores at the precision
    double eff = 0;  // fraction of it a full wave of large tiles reaches (kReferenceK)
    int sms = 0;     // 0: tiles spread evenly, no waves (a GPU outside the catalog)
    double tileM = 128, tileN = 256;
    double kHalf = 0;    // inner dimension whose fixed cost equals its FLOPs
    double memory = 0;   // bytes/s that streaming kernels reach; 0: no roofline
    double inBytes = 2;  // per element of A and B
    double outBytes = 2; // per element of C (BF16)
};

// The inner dimension at which `eff` is what a tile reaches: efficiencies are quoted there, so
// that fitted ones stay comparable across kHalf.
inline constexpr double kReferenceK = 4096;

// Waves of `tiles` output tiles over `sms` SMs (tiles / sms with no SM count).
double wavesOf(double tiles, int sms);
// Output tiles of a GEMM: partial tiles count whole.
double tilesOf(const GemmShape& s, const GemmDevice& d);
double gemmSeconds(const GemmShape& s, const GemmDevice& d);
// `groups` GEMMs of one shape in one kernel (the grouped GEMM of a GPU's experts): their tiles
// share the waves, and every group's weights are read.
double groupedGemmSeconds(double groups, const GemmShape& s, const GemmDevice& d);

} // namespace cs
