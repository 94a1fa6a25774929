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
class Topology;
} // namespace cs

class ActivityOverlay {
public:
    ActivityOverlay(const cs::Evaluation& evaluation, const cs::Placement& placement,
                    const cs::Topology& topology);

    // The palette holds one colour per cs::Activity, indexed by its value, then the colours
    // of GPUs without a rank.
    const GpuColors& colorsAt(double timeS);
    cs::LinkUse linkUseAt(double timeS) const { return m_index.linkUse(timeS); }
    // The pipeline stage of the rank on a GPU; -1 when it holds none.
    int stageOfGpu(int gpu) const;
    // What a GPU does at a time (idle when it holds no rank).
    cs::Activity activityOfGpu(int gpu, double timeS) const;

private:
    static constexpr uint16_t kNoStage = 0xffff;

    cs::ActivityIndex m_index;
    std::vector<uint16_t> m_stageOfGpu;    // kNoStage: the GPU holds no rank
    std::vector<uint16_t> m_stageActivity; // scratch, per stage
    GpuColors m_colors;
};
