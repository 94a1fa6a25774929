#include "gpucolors.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "activitycolors.h"
#include "costmodel.h"
#include "placement.h"
#include "topology.h"

namespace {

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

QString dimLegendTitle(cs::Dim dim)
{
    switch (dim) {
    case cs::Dim::TP:
        return QObject::tr("TP group: same colour = one tensor-parallel group");
    case cs::Dim::CP:
        return QObject::tr("CP group: same colour = one context-parallel group");
    case cs::Dim::PP:
        return QObject::tr("PP stage: the pipeline stage each GPU runs");
    case cs::Dim::DP:
        return QObject::tr("DP group: same colour = GPUs that all-reduce gradients together");
    case cs::Dim::EP:
        return QObject::tr("EP group: same colour = GPUs that exchange tokens in the all-to-all");
    }
    return {};
}

// How many colours a mode's keys need.
int keyCount(const cs::ColorMode& mode, const cs::Topology& topology,
             const cs::Placement& placement)
{
    if (mode.kind == cs::ColorKind::Domain)
        return topology.domainCount();
    if (placement.size(mode.dim) <= 1) // every rank a group of one: one colour, not confetti
        return 1;
    if (cs::dimInfo(mode.dim).coloursByCoordinate)
        return placement.size(mode.dim);
    return placement.groupCount(mode.dim);
}

} // namespace

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

int colorKeyOfGpu(const cs::ColorMode& mode, int gpu, const cs::Topology& topology,
                  const cs::Placement& placement)
{
    if (mode.kind == cs::ColorKind::Domain)
        return topology.gpus()[size_t(gpu)].domain;
    const int rank = placement.rankOfGpu(gpu);
    if (mode.kind != cs::ColorKind::Dimension || rank < 0)
        return -1;
    if (cs::dimInfo(mode.dim).coloursByCoordinate)
        // Once per GPU: the stage alone, not every digit of the rank's coordinate.
        return mode.dim == cs::Dim::PP ? placement.stageOf(rank) : placement.coord(rank)[mode.dim];
    return placement.groupIndex(rank, mode.dim);
}

void markUnrankedGpus(GpuColors& colors, const cs::Topology& topology,
                      const cs::Placement& placement)
{
    const uint16_t idle = uint16_t(colors.palette.size());
    colors.palette.push_back(kIdleGrey);
    colors.palette.push_back(kOutOfService);
    if (placement.worldSize() == int(topology.gpus().size()))
        return;
    const std::vector<bool> healthy = topology.cluster().healthyGpus();
    for (size_t g = 0; g < colors.index.size(); ++g)
        if (placement.rankOfGpu(int(g)) < 0)
            colors.index[g] = healthy[g] ? idle : uint16_t(idle + 1);
}

