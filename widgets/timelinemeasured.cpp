#include "timelinemeasured.h"

#include <algorithm>
#include <filesystem>

#include "measuredlanes.h"

int TimelineMeasuredLane::itemAt(double t, double toleranceS) const
{
    // Items are contiguous by start: the one holding t, else the nearest within the tolerance.
    const auto after =
        std::upper_bound(items.begin(), items.end(), t,
                         [](double x, const TimelineMeasuredItem& i) { return x < i.start; });
    int best = -1;
    double bestDistance = toleranceS;
    for (auto it = after == items.begin() ? after : after - 1; it != items.end() && it <= after;
         ++it) {
        const double distance = t < it->start ? it->start - t : t > it->end ? t - it->end : 0;
        if (distance <= bestDistance) {
            best = int(it - items.begin());
            bestDistance = distance;
        }
    }
    return best;
}

std::vector<TimelineMeasuredLane> timelineMeasuredLanes(const cs::MeasuredProfile& profile,
                                                        const std::vector<cs::GroupMatch>& groups,
                                                        int stages)
{
    std::vector<TimelineMeasuredLane> out;
    for (const cs::MeasuredLane& lane : profile.lanes) {
        const auto rank =
            std::find_if(profile.ranks.begin(), profile.ranks.end(),
                         [&](const cs::RankProfile& r) { return r.rank == lane.rank; });
        if (rank == profile.ranks.end() || lane.stage < 0 || lane.stage >= stages)
            continue;
        TimelineMeasuredLane shown;
        shown.stage = lane.stage;
        shown.rank = lane.rank;
        shown.file = std::filesystem::path(rank->file).filename().string();
        shown.step = "ProfilerStep#" + std::to_string(lane.stepNumber);
        const std::vector<int> matches = cs::groupMatchesOf(*rank, groups);
        for (const cs::LaneInterval& iv : lane.intervals) {
            TimelineMeasuredItem item{iv.startS, iv.endS(), iv.kind, iv.collective, {}, {}};
            if (iv.kind == cs::LaneIntervalKind::Comm) {
                item.dim = cs::laneIntervalDim(iv, matches, groups);
                const int m = iv.group >= 0 && size_t(iv.group) < matches.size()
                                  ? matches[size_t(iv.group)]
                                  : -1;
                item.group = m >= 0 ? groups[size_t(m)].label : "unknown group";
            }
            shown.items.push_back(std::move(item));
        }
        out.push_back(std::move(shown));
    }
    return out;
}

std::string measuredItemName(const TimelineMeasuredItem& item)
{
    switch (item.kind) {
    case cs::LaneIntervalKind::Compute:
        return "compute";
    case cs::LaneIntervalKind::Idle:
        return "idle";
    case cs::LaneIntervalKind::Comm:
        break;
    }
    return item.group + " " + std::string(cs::kernelKindInfo(item.collective).label);
}
