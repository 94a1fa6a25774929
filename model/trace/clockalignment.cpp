#include "clockalignment.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "statistics.h"
#include "text.h"

namespace cs {

namespace {

// The same group in every file: by its ranks, or by its name where the file gives no ranks.
std::string groupKey(const ProcessGroup& g)
{
    if (g.ranks.empty())
        return "name:" + g.name;
    std::vector<int> sorted = g.ranks;
    std::sort(sorted.begin(), sorted.end());
    std::string key;
    for (int r : sorted)
        key += std::to_string(r) + ",";
    return key;
}

struct Member {
    size_t rank;              // index in ranks
    std::vector<double> ends; // seconds from the common epoch, on the rank's own clock
};

std::string summaryOf(const ClockAlignment& a, size_t ranks)
{
    if (ranks <= 1)
        return "one rank: no clocks to align";
    std::string s;
    if (a.alignedRanks <= 1)
        s = "no collectives shared across ranks: each rank's clock as its file says";
    else
        s = std::to_string(a.alignedRanks) + " of " + std::to_string(ranks) + " ranks aligned on " +
            withThousands(a.matchedEnds) + " collective ends; largest offset " +
            inStepTimeText(a.largestOffsetS) + ", ends within " + inStepTimeText(a.residualS) +
            " after alignment (median)";
    if (!a.unaligned.empty() && a.alignedRanks > 1)
        s += "; " + std::to_string(a.unaligned.size()) +
             " share no collective with them (their clocks as read)";
    return s;
}

} // namespace

ClockAlignment alignClocks(std::vector<RankProfile>& ranks)
{
    ClockAlignment a;
    if (ranks.empty())
        return a;
    a.referenceRank = ranks.front().rank;
    int64_t epochNs = ranks.front().originNs;
    for (const RankProfile& r : ranks)
        epochNs = std::min(epochNs, r.originNs);
    std::map<std::string, std::vector<Member>> byGroup;
    std::vector<std::vector<std::string>> groupsOfRank(ranks.size());
    for (size_t i = 0; i < ranks.size(); ++i) {
        const RankProfile& r = ranks[i];
        const double originS = double(r.originNs - epochNs) * 1e-9;
        std::map<int32_t, std::vector<double>> ends;
        for (const RankProfile::CollectiveEnd& e : r.collectiveEnds)
            if (e.group >= 0 && size_t(e.group) < r.groups.size() &&
                r.groups[size_t(e.group)].ranks.size() != 1)
                ends[e.group].push_back(originS + e.endS);
        for (auto& [group, list] : ends) {
            const std::string key = groupKey(r.groups[size_t(group)]);
            byGroup[key].push_back({i, std::move(list)});
            groupsOfRank[i].push_back(key);
        }
    }
    std::vector<double> offset(ranks.size(), 0.0);
    std::vector<bool> aligned(ranks.size(), false);
    std::vector<double> residuals;
    std::deque<size_t> queue{0};
    aligned[0] = true;
    while (!queue.empty()) {
        const size_t q = queue.front();
        queue.pop_front();
        for (const std::string& key : groupsOfRank[q]) {
            const std::vector<Member>& members = byGroup[key];
            const auto mine = std::find_if(members.begin(), members.end(),
                                           [&](const Member& m) { return m.rank == q; });
            for (const Member& m : members) {
                if (aligned[m.rank] || m.ends.size() != mine->ends.size())
                    continue;
                std::vector<double> diffs(m.ends.size());
                for (size_t k = 0; k < diffs.size(); ++k)
                    diffs[k] = m.ends[k] - mine->ends[k];
                const double d = median(diffs);
                for (double x : diffs)
                    residuals.push_back(std::abs(x - d));
                offset[m.rank] = offset[q] + d;
                aligned[m.rank] = true;
                a.matchedEnds += int64_t(diffs.size());
                queue.push_back(m.rank);
            }
        }
    }
    a.residualS = median(residuals);
    double originS = 0;
    bool first = true;
    for (size_t i = 0; i < ranks.size(); ++i) {
        if (aligned[i])
            ++a.alignedRanks;
        else
            a.unaligned.push_back(ranks[i].rank);
        a.largestOffsetS = std::max(a.largestOffsetS, std::abs(offset[i]));
        const double start = double(ranks[i].originNs - epochNs) * 1e-9 - offset[i];
        originS = first ? start : std::min(originS, start);
        first = false;
    }
    for (size_t i = 0; i < ranks.size(); ++i) {
        RankProfile& r = ranks[i];
        r.clockOffsetS = offset[i];
        const double shift = double(r.originNs - epochNs) * 1e-9 - offset[i] - originS;
        for (StepFigures& s : r.steps)
            s.startS += shift;
        for (ProfileKernel& k : r.kernels) {
            k.startS += shift;
            k.endS += shift;
        }
        for (RankProfile::CollectiveEnd& e : r.collectiveEnds)
            e.endS += shift;
    }
    a.summary = summaryOf(a, ranks.size());
    return a;
}

} // namespace cs
