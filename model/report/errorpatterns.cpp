#include "errorpatterns.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "calibrate.h"

namespace cs {

bool ErrorGroup::pattern() const
{
    return int(rows.size()) >= kPatternMinRows && std::abs(meanError) >= kPatternMeanError;
}

std::vector<ErrorGroup> errorGroups(const std::vector<MeasuredRun>& runs,
                                    const std::vector<double>& errors)
{
    using Key = std::tuple<std::string, Precision, bool>;
    std::map<Key, ErrorGroup> byKey;
    std::map<Key, std::set<std::string>> families;
    for (size_t i = 0; i < runs.size() && i < errors.size(); ++i) {
        const MeasuredRun& r = runs[i];
        const Key key{r.cluster.gpu.name, r.run.precision, r.run.model.moe.has_value()};
        ErrorGroup& g = byKey[key];
        g.gpu = std::get<0>(key);
        g.precision = std::get<1>(key);
        g.experts = std::get<2>(key);
        g.rows.push_back(i);
        g.meanError += errors[i];
        g.mape += std::abs(errors[i]);
        families[key].insert(modelFamilyOf(r));
    }
    std::vector<ErrorGroup> groups;
    for (auto& [key, g] : byKey) {
        g.meanError /= double(g.rows.size());
        g.mape /= double(g.rows.size());
        g.families.assign(families[key].begin(), families[key].end());
        groups.push_back(std::move(g));
    }
    return groups;
}

namespace {

// The mean error of `rows` but `row`, of those `alike` says are like it; how many there are.
template <typename Alike>
std::pair<int, double> othersMean(const std::vector<size_t>& rows, size_t row,
                                  const std::vector<double>& errors, Alike alike)
{
    int n = 0;
    double sum = 0;
    for (size_t other : rows)
        if (other != row && alike(other)) {
            ++n;
            sum += errors[other];
        }
    return {n, n > 0 ? sum / n : 0.0};
}

bool sameWay(int others, double mean, double error)
{
    return others > 0 && std::abs(mean) >= kPatternMeanError && (mean > 0) == (error > 0);
}

} // namespace

std::vector<LargeRowError> largeRowErrors(const std::vector<ErrorGroup>& groups,
                                          const std::vector<MeasuredRun>& runs,
                                          const std::vector<double>& errors)
{
    std::vector<LargeRowError> large;
    for (const ErrorGroup& g : groups)
        for (size_t row : g.rows) {
            if (std::abs(errors[row]) < kLargeRowError)
                continue;
            LargeRowError e;
            e.row = row;
            e.error = errors[row];
            std::tie(e.others, e.othersMean) =
                othersMean(g.rows, row, errors, [](size_t) { return true; });
            const std::string& model = runs[row].run.model.name;
            std::tie(e.modelOthers, e.modelMean) =
                othersMean(g.rows, row, errors,
                           [&](size_t other) { return runs[other].run.model.name == model; });
            e.sharedByOthers = sameWay(e.others, e.othersMean, e.error) ||
                               sameWay(e.modelOthers, e.modelMean, e.error);
            large.push_back(e);
        }
    std::sort(large.begin(), large.end(),
              [](const LargeRowError& a, const LargeRowError& b) { return a.row < b.row; });
    return large;
}

std::string groupName(const ErrorGroup& g)
{
    return g.gpu + " " + toString(g.precision) + (g.experts ? " experts" : " dense");
}

} // namespace cs
