#pragma once
// Several jobs on one cluster in the topology view: the "job" colour mode (each GPU in the
// colour of the job whose allocation holds it, grey outside every allocation) and the light of
// one job (its allocation outlined, the links its traffic crosses lit), drawn by the renderer's
// overlay in a few rectangles and batched lines, never an item per GPU.

#include <QRectF>
#include <cstdint>
#include <vector>

#include "description.h"
#include "measuredcolors.h"

namespace cs {
class Topology;
struct JobsTraffic;
} // namespace cs
class TopologyLayout;

// Per GPU: the job (an index into `runs`) whose allocation holds it, -1 for none. A run
// without an allocation holds every GPU that no other run's allocation holds.
std::vector<int> jobOfEachGpu(const cs::Topology& topology, const std::vector<cs::RunDesc>& runs);

// Colours and legend of the job mode; GPUs out of service dark.
GpuColoring jobColoring(const cs::Topology& topology, const std::vector<cs::RunDesc>& runs);

// What lighting one job shows: its allocation as rack or tray rectangles (world units), and the
// links (close in) or bundles (far out) its traffic crosses.
struct JobLight {
    std::vector<QRectF> areas;
    std::vector<int> links;
    std::vector<int> bundles;
    bool empty() const { return areas.empty(); }
};
// `traffic` may be null (not evaluated yet): the allocation alone is lit.
JobLight jobLight(const TopologyLayout& layout, const std::vector<int>& jobOfGpu, int job,
                  const cs::JobsTraffic* traffic);
