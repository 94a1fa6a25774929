#include "dataparallel.h"

#include <algorithm>
#include <utility>

#include "collectives.h"

namespace cs {

namespace {

// HBM bytes of gathering dense and expert parameters, and of reducing their gradients, each
// over its group (collectives.h).
double gatherHbmBytes(const Workload& w, double dense, double expert)
{
    return allGatherHbmBytes(dense, w.dp().group.size()) +
           allGatherHbmBytes(expert, w.expertData.group.size());
}

double reduceHbmBytes(const Workload& w, double dense, double expert)
{
    const bool sharded = w.distributedOptimizer || w.fsdp;
    auto reduce = [&](double bytes, int n) {
        return reduceScatterHbmBytes(bytes, n) + (sharded ? 0.0 : allGatherHbmBytes(bytes, n));
    };
    return reduce(dense, w.dp().group.size()) + reduce(expert, w.expertData.group.size());
}

} // namespace

void fullyShardedData(const RunDesc& run, const Rates& r, Workload& w)
{
    if (!run.parallelism.fsdp)
        return;
    for (size_t i = 0; i < w.forward.size(); ++i) {
        const double dense = w.paramsOfChunk[i], expert = w.expertParamsOfChunk[i];
        const double gatherF =
            allGather(dense * w.gatherBytesPerParam, w.dp().group) +
            (expert > 0 ? allGather(expert * w.gatherBytesPerParam, w.expertData.group) : 0.0);
        const double backward =
            gatherF + w.gradientReduceS(dense * w.gradBytesPerParam, expert * w.gradBytesPerParam);
        const double gatherHbm =
            gatherHbmBytes(w, dense * w.gatherBytesPerParam, expert * w.gatherBytesPerParam);
        w.forward[i].compute += gatherHbm / r.memory;
        w.backward[i].compute += (gatherHbm + reduceHbmBytes(w, dense * w.gradBytesPerParam,
                                                             expert * w.gradBytesPerParam)) /
                                 r.memory;
        for (auto [pass, seconds] :
             {std::pair{&w.forward[i], gatherF}, {&w.backward[i], backward}}) {
            const double exposed = std::max(0.0, seconds - pass->total());
            pass->comm[Dim::DP] += exposed;
            pass->hidden[Dim::DP] += seconds - exposed;
        }
        w.commPerOp[i][Dim::DP] += gatherF + backward;
    }
}

void dataParallelHbm(const Rates& r, Workload& w)
{
    w.dpHbmS.assign(size_t(w.p), 0);
    if (w.fsdp)
        return;
    for (int s = 0; s < w.p; ++s) {
        double dense = 0, expert = 0;
        for (int k = 0; k < w.v; ++k) {
            dense += w.paramsOfChunk[w.op(s, k)];
            expert += w.expertParamsOfChunk[w.op(s, k)];
        }
        double bytes = reduceHbmBytes(w, dense * w.gradBytesPerParam, expert * w.gradBytesPerParam);
        if (w.distributedOptimizer)
            bytes +=
                gatherHbmBytes(w, dense * w.gatherBytesPerParam, expert * w.gatherBytesPerParam);
        w.dpHbmS[size_t(s)] = bytes / r.memory;
    }
}

} // namespace cs
