#include "activityoverlay.h"

#include "activitycolors.h"
#include "placement.h"

ActivityOverlay::ActivityOverlay(const cs::Evaluation& evaluation, const cs::Placement& placement)
    : m_index(evaluation.events, placement.size(cs::Dim::PP))
{
    const int gpus = placement.worldSize();
    m_stageOfGpu.resize(size_t(gpus));
    for (int rank = 0; rank < gpus; ++rank)
        m_stageOfGpu[size_t(placement.gpuOfRank(rank))] =
            uint16_t(placement.coord(rank)[cs::Dim::PP]);
    m_stageActivity.resize(size_t(m_index.stages()));
    for (int a = 0; a < cs::kActivityCount; ++a)
        m_colors.palette.push_back(activityColor(cs::Activity(a)).rgb());
    m_colors.index.assign(size_t(gpus), uint16_t(cs::Activity::Idle));
}

const GpuColors& ActivityOverlay::colorsAt(double timeS)
{
    for (int s = 0; s < m_index.stages(); ++s)
        m_stageActivity[size_t(s)] = uint16_t(m_index.activity(s, timeS));
    for (size_t g = 0; g < m_stageOfGpu.size(); ++g)
        m_colors.index[g] = m_stageActivity[m_stageOfGpu[g]];
    return m_colors;
}

cs::Activity ActivityOverlay::activityOfGpu(int gpu, double timeS) const
{
    return m_index.activity(stageOfGpu(gpu), timeS);
}
