#include "expertdispatch.h"

#include <algorithm>
#include <cmath>

namespace cs {

double missesDomain(double domains, int topK, const std::optional<RouterGroups>& limit)
{
    const double anyExpert = std::pow(1 - 1 / domains, double(topK));
    if (!limit)
        return anyExpert;
    const double groups = limit->groups, chosen = limit->topK;
    if (std::fmod(groups, domains) == 0) { // none of the domain's groups chosen
        double miss = 1;
        for (double i = 0; i < chosen; ++i)
            miss *= (groups - groups / domains - i) / (groups - i);
        return miss;
    }
    if (std::fmod(domains, groups) == 0) {
        const double perGroup = std::max(1.0, topK / chosen);
        return 1 - chosen / groups + chosen / groups * std::pow(1 - groups / domains, perGroup);
    }
    return anyExpert;
}

AllToAllCopies allToAllCopies(const GroupShape& shape, int topK,
                              const std::optional<RouterGroups>& limit, bool flex)
{
    const double ep = double(shape.perDomain) * shape.domains;
    if (ep <= 1)
        return {};
    if (!flex) // every copy straight to its expert's GPU
        return {topK * (shape.perDomain - 1) / ep, topK * (ep - shape.perDomain) / ep};
    const double domains = shape.domains;
    return {(ep - 1) * (1 - missesDomain(ep, topK, limit)),
            domains > 1 ? (domains - 1) * (1 - missesDomain(domains, topK, limit)) : 0};
}

double allToAllSeconds(double tokens, double tokenBytes, int topK, const Workload& w,
                       const Calibration& cal)
{
    const GroupShape& shape = w.dims[Dim::EP].shape;
    if (shape.perDomain * shape.domains <= 1)
        return 0;
    const AllToAllCopies copies = allToAllCopies(shape, topK, w.routerGroups, w.flexDispatcher);
    const LinkSpeed& inner = w.dims[Dim::EP].group.inner; // slowed by contention, if any
    const LinkSpeed& outer = w.dims[Dim::EP].group.outer;
    const double insideS = tokens * tokenBytes * copies.nvlink /
                           (inner.GBps * 1e9 * cal.allToAllEfficiency / cal.nvlinkEfficiency);
    const double outsideS = tokens * tokenBytes * copies.fabric /
                            (outer.GBps * 1e9 * cal.allToAllEfficiency / cal.scaleOutEfficiency);
    const double latencyS =
        1e-6 * (inner.latencyUs + (shape.crossesDomains() ? outer.latencyUs : 0));
    return std::max(insideS, outsideS) + latencyS;
}

} // namespace cs
