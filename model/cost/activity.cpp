#include "activity.h"

#include <algorithm>

namespace cs {

namespace {

// When events of one stage overlap, what the stage is seen doing: computing beats everything,
// exposed communication beats waiting in the bubble, and communication hidden under other
// work only shows when nothing else happens.
int precedence(const Event& e)
{
    switch (e.kind) {
    case EventKind::Forward:
    case EventKind::Backward:
    case EventKind::Recompute:
        return 5;
    case EventKind::Optimizer:
        return 4;
    case EventKind::Bubble:
        return 2;
    case EventKind::Comm:
        return e.exposed ? 3 : 1;
    }
    return 0;
}

// Whether a shows rather than b where both happen; between equals, the event nested in the
// other (later start, else earlier end) is the more specific.
bool shows(const Event& a, const Event& b)
{
    if (precedence(a) != precedence(b))
        return precedence(a) > precedence(b);
    if (a.start != b.start)
        return a.start > b.start;
    return a.end < b.end;
}

Activity activityOf(EventKind kind)
{
    switch (kind) {
    case EventKind::Forward:
        return Activity::Forward;
    case EventKind::Backward:
        return Activity::Backward;
    case EventKind::Recompute:
        return Activity::Recompute;
    case EventKind::Optimizer:
        return Activity::Optimizer;
    case EventKind::Bubble:
        return Activity::Bubble;
    case EventKind::Comm:
        return Activity::Communication;
    }
    return Activity::Idle;
}

// The last element whose start is <= t, if t lies before its end.
template <typename SpanT> const SpanT* spanAt(const std::vector<SpanT>& spans, double t)
{
    auto it = std::upper_bound(spans.begin(), spans.end(), t,
                               [](double time, const SpanT& s) { return time < s.start; });
    if (it == spans.begin())
        return nullptr;
    --it;
    return t < it->end ? &*it : nullptr;
}

} // namespace

ActivityIndex::ActivityIndex(const std::vector<Event>& events, int stages)
{
    stages = std::max(1, stages);
    m_spans.resize(size_t(stages));
    for (auto& perStage : m_comm.values)
        perStage.resize(size_t(stages));

    std::vector<std::vector<int>> byStage(static_cast<size_t>(stages));
    for (int i = 0; i < int(events.size()); ++i) {
        const Event& e = events[size_t(i)];
        if (e.end <= e.start)
            continue;
        if (e.stage < 0) {
            for (auto& mine : byStage)
                mine.push_back(i);
        } else if (e.stage < stages) {
            byStage[size_t(e.stage)].push_back(i);
        }
    }
    for (int s = 0; s < stages; ++s) {
        auto& mine = byStage[size_t(s)];
        std::stable_sort(mine.begin(), mine.end(), [&](int a, int b) {
            return events[size_t(a)].start < events[size_t(b)].start;
        });
        buildStage(s, events, mine);
        buildComm(s, events, mine);
    }
}

// Sweeps the stage's events boundary by boundary, keeping what is active, and records the
// winning event of each elementary interval (merged with its predecessor when the same).
void ActivityIndex::buildStage(int stage, const std::vector<Event>& events,
                               const std::vector<int>& mine)
{
    std::vector<double> bounds;
    bounds.reserve(mine.size() * 2);
    for (int i : mine) {
        bounds.push_back(events[size_t(i)].start);
        bounds.push_back(events[size_t(i)].end);
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());

    auto& spans = m_spans[size_t(stage)];
    std::vector<int> active;
    size_t next = 0;
    for (size_t b = 0; b + 1 < bounds.size(); ++b) {
        const double from = bounds[b], to = bounds[b + 1];
        while (next < mine.size() && events[size_t(mine[next])].start <= from)
            active.push_back(mine[next++]);
        std::erase_if(active, [&](int i) { return events[size_t(i)].end <= from; });
        int best = -1;
        for (int i : active)
            if (best < 0 || shows(events[size_t(i)], events[size_t(best)]))
                best = i;
        if (best < 0)
            continue;
        if (!spans.empty() && spans.back().state.event == best && spans.back().end == from) {
            spans.back().end = to;
            continue;
        }
        spans.push_back({from, to, {activityOf(events[size_t(best)].kind), best}});
    }
}

void ActivityIndex::buildComm(int stage, const std::vector<Event>& events,
                              const std::vector<int>& mine)
{
    for (int i : mine) {
        const Event& e = events[size_t(i)];
        if (!e.isComm())
            continue;
        auto& spans = m_comm[e.dim][size_t(stage)];
        // mine is sorted by start, so an overlap can only be with the last span.
        if (!spans.empty() && e.start <= spans.back().end) {
            spans.back().end = std::max(spans.back().end, e.end);
            spans.back().farthest = std::max(spans.back().farthest, e.link);
        } else {
            spans.push_back({e.start, e.end, e.link});
        }
    }
}

StageState ActivityIndex::at(int stage, double t) const
{
    if (stage < 0 || stage >= stages())
        return {};
    const Span* span = spanAt(m_spans[size_t(stage)], t);
    return span ? span->state : StageState{};
}

LinkUse ActivityIndex::linkUse(double t) const
{
    LinkUse use;
    if (m_spans.empty())
        return use;
    for (Dim d : kAllDims) {
        int busy = 0;
        for (const auto& spans : m_comm[d]) {
            if (const CommSpan* span = spanAt(spans, t)) {
                ++busy;
                use.farthest[d] = std::max(use.farthest[d], span->farthest);
            }
        }
        use.share[d] = double(busy) / stages();
    }
    return use;
}

double nextEventTime(const std::vector<Event>& events, double t)
{
    double best = t;
    double last = 0;
    bool found = false;
    for (const Event& e : events) {
        last = std::max(last, e.end);
        for (double b : {e.start, e.end}) {
            if (b > t && (!found || b < best)) {
                best = b;
                found = true;
            }
        }
    }
    return found ? best : std::max(last, t);
}

double previousEventTime(const std::vector<Event>& events, double t)
{
    double best = 0;
    for (const Event& e : events)
        for (double b : {e.start, e.end})
            if (b < t && b > best)
                best = b;
    return best;
}

} // namespace cs