GpuColors colorGpus(const cs::ColorMode& mode, const cs::Topology& topology,
                    const cs::Placement& placement, const cs::Evaluation& evaluation)
{
    GpuColors colors;
    const int gpus = int(topology.gpus().size());
    colors.index.resize(size_t(gpus), 0);
    switch (mode.kind) {
    case cs::ColorKind::Activity:
    case cs::ColorKind::LinkLoad:
    case cs::ColorKind::MeasuredStep: // measuredcolors.h, given to the scene by the window
    case cs::ColorKind::MeasuredComm:
    case cs::ColorKind::Job: // jobcolors.h, from the session's jobs
        colors.palette = {kIdleGrey};
        break;
    case cs::ColorKind::Memory:
        for (int s = 0; s <= kMemorySteps; ++s)
            colors.palette.push_back(
                memoryColor(s == kMemorySteps ? 1.5 : (s + 0.5) / kMemorySteps).rgb());
        for (int g = 0; g < gpus; ++g) {
            const int rank = placement.rankOfGpu(g);
            const int stage = rank < 0 ? 0 : placement.stageOf(rank);
            colors.index[size_t(g)] =
                uint16_t(memoryStep(stageMemoryFraction(stage, topology, evaluation)));
        }
        break;
    case cs::ColorKind::Dimension:
    case cs::ColorKind::Domain: {
        colors.palette = categoricalPalette(keyCount(mode, topology, placement));
        const int n = int(colors.palette.size());
        for (int g = 0; g < gpus; ++g)
            colors.index[size_t(g)] =
                uint16_t(std::max(0, colorKeyOfGpu(mode, g, topology, placement)) % n);
    }
    }
    markUnrankedGpus(colors, topology, placement);
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

Legend legendFor(const cs::ColorMode& mode, const cs::Topology& topology,
                 const cs::Placement& placement)
{
    Legend legend;
    for (const cs::DimInfo& d : cs::kDims)
        if (placement.size(d.dim) > 1 || d.placed)
            legend.notes << QStringLiteral("%1 %2: %3")
                                .arg(QString::fromLatin1(d.shortLabel.data(),
                                                         int(d.shortLabel.size())))
                                .arg(placement.size(d.dim))
                                .arg(placementSummary(placement, d.dim));
    switch (mode.kind) {
    case cs::ColorKind::Activity:
        legend.title =
            QObject::tr("Activity: what each GPU does at the current time; lit links by dimension");
        legend.entries = activityLegend();
        for (const LegendEntry& e : dimensionLegend(placement.size(cs::Dim::EP) > 1))
            legend.entries.push_back(e);
        return legend;
    case cs::ColorKind::LinkLoad:
        legend.title = QObject::tr("Link load: utilization of each link during the step");
        return legend;
    case cs::ColorKind::MeasuredStep:
    case cs::ColorKind::MeasuredComm:
        legend.title =
            QObject::tr("%1: no measured profile").arg(QString::fromStdString(cs::labelOf(mode)));
        return legend;
    case cs::ColorKind::Job:
        legend.title = QObject::tr("Job: the job whose allocation holds each GPU");
        return legend;
    case cs::ColorKind::Memory: {
        const double hbm = topology.cluster().gpu.hbmGiB;
        legend.title = QObject::tr("Memory per GPU (by pipeline stage) vs %1 GiB HBM").arg(hbm);
        legend.gradient = true;
        for (int s = 0; s <= 4; ++s)
            legend.entries.push_back(
                {memoryColor(s / 4.0), QStringLiteral("%1 GiB").arg(hbm * s / 4.0, 0, 'f', 0)});
        legend.entries.push_back({memoryColor(1.5), QObject::tr("over HBM")});
        return legend;
    }
    case cs::ColorKind::Domain: {
        const bool rack = topology.cluster().scaleUp.domain == cs::DomainKind::Rack;
        legend.title = QObject::tr("NVLink domain: one colour per %1 (%2 GPUs)")
                           .arg(rack ? QObject::tr("rack") : QObject::tr("node"))
                           .arg(topology.domainSize());
        break;
    }
    case cs::ColorKind::Dimension:
        legend.title = dimLegendTitle(mode.dim);
        if (placement.size(mode.dim) <= 1) {
            legend.title =
                mode.dim == cs::Dim::EP
                    ? QObject::tr("EP: this run has no experts to spread (a dense model, or EP "
                                  "1), so no GPUs exchange tokens in an all-to-all")
                    : QObject::tr("%1: size 1, not used by this run")
                          .arg(QString::fromLatin1(cs::dimInfo(mode.dim).shortLabel.data(),
                                                   int(cs::dimInfo(mode.dim).shortLabel.size())));
            return legend;
        }
        break;
    }
    // The palette colorGpus gives these keys, without colouring every GPU for it.
    const int keys = keyCount(mode, topology, placement);
    const std::vector<QRgb> palette = categoricalPalette(keys);
    const int shown = std::min<int>(keys, int(palette.size()));
    const QString noun = mode.kind == cs::ColorKind::Domain          ? QObject::tr("domain")
                         : cs::dimInfo(mode.dim).coloursByCoordinate ? QObject::tr("stage")
                                                                     : QObject::tr("group");
    for (int k = 0; k < shown; ++k) {
        QString label = QStringLiteral("%1 %2").arg(noun).arg(k);
        if (keys > shown)
            label += QObject::tr(", %1, ...").arg(k + shown);
        legend.entries.push_back({QColor(palette[size_t(k)]), label});
    }
    return legend;
}
