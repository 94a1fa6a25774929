#include "stageorder.h"

#include <algorithm>

namespace cs {

namespace pipeline {

std::optional<OpAt> inputOf(int stages, int chunks, int s, const Step& step)
{
    const int vs = step.cm.chunk * stages + s;
    const int last = stages * chunks - 1;
    if (!step.backward && vs == 0)
        return std::nullopt;
    const int from = !step.backward ? vs - 1 : vs == last ? vs : vs + 1;
    return OpAt{from % stages, {step.backward && vs != last, {from / stages, step.cm.microBatch}}};
}

} // namespace pipeline

namespace {

std::vector<ChunkMicroBatch> orderOf(int stages, int chunks, int microBatches, bool reversed)
{
    const pipeline::ChunkOrder order(stages, chunks, microBatches);
    std::vector<ChunkMicroBatch> out;
    const int64_t total = int64_t(chunks) * microBatches;
    out.reserve(size_t(total));
    for (int64_t i = 0; i < total; ++i)
        out.push_back(order.at(i, reversed));
    return out;
}

} // namespace

int groupCount(int stages, int microBatches)
{
    return std::max(1, microBatches / stages);
}

int groupSize(int stages, int microBatches, int group)
{
    const int groups = groupCount(stages, microBatches);
    return microBatches / groups + (group < microBatches % groups ? 1 : 0);
}

int inFlightLimit(int stages, int chunks, int microBatches, int stage)
{
    const int64_t total = int64_t(chunks) * microBatches;
    if (chunks == 1)
        return int(std::min<int64_t>(total, stages - stage));
    const int64_t group = groupSize(stages, microBatches, 0);
    return int(std::min(total, int64_t(stages - stage - 1) * 2 + (chunks - 1) * group + 1));
}

double pairedShare(int stages, int chunks, int microBatches)
{
    // inFlightLimit summed over the stages in closed form (a search asks for it for every
    // layout): the stages' limits are first + 2k, k = 0 .. stages - 1 (first + k with one
    // chunk), each held to the passes.
    const int64_t passes = int64_t(chunks) * microBatches;
    const int64_t first =
        chunks == 1 ? 1 : (chunks - 1) * int64_t(groupSize(stages, microBatches, 0)) + 1;
    const int64_t step = chunks == 1 ? 1 : 2;
    // Stages whose limit stays under the passes.
    const int64_t under = std::clamp<int64_t>((passes - first + step - 1) / step, 0, stages);
    const int64_t alone =
        under * first + step * under * (under - 1) / 2 + (stages - under) * passes;
    return 1 - double(alone) / stages / double(passes);
}

std::vector<ChunkMicroBatch> forwardOrder(int stages, int chunks, int microBatches)
{
    return orderOf(stages, chunks, microBatches, false);
}

std::vector<ChunkMicroBatch> backwardOrder(int stages, int chunks, int microBatches)
{
    return orderOf(stages, chunks, microBatches, true);
}

} // namespace cs
