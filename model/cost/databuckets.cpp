#include "databuckets.h"

#include <algorithm>

namespace cs {

double gatherChunks(const Workload& w, int s, std::vector<double>& readyOut)
{
    double t = 0;
    for (int k = 0; k < w.v; ++k) {
        t += w.dpGather(w.paramsOfChunk[w.op(s, k)] * w.gatherBytesPerParam);
        readyOut[w.op(s, k)] = t;
    }
    return t;
}

void addBuckets(const Workload& w, int s, int k, double start, double end, std::vector<Bucket>& out)
{
    const size_t i = w.op(s, k);
    const int n = w.layersOf(s, k);
    const double extra = (w.paramsOfChunk[i] - w.layerParamsOfChunk[i]) * w.gradBytesPerParam;
    if (n == 0) {
        out.push_back({end, extra, k});
        return;
    }
    const double perLayer = w.layerParamsOfChunk[i] / n * w.gradBytesPerParam;
    for (int l = 0; l < n; ++l) {
        const double release = start + (end - start) * (l + 1) / n;
        out.push_back({release, perLayer + (l == n - 1 ? extra : 0.0), k});
    }
}

double drainBuckets(const Workload& w, std::vector<Bucket>& buckets, double fabricFree, int s,
                    std::vector<Event>* events)
{
    std::sort(buckets.begin(), buckets.end(),
              [](const Bucket& a, const Bucket& b) { return a.release < b.release; });
    for (const Bucket& b : buckets) {
        const double start = std::max(fabricFree, b.release);
        fabricFree = start + w.dpReduce(b.bytes);
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
