#include "databuckets.h"

#include <algorithm>

namespace cs {

double gatherChunks(const Workload& w, int s, std::vector<double>& readyOut)
{
    double t = 0;
    for (int k = 0; k < w.v; ++k) {
        t += w.parameterGatherS(w.paramsOfChunk[w.op(s, k)] * w.gatherBytesPerParam,
                                w.expertParamsOfChunk[w.op(s, k)] * w.gatherBytesPerParam);
        readyOut[w.op(s, k)] = t;
    }
    return t;
}

void addBuckets(const Workload& w, int s, int k, double start, double end, std::vector<Bucket>& out)
{
    if (w.fsdp)
        return;
    const size_t i = w.op(s, k);
    const int n = w.layersOf(s, k);
    const double g = w.gradBytesPerParam;
    const double extra = (w.paramsOfChunk[i] - w.layerParamsOfChunk[i]) * g;
    if (n == 0) {
        out.push_back({end, extra, 0, k});
        return;
    }
    const double dense = w.layerParamsOfChunk[i] / n * g;
    const double expert = w.expertParamsOfChunk[i] / n * g;
    for (int l = 0; l < n; ++l) {
        const double release = start + (end - start) * (l + 1) / n;
        out.push_back({release, dense + (l == n - 1 ? extra : 0.0), expert, k});
    }
}

double drainBuckets(const Workload& w, std::vector<Bucket>& buckets, double fabricFree, int s,
                    std::vector<Event>* events)
{
    std::sort(buckets.begin(), buckets.end(),
              [](const Bucket& a, const Bucket& b) { return a.release < b.release; });
    // A chunk's buckets carry the same bytes but for its last: each size is timed once.
    const Bucket* timed = nullptr;
    double reduceS = 0;
    for (const Bucket& b : buckets) {
        if (!timed || b.denseBytes != timed->denseBytes || b.expertBytes != timed->expertBytes) {
            timed = &b;
            reduceS = b.reduceS(w);
        }
        const double start = std::max(fabricFree, b.release);
        fabricFree = start + reduceS;
        if (events) {
            Event e;
            e.start = start;
            e.end = fabricFree;
            e.stage = s;
            e.chunk = b.chunk;
            e.kind = EventKind::Comm;
            e.dim = Dim::DP;
            e.link = w.linkOf(Dim::DP);
            events->push_back(e);
        }
    }
    return fabricFree;
}

} // namespace cs
