#pragma once
// What colour each GPU gets in each colour-by mode, and the legend that explains it.
// Colours are a small palette plus one palette index per GPU, so that a frame can recolour
// every GPU (the step animation) by swapping indices without touching the geometry.

#include <QColor>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "description.h"

namespace cs {
class Topology;
class Placement;
struct Evaluation;
} // namespace cs

struct GpuColors {
    std::vector<QRgb> palette;
    std::vector<uint16_t> index; // one palette index per GPU
    QRgb colorOf(int gpu) const { return palette[index[size_t(gpu)]]; }
};

struct LegendEntry {
    QColor color;
    QString label;
    bool operator==(const LegendEntry&) const = default;
};

struct Legend {
    QString title;
    std::vector<LegendEntry> entries;
    bool gradient = false; // entries are stops of a continuous scale
    QStringList notes;     // how each parallel dimension sits on the hardware
    bool operator==(const Legend&) const = default;
};

// A GPU that holds no rank (or no job), and one out of service, in every mode.
inline constexpr QRgb kIdleGrey = 0xff5a5f66;
inline constexpr QRgb kOutOfService = 0xff2a2224;

// Categorical groups cycle through this many colours; neighbouring groups always differ.
inline constexpr int kCategoricalColors = 24;
inline constexpr int kMemorySteps = 16;

QColor categoricalColor(int i);
// fraction: memory in use over HBM capacity; above 1 the model does not fit.
QColor memoryColor(double fraction);
// The group or stage (a dimension's mode) or domain a GPU is coloured by; -1 for the other
// modes and for GPUs that hold no rank.
int colorKeyOfGpu(const cs::ColorMode& mode, int gpu, const cs::Topology& topology,
                  const cs::Placement& placement);

// GPUs that hold no rank are grey (idle) or dark (out of service) in every mode. Activity
// colours come from the scene's activity overlay at a time of the step; here those GPUs are
// idle grey.
GpuColors colorGpus(const cs::ColorMode& mode, const cs::Topology& topology,
                    const cs::Placement& placement, const cs::Evaluation& evaluation);
// The legend reads the palette, not each GPU's colour: it costs nothing per GPU.
Legend legendFor(const cs::ColorMode& mode, const cs::Topology& topology,
                 const cs::Placement& placement);
// GPUs that hold no rank: grey when idle, dark when out of service. Appends the two colours to
// the palette and points those GPUs at them.
void markUnrankedGpus(GpuColors& colors, const cs::Topology& topology,
                      const cs::Placement& placement);
// "inside NVLink domain" or "crosses fabric (N of M groups)" for one dimension.
QString placementSummary(const cs::Placement& placement, cs::Dim dim);
