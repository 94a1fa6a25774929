#include "activityoverlay.h"

#include "activitycolors.h"
#include "placement.h"
#include "topology.h"

ActivityOverlay::ActivityOverlay(const cs::Evaluation& evaluation, const cs::Placement& placement,
                                 const cs::Topology& topology)
    : m_index(evaluation.events, placement.size(cs::Dim::PP))
{
    const size_t gpus = topology.gpus().size();
    m_stageOfGpu.assign(gpus, kNoStage);
    for (int rank = 0; rank < placement.worldSize(); ++rank)
        m_stageOfGpu[size_t(placement.gpuOfRank(rank))] =
            uint16_t(placement.coord(rank)[cs::Dim::PP]);
    m_stageActivity.resize(size_t(m_index.stages()));
    for (cs::Activity a : cs::enumValues<cs::Activity>())
        m_colors.palette.push_back(activityColor(a).rgb());
    m_colors.index.assign(gpus, uint16_t(cs::Activity::Idle));
    markUnrankedGpus(m_colors, topology, placement);
}

const GpuColors& ActivityOverlay::colorsAt(double timeS)
{
    for (int s = 0; s < m_index.stages(); ++s)
        m_stageActivity[size_t(s)] = uint16_t(m_index.activity(s, timeS));
    for (size_t g = 0; g < m_stageOfGpu.size(); ++g)
        if (m_stageOfGpu[g] != kNoStage)
            m_colors.index[g] = m_stageActivity[m_stageOfGpu[g]];
    return m_colors;
}

int ActivityOverlay::stageOfGpu(int gpu) const
{
    const uint16_t stage = m_stageOfGpu[size_t(gpu)];
    return stage == kNoStage ? -1 : int(stage);
}

cs::Activity ActivityOverlay::activityOfGpu(int gpu, double timeS) const
{
    const int stage = stageOfGpu(gpu);
    return stage < 0 ? cs::Activity::Idle : m_index.activity(stage, timeS);
}
