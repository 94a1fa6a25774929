#include "gpucolors.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "activitycolors.h"
#include "costmodel.h"
#include "placement.h"
#include "topology.h"

namespace {

constexpr QRgb kIdleGrey = 0xff5a5f66;

struct ModeName {
    ColorBy mode;
    const char* name;
};
constexpr ModeName kModeNames[] = {
    {ColorBy::TP, "tp"},
    {ColorBy::CP, "cp"},
    {ColorBy::PP, "pp"},
    {ColorBy::DP, "dp"},
    {ColorBy::Domain, "domain"},
    {ColorBy::Memory, "memory"},
    {ColorBy::Activity, "activity"},
};

int memoryStep(double fraction)
{
    if (fraction > 1.0)
        return kMemorySteps;
    return std::clamp(int(fraction * kMemorySteps), 0, kMemorySteps - 1);
}

double stageMemoryFraction(int stage, const cs::Topology& topology, const cs::Evaluation& eval)
{
    const double hbm = topology.cluster().gpu.hbmGiB;
    if (hbm <= 0 || size_t(stage) >= eval.memoryGiBPerStage.size())
        return 0;
    return eval.memoryGiBPerStage[size_t(stage)] / hbm;
}

std::vector<QRgb> categoricalPalette(int groups)
{
    std::vector<QRgb> palette;
    const int n = std::clamp(groups, 1, kCategoricalColors);
    for (int i = 0; i < n; ++i)
        palette.push_back(categoricalColor(i).rgb());
    return palette;
}

QString dimLegendTitle(ColorBy mode)
{
    switch (mode) {
    case ColorBy::TP:
        return QObject::tr("TP group: same colour = one tensor-parallel group");
    case ColorBy::CP:
        return QObject::tr("CP group: same colour = one context-parallel group");
    case ColorBy::PP:
        return QObject::tr("PP stage: the pipeline stage each GPU runs");
    case ColorBy::DP:
        return QObject::tr("DP group: same colour = GPUs that all-reduce gradients together");
    default:
        return {};
    }
}

std::optional<cs::Dim> dimOf(ColorBy mode)
{
    switch (mode) {
    case ColorBy::TP:
        return cs::Dim::TP;
    case ColorBy::CP:
        return cs::Dim::CP;
    case ColorBy::PP:
        return cs::Dim::PP;
    case ColorBy::DP:
        return cs::Dim::DP;
    default:
        return std::nullopt;
    }
}

} // namespace

std::optional<ColorBy> colorByFromString(const std::string& name)
{
    for (const ModeName& m : kModeNames)
        if (name == m.name)
            return m.mode;
    return std::nullopt;
}

const char* toString(ColorBy mode)
{
    for (const ModeName& m : kModeNames)
        if (mode == m.mode)
            return m.name;
    return "pp";
}

QColor categoricalColor(int i)
{
    // Golden-angle hues keep consecutive groups far apart on the colour wheel; alternating
    // value separates the hues that come close again after many steps.
    const double hue = std::fmod(0.08 + i * 0.6180339887, 1.0);
    const double value = (i % 2 == 0) ? 0.95 : 0.78;
    const double saturation = (i % 3 == 2) ? 0.55 : 0.75;
    return QColor::fromHsvF(float(hue), float(saturation), float(value));
}

QColor memoryColor(double fraction)
{
    if (fraction > 1.0)
        return QColor(230, 30, 40);
    // Dark blue (empty) to yellow (full): a sequential scale readable on the dark background.
    const double t = std::clamp(fraction, 0.0, 1.0);
    return QColor::fromHsvF(float(0.62 - 0.47 * t), float(0.85 - 0.15 * t), float(0.45 + 0.55 * t));
}

int colorKeyOfGpu(ColorBy mode, int gpu, const cs::Topology& topology,
                  const cs::Placement& placement)
{
    const int rank = gpu; // rank r runs on GPU r
    switch (mode) {
    case ColorBy::TP:
    case ColorBy::CP:
    case ColorBy::DP:
        return placement.groupIndex(rank, *dimOf(mode));
    case ColorBy::PP:
        return placement.coord(rank)[cs::Dim::PP];
    case ColorBy::Domain:
        return topology.gpus()[size_t(gpu)].domain;
    default:
        return -1;
    }
}

