#pragma once
// The topology's "activity" colouring at a time of the step: each GPU in the colour of what
// its pipeline stage is doing, and each dimension's links lit by the share of stages moving
// data over them. Built once per evaluation; a frame costs a lookup per stage and one pass
// over the GPUs, reusing the colour buffer.

#include <cstdint>
#include <vector>

#include "activity.h"
#include "gpucolors.h"

namespace cs {
class Placement;
}

class ActivityOverlay {
public:
    ActivityOverlay() = default;
    ActivityOverlay(const cs::Evaluation& evaluation, const cs::Placement& placement);

    // The palette holds one colour per cs::Activity, indexed by its value.
    const GpuColors& colorsAt(double timeS);
    cs::Activity activityOfGpu(int gpu, double timeS) const;
    int stageOfGpu(int gpu) const { return m_stageOfGpu[size_t(gpu)]; }
    cs::LinkUse linkUseAt(double timeS) const { return m_index.linkUse(timeS); }

private:
    cs::ActivityIndex m_index;
    std::vector<uint16_t> m_stageOfGpu;
    std::vector<uint16_t> m_stageActivity; // scratch, per stage
    GpuColors m_colors;
};
