#include "intervals.h"

#include <algorithm>

namespace cs {

double unionLength(std::vector<BusySpan>& spans)
{
    std::sort(spans.begin(), spans.end(),
              [](const BusySpan& a, const BusySpan& b) { return a.start < b.start; });
    double total = 0;
    double from = 0;
    double to = 0;
    bool open = false;
    for (const BusySpan& s : spans) {
        if (s.end <= s.start)
            continue;
        if (open && s.start <= to) {
            to = std::max(to, s.end);
            continue;
        }
        if (open)
            total += to - from;
        from = s.start;
        to = s.end;
        open = true;
    }
    if (open)
        total += to - from;
    return total;
}

namespace {

// A span's start (+1) or end (-1); compute spans have slot -1, communication its key + 1.
struct Edge {
    double t;
    int slot;
    int delta;
};

} // namespace

BusyFigures spanFigures(const std::vector<BusySpan>& compute, const std::vector<BusySpan>& comm,
                        int maxKey)
{
    BusyFigures f;
    const size_t slots = size_t(std::max(maxKey, -1) + 2);
    f.exposedByKey.assign(slots, 0.0);
    std::vector<Edge> edges;
    edges.reserve(2 * (compute.size() + comm.size()));
    for (const BusySpan& s : compute)
        if (s.end > s.start) {
            edges.push_back({s.start, -1, +1});
            edges.push_back({s.end, -1, -1});
        }
    for (const BusySpan& s : comm)
        if (s.end > s.start) {
            const int slot = std::clamp(s.key + 1, 0, int(slots) - 1);
            edges.push_back({s.start, slot, +1});
            edges.push_back({s.end, slot, -1});
        }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
    std::vector<int> open(slots, 0);
    int computeOpen = 0;
    int commOpen = 0;           // open communication spans
    std::vector<int> openSlots; // slots with an open span
    double last = edges.empty() ? 0 : edges.front().t;
    for (const Edge& e : edges) {
        const double dt = e.t - last;
        if (dt > 0) {
            if (computeOpen > 0)
                f.computeBusyS += dt;
            if (commOpen > 0)
                f.commBusyS += dt;
            if (computeOpen > 0 || commOpen > 0)
                f.busyS += dt;
            if (computeOpen == 0 && commOpen > 0) {
                f.exposedCommS += dt;
                const double share = dt / double(openSlots.size());
                for (int k : openSlots)
                    f.exposedByKey[size_t(k)] += share;
            }
            last = e.t;
        }
        if (e.slot < 0) {
            computeOpen += e.delta;
            continue;
        }
        const int before = open[size_t(e.slot)];
        open[size_t(e.slot)] += e.delta;
        commOpen += e.delta;
        if (before == 0 && e.delta > 0)
            openSlots.push_back(e.slot);
        else if (before == 1 && e.delta < 0)
            openSlots.erase(std::find(openSlots.begin(), openSlots.end(), e.slot));
    }
    return f;
}

} // namespace cs
