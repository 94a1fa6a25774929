#include "calibration.h"

namespace cs {

double Calibration::gemmEfficiency(const std::string& gpu, Precision p) const
{
    for (const GemmEfficiency& e : gemm) {
        if (e.gpu == gpu && e.precision == p)
            return e.efficiency;
    }
    return defaultGemmEfficiency;
}

double Calibration::gemmEfficiency(const std::string& gpu, Precision p, double rows,
                                   double width) const
{
    const double reference =
        1 + gemmHalfRows / kReferenceGemmRows + gemmHalfWidth / kReferenceGemmWidth;
    return gemmEfficiency(gpu, p) * reference / (1 + gemmHalfRows / rows + gemmHalfWidth / width);
}

const Calibration& defaultCalibration()
{
    // Fitted on /work/shared/reference/validation/public.jsonl by the procedure of
    // docs/cost-model.md ("Calibration"): Nelder-Mead over the shared constants below,
    // minimising the MAPE plus any excess of the worst row over 14 %, with each GEMM
    // efficiency refitted inside every step to minimise the absolute errors of the rows of its
    // GPU and precision (golden-section search; on the analytical path inside the search,
    // then once more on the event simulation that validate-runs uses). NVLink efficiency is
    // not fitted: 0.8 is the bus bandwidth NCCL reaches on NVSwitch systems. Other GPUs and
    // precisions take defaultGemmEfficiency.
    static const Calibration c{
        .gemm =
            {
                {"A100", Precision::BF16, 0.777},
                {"H100", Precision::FP8, 0.585},
                {"H200", Precision::FP8, 0.571},
                {"B200", Precision::FP8, 0.469},
                {"GB200", Precision::FP8, 0.457},
                {"GB200", Precision::NVFP4, 0.365},
                {"GB300", Precision::FP8, 0.532},
                {"GB300", Precision::NVFP4, 0.362},
            },
        .defaultGemmEfficiency = 0.5,
        .gemmHalfRows = 1980,
        .gemmHalfWidth = 800,
        .attentionEfficiency = 0.335,
        .memoryEfficiency = 0.69,
        .nvlinkEfficiency = 0.8,
        .scaleOutEfficiency = 0.95,
        .tpOverlap = 0.95,
        .dpContention = 0.23,
    };
    return c;
}

} // namespace cs
