#include "description.h"

#include <algorithm>
#include <cmath>

#include "text.h"

namespace cs {

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

double hostCopyGBps(const GpuSpec& gpu, HostCopy direction)
{
    if (gpu.name == "GB200" || gpu.name == "GB300") {
        // NVLink-C2C carries 900 GB/s both ways together between the Grace CPU and both its
        // GPUs (225 GB/s a GPU a direction; Grace's LPDDR5X, 512 GB/s for both, does not bind).
        // Copies reach 83 % of a direction to the GPU and 66 % from it: 375 and 297 GB/s of
        // 450, measured on GH200's C2C (KTH, "Harnessing Integrated CPU-GPU System Memory for
        // HPC: a first look into Grace Hopper", 2024).
        constexpr double kLinkGBps = 900.0 / 2 / 2;
        return kLinkGBps * (direction == HostCopy::ToHost ? 297.0 / 450 : 375.0 / 450);
    }
    // PCIe x16, one direction (Gen4 on the A100, Gen5 after it), at 80 % of the link.
    constexpr double kPcieEfficiency = 0.8;
    return kPcieEfficiency * (gpu.name == "A100" ? 32 : 64);
}

const std::vector<GpuSpec>& gpuCatalog()
{
    // Dense tensor-core peaks of formats.md; 0 where the GPU lacks the precision.
    // SMs: NVIDIA's A100 (108) and H100 (132, GH100 in SXM5; H200 the same die) architecture
    // whitepapers; B200 148 (74 of 80 on each of two dies, Chips and Cheese, "Nvidia's B200",
    // 2025). The Grace parts enable more of the same dies: GB200 and GB300 report 152 SMs to
    // CUDA, B300 148, as public kernel tuning notes record ("B200 (sm_100a, 148 SMs)", "GB300
    // (sm_103a, 152 SMs)", "on GB200 (152 SMs) ... on B300 (148 SMs)"); 160 is Blackwell Ultra's
    // full die (NVIDIA, "Inside NVIDIA Blackwell Ultra", 2025), not what a GB300 enables. Tiles: an
    // SM computes a 128 x 256 output tile at a time in the large-GEMM kernels of cuBLAS and CUTLASS
    // on all four (CUTLASS's default wgmma tile on Hopper; on Blackwell a 2-SM UMMA of 256 x 256 is
    // 128 x 256 an SM; Ampere's 256 x 128 is the same area). FLOPs per exponential: dense BF16
    // FLOPs a clock an SM (2,048 on the A100, 4,096 on Hopper, 8,192 on Blackwell: the peaks over
    // SMs and clock) over the exponentials of its special function units, 16 a clock (CUDA C++
    // Programming Guide, arithmetic instruction throughput; FlashAttention-4, 2026, for Hopper and
    // Blackwell) and 32 on Blackwell Ultra ("Making Softmax More Efficient with NVIDIA Blackwell
    // Ultra", NVIDIA, 2026: twice Blackwell's).
    static const std::vector<GpuSpec> catalog{
        {"A100", 312, 0, 0, 80, 2.0, 600, "Ampere", 108, 128},
        {"H100", 989, 1979, 0, 80, 3.35, 900, "Hopper", 132, 256},
        {"H200", 989, 1979, 0, 141, 4.8, 900, "Hopper", 132, 256},
        {"B200", 2250, 4500, 9000, 180, 7.7, 1800, "Blackwell", 148, 512},
        {"GB200", 2450, 4900, 9800, 186, 8.0, 1800, "Blackwell", 152, 512},
        {"GB300", 2450, 4900, 14700, 279, 8.0, 1800, "Blackwell Ultra", 152, 256},
        {"B300", 2250, 4500, 13500, 279, 8.0, 1800, "Blackwell Ultra", 148, 256},
    };
    return catalog;
}

std::string catalogNames()
{
    std::vector<std::string> names;
    for (const GpuSpec& gpu : gpuCatalog())
        names.push_back(gpu.name);
    return wordList(names, ", ");
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
    case Dim::EP:
        return ep;
    }
    return 0;
}

bool Recompute::recomputes(RecomputeModule m) const
{
    switch (mode) {
    case RecomputeMode::None:
        return false;
    case RecomputeMode::Selective:
        return m == RecomputeModule::CoreAttn;
    case RecomputeMode::Full:
        return true;
    case RecomputeMode::Modules:
        return (modules >> unsigned(m)) & 1u;
    }
    return false;
}

std::string toString(const Recompute& r)
{
    if (r.mode != RecomputeMode::Modules)
        return cs::toString(r.mode);
    std::string text;
    for (RecomputeModule m : enumValues<RecomputeModule>()) {
        if (r.recomputes(m))
            text += (text.empty() ? "" : "+") + std::string(cs::toString(m));
    }
    return text;
}

double FabricTopology::oversubscriptionAt(int boundary) const
{
    if (oversubscription.empty())
        return 1.0;
    return oversubscription[std::min(size_t(std::max(0, boundary)), oversubscription.size() - 1)];
}

namespace {

// Ranges [first, end), sorted and merged.
std::vector<std::pair<int64_t, int64_t>> merged(std::vector<std::pair<int64_t, int64_t>> ranges)
{
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const auto& range : ranges) {
        if (!out.empty() && range.first <= out.back().second)
            out.back().second = std::max(out.back().second, range.second);
        else
            out.push_back(range);
    }
    return out;
}

