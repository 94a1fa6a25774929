#include "timelinemapping.h"

#include <algorithm>
#include <cmath>

#include "activity.h"

namespace {

// Below a microsecond the model has nothing to show.
constexpr double kMinSpanS = 1e-6;

// Stage rows: send lane on top, main lane, communication lane below.
constexpr int kSendLane = 0;
constexpr int kMainLane = 1;
constexpr int kCommLane = 2;
constexpr int kStageLanes = 3;
constexpr double kSendBottom = 0.18;
constexpr double kCommTop = 0.80;

} // namespace

TimelineMapping TimelineMapping::fit(double totalS, double left, double width)
{
    TimelineMapping m;
    m.left = left;
    m.width = std::max(1.0, width);
    m.totalS = std::max(kMinSpanS, totalS);
    m.startS = 0;
    m.spanS = m.totalS;
    return m;
}

TimelineMapping TimelineMapping::clamped() const
{
    TimelineMapping m = *this;
    m.spanS = std::clamp(spanS, std::min(kMinSpanS, totalS), totalS);
    m.startS = std::clamp(startS, 0.0, totalS - m.spanS);
    return m;
}

TimelineMapping TimelineMapping::zoomedAt(double x, double factor) const
{
    const double anchor = timeOf(x);
    TimelineMapping m = *this;
    m.spanS = std::clamp(spanS / factor, std::min(kMinSpanS, totalS), totalS);
    m.startS = anchor - (x - left) * (m.spanS / width);
    return m.clamped();
}

TimelineMapping TimelineMapping::pannedBy(double dx) const
{
    TimelineMapping m = *this;
    m.startS -= dx * secondsPerPixel();
    return m.clamped();
}

TimelineMapping TimelineMapping::resized(double newLeft, double newWidth) const
{
    TimelineMapping m = *this;
    m.left = newLeft;
    m.width = std::max(1.0, newWidth);
    return m.clamped();
}

TimelineMapping TimelineMapping::following(double t) const
{
    if (t >= startS && t <= endS())
        return *this;
    TimelineMapping m = *this;
    m.startS = t < startS ? t : t - spanS;
    return m.clamped();
}

int TimelineGeometry::rowAt(double y) const
{
    if (y < top || rowHeight <= 0)
        return -1;
    const int row = int(std::floor((y - top) / rowHeight));
    return row < rows ? row : -1;
}

double TimelineGeometry::fractionInRow(double y) const
{
    const double f = (y - top) / rowHeight;
    return f - std::floor(f);
}

TimelineLanes::TimelineLanes(const std::vector<cs::Event>& events, int stages)
    : m_stages(std::max(1, stages))
{
    for (int s = 0; s < m_stages; ++s) {
        m_lanes.push_back({s, 0.0, kSendBottom, {}, 0});
        m_lanes.push_back({s, kSendBottom, kCommTop, {}, 0});
        m_lanes.push_back({s, kCommTop, 1.0, {}, 0});
    }
    // The fabric row: a lane across it for cluster-wide traffic, drawn first so that the
    // sub-lanes of each stage stay visible over it.
    m_lanes.push_back({m_stages, 0.0, 1.0, {}, 0});
    for (int s = 0; s < m_stages; ++s) {
        const double h = 1.0 / m_stages;
        m_lanes.push_back({m_stages, s * h, (s + 1) * h, {}, 0});
    }

    auto add = [&](TimelineLane& lane, const cs::Event& e, int i) {
        lane.items.push_back({e.start, e.end, i});
    };
    for (int i = 0; i < int(events.size()); ++i) {
        const cs::Event& e = events[size_t(i)];
        const std::optional<cs::Dim> dim = e.isComm() ? std::optional(e.dim) : std::nullopt;
        const int first = e.stage < 0 ? 0 : std::min(e.stage, m_stages - 1);
        const int last = e.stage < 0 ? m_stages - 1 : first;
        if (dim == cs::Dim::DP) {
            add(lane(m_stages, e.stage < 0 ? 0 : 1 + first), e, i);
            if (e.stage < 0)
                continue;
        }
        const int sub = !dim ? kMainLane : dim == cs::Dim::PP ? kSendLane : kCommLane;
        for (int s = first; s <= last; ++s)
            add(lane(s, sub), e, i);
    }
    for (TimelineLane& l : m_lanes) {
        std::stable_sort(
            l.items.begin(), l.items.end(),
            [](const TimelineItem& a, const TimelineItem& b) { return a.start < b.start; });
        for (const TimelineItem& it : l.items)
            l.longestS = std::max(l.longestS, it.end - it.start);
    }
}

int TimelineLanes::laneIndex(int row, int sub) const
{
    return row < m_stages ? row * kStageLanes + sub : m_stages * kStageLanes + sub;
}

std::pair<size_t, size_t> TimelineLanes::visibleItems(const TimelineLane& lane, double t0,
                                                      double t1)
{
    auto byStart = [](const TimelineItem& it, double t) { return it.start < t; };
    const auto& items = lane.items;
    const auto first = std::lower_bound(items.begin(), items.end(), t0 - lane.longestS, byStart);
    const auto last =
        std::upper_bound(items.begin(), items.end(), t1,
                         [](double t, const TimelineItem& it) { return t < it.start; });
    return {size_t(first - items.begin()), size_t(last - items.begin())};
}

int TimelineLanes::eventAt(int row, double fraction, double t, double toleranceS) const
{
    int best = -1;
    double bestDistance = toleranceS;
    // Later lanes are drawn on top: search them first.
    for (auto l = m_lanes.rbegin(); l != m_lanes.rend(); ++l) {
        if (l->row != row || fraction < l->from || fraction >= l->to)
            continue;
        const auto [first, last] = visibleItems(*l, t - toleranceS, t + toleranceS);
        for (size_t k = first; k < last; ++k) {
            const TimelineItem& it = l->items[k];
            const double distance = t < it.start ? it.start - t : t > it.end ? t - it.end : 0;
            if (distance <= bestDistance) { // ties: the later item, drawn on top
                best = it.event;
                bestDistance = distance;
            }
        }
        if (best >= 0)
            return best;
    }
    return best;
}
