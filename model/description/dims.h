#pragma once
// The parallel dimensions: one table that placement, groups, the cost model's breakdown, the
// search, colouring and every view iterate. Adding a dimension is one entry here (and its
// costs in cost/).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "enumtext.h"

namespace cs {

// The values index arrays of per-dimension data (PerDim).
enum class Dim : uint8_t { TP, CP, PP, DP, EP };

struct DimInfo {
    Dim dim;
    std::string_view key;        // the word in files, on the command line: "tp"
    std::string_view shortLabel; // "TP"
    std::string_view label;      // "tensor parallel"
    std::string_view exposedKey; // its exposed communication in the breakdown: "tp_exposed"
    // Laid out by the run's `placement`; expert parallelism instead folds over the tp x cp x dp
    // ranks of a pipeline stage.
    bool placed;
    // Its groups run collectives that split into an NVLink part and a fabric part (pipeline
    // sends go point to point, on one link or the other).
    bool collective;
    // Colouring GPUs by it shows each rank's coordinate (the pipeline stage) rather than the
    // group the rank belongs to.
    bool coloursByCoordinate;
    uint32_t rgb; // the colour of its traffic in every view, 0xRRGGBB
};

inline constexpr std::array<DimInfo, 5> kDims{{
    {Dim::TP, "tp", "TP", "tensor parallel", "tp_exposed", true, true, false, 0xF0A030},
    {Dim::CP, "cp", "CP", "context parallel", "cp_exposed", true, true, false, 0xD45FB0},
    {Dim::PP, "pp", "PP", "pipeline parallel", "pp_exposed", true, false, true, 0x36B8C9},
    {Dim::DP, "dp", "DP", "data parallel", "dp_exposed", true, true, false, 0xF25C2A},
    {Dim::EP, "ep", "EP", "expert parallel", "ep_exposed", false, true, false, 0x8E6CEF},
}};
inline constexpr size_t kDimCount = kDims.size();

constexpr const DimInfo& dimInfo(Dim d)
{
    return kDims[size_t(d)];
}

constexpr auto enumTexts(Dim)
{
    std::array<EnumText<Dim>, kDimCount> texts{};
    for (size_t i = 0; i < kDimCount; ++i)
        texts[i] = {kDims[i].dim, kDims[i].key, kDims[i].shortLabel};
    return texts;
}

inline constexpr std::array<Dim, kDimCount> kAllDims = enumValues<Dim>();

constexpr size_t placedDimCount()
{
    size_t n = 0;
    for (const DimInfo& d : kDims)
        n += d.placed ? 1 : 0;
    return n;
}
inline constexpr size_t kPlacedDimCount = placedDimCount();

// The dimensions a run's `placement` orders, innermost first; this is also the default order.
using PlacementOrder = std::array<Dim, kPlacedDimCount>;
constexpr PlacementOrder placedDims()
{
    PlacementOrder dims{};
    size_t n = 0;
    for (const DimInfo& d : kDims)
        if (d.placed)
            dims[n++] = d.dim;
    return dims;
}
inline constexpr PlacementOrder kPlacedDims = placedDims();

// One value per dimension.
template <typename T> struct PerDim {
    std::array<T, kDimCount> values{};
    T& operator[](Dim d) { return values[size_t(d)]; }
    const T& operator[](Dim d) const { return values[size_t(d)]; }
    auto begin() { return values.begin(); }
    auto end() { return values.end(); }
    auto begin() const { return values.begin(); }
    auto end() const { return values.end(); }
    bool operator==(const PerDim&) const = default;
};

} // namespace cs
