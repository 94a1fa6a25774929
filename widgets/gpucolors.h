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

enum class ColorBy { TP, CP, PP, DP, Domain, Memory, Activity };

std::optional<ColorBy> colorByFromString(const std::string& name);
const char* toString(ColorBy mode);

struct GpuColors {
    std::vector<QRgb> palette;
    std::vector<uint16_t> index; // one palette index per GPU
    QRgb colorOf(int gpu) const { return palette[index[size_t(gpu)]]; }
};

struct LegendEntry {
    QColor color;
    QString label;
};

struct Legend {
    QString title;
    std::vector<LegendEntry> entries;
    bool gradient = false; // entries are stops of a continuous scale
    QStringList notes;     // how each parallel dimension sits on the hardware
};

// Categorical groups cycle through this many colours; neighbouring groups always differ.
inline constexpr int kCategoricalColors = 24;
inline constexpr int kMemorySteps = 16;

QColor categoricalColor(int i);
// fraction: memory in use over HBM capacity; above 1 the model does not fit.
QColor memoryColor(double fraction);
// The group (tp, cp, dp), stage (pp) or domain a GPU is coloured by; -1 for memory/activity.
int colorKeyOfGpu(ColorBy mode, int gpu, const cs::Topology& topology,
                  const cs::Placement& placement);

// Activity colours come from outside (the step animation); here every GPU is idle grey.
GpuColors colorGpus(ColorBy mode, const cs::Topology& topology, const cs::Placement& placement,
                    const cs::Evaluation& evaluation);
Legend legendFor(ColorBy mode, const cs::Topology& topology, const cs::Placement& placement,
                 const cs::Evaluation& evaluation);
// "inside NVLink domain" or "crosses fabric (N of M groups)" for one dimension.
QString placementSummary(const cs::Placement& placement, cs::Dim dim);