GpuColors colorGpus(ColorBy mode, const cs::Topology& topology, const cs::Placement& placement,
                    const cs::Evaluation& evaluation)
{
    GpuColors colors;
    const int gpus = int(topology.gpus().size());
    colors.index.resize(size_t(gpus), 0);
    switch (mode) {
    case ColorBy::Activity:
        colors.palette = {kIdleGrey};
        break;
    case ColorBy::Memory:
        for (int s = 0; s <= kMemorySteps; ++s)
            colors.palette.push_back(
                memoryColor(s == kMemorySteps ? 1.5 : (s + 0.5) / kMemorySteps).rgb());
        for (int g = 0; g < gpus; ++g) {
            const int stage = placement.coord(g)[cs::Dim::PP];
            colors.index[size_t(g)] =
                uint16_t(memoryStep(stageMemoryFraction(stage, topology, evaluation)));
        }
        break;
    default: {
        const int groups = mode == ColorBy::Domain ? topology.domainCount()
                           : mode == ColorBy::PP   ? placement.size(cs::Dim::PP)
                                                   : placement.groupCount(*dimOf(mode));
        colors.palette = categoricalPalette(groups);
        const int n = int(colors.palette.size());
        for (int g = 0; g < gpus; ++g)
            colors.index[size_t(g)] = uint16_t(colorKeyOfGpu(mode, g, topology, placement) % n);
    }
    }
    return colors;
}

QString placementSummary(const cs::Placement& placement, cs::Dim dim)
{
    const cs::DimensionPlacement& d = placement.dimension(dim);
    if (d.size <= 1)
        return QObject::tr("size 1 (not used)");
    if (d.insideDomain())
        return QObject::tr("inside NVLink domain");
    return QObject::tr("crosses fabric (%1 of %2 groups span up to %3 domains)")
        .arg(d.groupsCrossing)
        .arg(d.groups)
        .arg(d.maxDomainsPerGroup);
}

Legend legendFor(ColorBy mode, const cs::Topology& topology, const cs::Placement& placement,
                 const cs::Evaluation& evaluation)
{
    Legend legend;
    for (cs::Dim d : cs::kAllDims)
        legend.notes << QStringLiteral("%1 %2: %3")
                            .arg(QString::fromLatin1(cs::toString(d)).toUpper())
                            .arg(placement.size(d))
                            .arg(placementSummary(placement, d));
    const GpuColors colors = colorGpus(mode, topology, placement, evaluation);
    switch (mode) {
    case ColorBy::Activity:
        legend.title =
            QObject::tr("Activity: what each GPU does at the current time; lit links by dimension");
        legend.entries = activityLegend();
        for (const LegendEntry& e : dimensionLegend())
            legend.entries.push_back(e);
        return legend;
    case ColorBy::Memory: {
        const double hbm = topology.cluster().gpu.hbmGiB;
        legend.title = QObject::tr("Memory per GPU (by pipeline stage) vs %1 GiB HBM").arg(hbm);
        legend.gradient = true;
        for (int s = 0; s <= 4; ++s)
            legend.entries.push_back(
                {memoryColor(s / 4.0), QStringLiteral("%1 GiB").arg(hbm * s / 4.0, 0, 'f', 0)});
        legend.entries.push_back({memoryColor(1.5), QObject::tr("over HBM")});
        return legend;
    }
    case ColorBy::Domain: {
        const bool rack = topology.cluster().scaleUp.domain == cs::DomainKind::Rack;
        legend.title = QObject::tr("NVLink domain: one colour per %1 (%2 GPUs)")
                           .arg(rack ? QObject::tr("rack") : QObject::tr("node"))
                           .arg(topology.domainSize());
        break;
    }
    default:
        legend.title = dimLegendTitle(mode);
        break;
    }
    const int keys = mode == ColorBy::Domain ? topology.domainCount()
                     : mode == ColorBy::PP   ? placement.size(cs::Dim::PP)
                                             : placement.groupCount(*dimOf(mode));
    const int shown = std::min<int>(keys, int(colors.palette.size()));
    const QString noun = mode == ColorBy::Domain ? QObject::tr("domain")
                         : mode == ColorBy::PP   ? QObject::tr("stage")
                                                 : QObject::tr("group");
    for (int k = 0; k < shown; ++k) {
        QString label = QStringLiteral("%1 %2").arg(noun).arg(k);
        if (keys > shown)
            label += QObject::tr(", %1, ...").arg(k + shown);
        legend.entries.push_back({QColor(colors.palette[size_t(k)]), label});
    }
    return legend;
}