// The GPUs out of service as ranges [first, end), merged and in order: the failure lists are
// short while the cluster may hold 131,072 GPUs, so counting walks the ranges, not the GPUs.
std::vector<std::pair<int64_t, int64_t>> failedGpuRanges(const ClusterDesc& c)
{
    std::vector<std::pair<int64_t, int64_t>> ranges;
    const int64_t perRack = int64_t(c.nodesPerRack) * c.gpusPerNode;
    auto add = [&](int64_t first, int64_t count) {
        const int64_t begin = std::max<int64_t>(first, 0);
        const int64_t end = std::min(first + count, c.gpuCount());
        if (begin < end)
            ranges.emplace_back(begin, end);
    };
    for (int r : c.failures.racks)
        add(r * perRack, perRack);
    for (int n : c.failures.nodes)
        add(int64_t(n) * c.gpusPerNode, c.gpusPerNode);
    for (int g : c.failures.gpus)
        add(g, 1);
    return merged(std::move(ranges));
}

} // namespace

std::vector<std::pair<int64_t, int64_t>> allocatedGpuRanges(const ClusterDesc& c,
                                                            const Allocation& allocation)
{
    const int64_t perUnit =
        int64_t(c.gpusPerNode) * (allocation.unit == Allocation::Unit::Racks ? c.nodesPerRack : 1);
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const auto& [first, last] : allocation.ranges) {
        const int64_t begin = std::max<int64_t>(first, 0) * perUnit;
        const int64_t end = std::min((int64_t(last) + 1) * perUnit, c.gpuCount());
        if (begin < end)
            ranges.emplace_back(begin, end);
    }
    return merged(std::move(ranges));
}

int64_t allocatedGpuCount(const ClusterDesc& cluster, const RunDesc& run)
{
    if (!run.allocation)
        return cluster.healthyGpuCount();
    // Both lists are sorted and merged: one walk subtracts the failed part of each range.
    const auto failed = failedGpuRanges(cluster);
    auto out = failed.begin();
    int64_t healthy = 0;
    for (const auto& [first, end] : allocatedGpuRanges(cluster, *run.allocation)) {
        healthy += end - first;
        while (out != failed.end() && out->second <= first)
            ++out;
        for (auto f = out; f != failed.end() && f->first < end; ++f)
            healthy -= std::min(end, f->second) - std::max(first, f->first);
    }
    return healthy;
}

int64_t heldGpuCount(const ClusterDesc& cluster, const RunDesc& run)
{
    if (!run.allocation)
        return cluster.gpuCount();
    int64_t held = 0;
    for (const auto& [first, end] : allocatedGpuRanges(cluster, *run.allocation))
        held += end - first;
    return held;
}

std::vector<RunDesc> sessionRuns(const Session& session)
{
    std::vector<RunDesc> runs{session.run};
    runs.insert(runs.end(), session.jobs.begin(), session.jobs.end());
    return runs;
}

std::vector<bool> ClusterDesc::healthyGpus() const
{
    std::vector<bool> healthy(size_t(gpuCount()), true);
    for (const auto& [first, end] : failedGpuRanges(*this))
        std::fill(healthy.begin() + first, healthy.begin() + end, false);
    return healthy;
}

int64_t ClusterDesc::healthyGpuCount() const
{
    int64_t healthy = gpuCount();
    for (const auto& [first, end] : failedGpuRanges(*this))
        healthy -= end - first;
    return healthy;
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

int64_t RunDesc::worldSizeFor(int64_t gpus) const
{
    return int64_t(parallelism.tp) * parallelism.cp * parallelism.pp * dpFor(gpus);
}

std::vector<ColorMode> colorModes()
{
    std::vector<ColorMode> modes;
    for (Dim d : kAllDims)
        modes.push_back({ColorKind::Dimension, d});
    for (const EnumText<ColorKind>& other : enumTexts(ColorKind{}))
        modes.push_back({other.value, Dim::PP});
    return modes;
}

std::string toString(const ColorMode& mode)
{
    if (mode.kind == ColorKind::Dimension)
        return std::string(dimInfo(mode.dim).key);
    return cs::toString(mode.kind);
}

std::string labelOf(const ColorMode& mode)
{
    if (mode.kind == ColorKind::Dimension)
        return std::string(dimInfo(mode.dim).shortLabel) +
               (dimInfo(mode.dim).coloursByCoordinate ? " stage" : " group");
    return std::string(cs::labelOf(mode.kind));
}

std::optional<ColorMode> colorModeFromString(std::string_view text)
{
    for (const ColorMode& mode : colorModes())
        if (toString(mode) == text)
            return mode;
    return std::nullopt;
}

bool usesDim(const RunDesc& run, Dim d)
{
    return dimInfo(d).placed || run.model.moe.has_value();
}

std::string placementText(const PlacementOrder& order)
{
    std::vector<std::string> words;
    for (Dim d : order)
        words.emplace_back(toString(d));
    return wordList(words, ", ");
}

std::optional<PlacementOrder> placementFromText(std::string_view text)
{
    PlacementOrder order{};
    size_t count = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find(',', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view word = text.substr(pos, end - pos);
        while (!word.empty() && word.front() == ' ')
            word.remove_prefix(1);
        while (!word.empty() && word.back() == ' ')
            word.remove_suffix(1);
        const std::optional<Dim> dim = enumFromString<Dim>(word);
        if (!dim || !dimInfo(*dim).placed || count == order.size() ||
            std::find(order.begin(), order.begin() + long(count), *dim) !=
                order.begin() + long(count))
            return std::nullopt;
        order[count++] = *dim;
        pos = end + 1;
    }
    if (count != order.size())
        return std::nullopt;
    return order;
}

} // namespace cs
