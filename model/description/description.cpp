#include "description.h"

#include <cmath>

namespace cs {

const char* toString(Precision p)
{
    switch (p) {
    case Precision::BF16:
        return "bf16";
    case Precision::FP8:
        return "fp8";
    case Precision::NVFP4:
        return "nvfp4";
    }
    return "?";
}

const char* toString(DomainKind d)
{
    return d == DomainKind::Rack ? "rack" : "node";
}

const char* toString(FabricKind f)
{
    return f == FabricKind::FatTree ? "fat-tree" : "rail-optimized";
}

const char* toString(Recompute r)
{
    switch (r) {
    case Recompute::None:
        return "none";
    case Recompute::Selective:
        return "selective";
    case Recompute::Full:
        return "full";
    }
    return "?";
}

const char* toString(Dim d)
{
    switch (d) {
    case Dim::TP:
        return "tp";
    case Dim::CP:
        return "cp";
    case Dim::PP:
        return "pp";
    case Dim::DP:
        return "dp";
    }
    return "?";
}

std::optional<Precision> precisionFromString(const std::string& s)
{
    for (Precision p : {Precision::BF16, Precision::FP8, Precision::NVFP4}) {
        if (s == toString(p))
            return p;
    }
    return std::nullopt;
}

std::optional<Dim> dimFromString(const std::string& s)
{
    for (Dim d : kAllDims) {
        if (s == toString(d))
            return d;
    }
    return std::nullopt;
}

double GpuSpec::peakTflops(Precision p) const
{
    switch (p) {
    case Precision::BF16:
        return peakTflopsBf16;
    case Precision::FP8:
        return peakTflopsFp8;
    case Precision::NVFP4:
        return peakTflopsNvfp4;
    }
    return 0;
}

const std::vector<GpuSpec>& gpuCatalog()
{
    // Dense tensor-core peaks of formats.md; 0 where the GPU lacks the precision.
    static const std::vector<GpuSpec> catalog{
        {"A100", 312, 0, 0, 80, 2.0, 600},           {"H100", 989, 1979, 0, 80, 3.35, 900},
        {"H200", 989, 1979, 0, 141, 4.8, 900},       {"B200", 2250, 4500, 9000, 180, 7.7, 1800},
        {"GB200", 2450, 4900, 9800, 186, 8.0, 1800}, {"GB300", 2450, 4900, 14700, 279, 8.0, 1800},
    };
    return catalog;
}

const GpuSpec* findCatalogGpu(const std::string& name)
{
    for (const GpuSpec& gpu : gpuCatalog()) {
        if (gpu.name == name)
            return &gpu;
    }
    return nullptr;
}

int ClusterDesc::rows() const
{
    if (layoutRows > 0)
        return layoutRows;
    return std::max(1, int(std::lround(std::sqrt(double(racks)))));
}

int ClusterDesc::columns() const
{
    const int r = rows();
    return (racks + r - 1) / r;
}

int Parallelism::size(Dim d) const
{
    switch (d) {
    case Dim::TP:
        return tp;
    case Dim::CP:
        return cp;
    case Dim::PP:
        return pp;
    case Dim::DP:
        return dp;
    }
    return 0;
}

int RunDesc::dpFor(int64_t gpus) const
{
    if (parallelism.dp > 0)
        return parallelism.dp;
    const int64_t modelParallel = int64_t(parallelism.tp) * parallelism.cp * parallelism.pp;
    if (modelParallel <= 0 || gpus <= 0 || gpus % modelParallel != 0)
        return 0;
    return int(gpus / modelParallel);
}

int RunDesc::microBatchesFor(int64_t gpus) const
{
    const int64_t perStep = int64_t(dpFor(gpus)) * batch.micro;
    if (perStep <= 0)
        return 0;
    return int(batch.global / perStep);
}

const std::vector<std::string>& colorByModes()
{
    static const std::vector<std::string> modes{"tp",     "cp",     "pp",      "dp",
                                                "domain", "memory", "activity"};
    return modes;
}

} // namespace cs
