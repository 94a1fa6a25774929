#include "rates.h"

namespace cs {

double weightBytesOf(Precision p)
{
    switch (p) {
    case Precision::BF16:
        return 2;
    case Precision::FP8:
        return 1;
    case Precision::NVFP4:
        return 0.5 + 1.0 / 16;
    }
    return 2;
}

double quantizedBytesOf(const RunDesc& run, const GpuSpec& gpu, Framework framework)
{
    if (run.precision == Precision::BF16)
        return 0;
    constexpr double kMxBlock = 32; // elements one MXFP8 scale (a byte, E8M0) covers
    const bool mx = fp8BlockScalingOf(run, gpu, framework);
    const double copy = weightBytesOf(run.precision) + (mx ? 1 / kMxBlock : 0);
    const bool perTensorOnBlackwell =
        run.precision == Precision::FP8 && !mx && gpu.peakTflopsNvfp4 > 0;
    return (perTensorOnBlackwell ? 1 : 2) * copy;
}

Rates resolveRates(const ClusterDesc& cluster, const RunDesc& run, const Calibration& cal,
                   Workload& w)
{
    const GpuSpec& gpu = cluster.gpu;
    double peak = gpu.peakTflops(run.precision);
    if (peak <= 0)
        peak = gpu.peakTflopsBf16;
    w.peakFlopsPerGpu = peak * 1e12;
    Rates r;
    // MXFP8's grouped kernels improved with the 2026 framework's full-iteration recipes.
    w.wholeStepGraph = fullIterationRecipe(run, gpu, w.framework);
    w.allToAllOverlap = allToAllOverlapOf(run, gpu, w.framework);
    w.expertBiasApart = biasedLinearsOf(run, gpu, w.framework) && !w.wholeStepGraph;
    w.gluClampApart = gluClampOf(run, gpu, w.framework) && !w.wholeStepGraph;
    w.unfusedRope = unfusedRopeOf(run, gpu, w.framework);
    w.teCrossEntropy = teCrossEntropyOf(run, gpu, w.framework);
    w.tpExposed = tpCommOverlapOf(run, gpu, w.framework) ? 1 - cal.tpOverlap : 1;
    w.routerGroups = routerGroupsOf(run);
    w.flexDispatcher = flexDispatcherOf(run, gpu, w.framework);
    w.routerGraph = routerGraphOf(run, gpu, w.framework);
    w.attentionGraph = attentionGraphOf(run, gpu, w.framework);
    w.offloadLayers = activationOffloadLayersOf(run);
    w.toHostRate = hostCopyGBps(gpu, HostCopy::ToHost) * 1e9;
    w.fromHostRate = hostCopyGBps(gpu, HostCopy::FromHost) * 1e9;
    r.bf16Peak = gpu.peakTflopsBf16 * 1e12;
    const double attentionPeak =
        fp8AttentionOf(run, gpu, w.framework) ? gpu.peakTflopsFp8 * 1e12 : r.bf16Peak;
    r.attention = attentionPeak * cal.attentionEfficiency;
    if (gpu.flopsPerExponential > 0)
        r.exponentials = r.bf16Peak / gpu.flopsPerExponential * cal.attentionEfficiency;
    r.memory = gpu.hbmTBps * 1e12 * cal.memoryEfficiency;
    const auto device = [&](double peakFlops, Precision p, double eff) {
        return GemmDevice{
            peakFlops,         eff,      gpu.sms,          double(gpu.tileM), double(gpu.tileN),
            cal.gemmHalfWidth, r.memory, weightBytesOf(p), kActivationBytes};
    };
    r.gemm = device(w.peakFlopsPerGpu, run.precision, cal.gemmEfficiency(gpu, run.precision));
    r.gemmBf16 = device(r.bf16Peak, Precision::BF16, cal.gemmEfficiency(gpu, Precision::BF16));
    const bool fp8Head = fp8OutputProjOf(run, gpu, w.framework);
    r.head = fp8Head ? r.gemm : r.gemmBf16;
    r.grouped = device(w.peakFlopsPerGpu, run.precision,
                       cal.groupedGemmEfficiency(gpu, run.precision) *
                           (w.wholeStepGraph ? cal.grouped2026Factor : 1));
    r.weightBytes = weightBytesOf(run.precision);
    // A cast reads BF16 and writes the narrow copies.
    const double quantized = quantizedBytesOf(run, gpu, w.framework);
    r.castBytes = quantized > 0 ? kActivationBytes + quantized : 0;
    r.headCastBytes = fp8Head ? r.castBytes : 0;
    return r;
}

} // namespace cs
