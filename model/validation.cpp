#include "validation.h"

#include "loader.h"

namespace cs {

void validateClusterRun(const ClusterDesc& cluster, const RunDesc& run, Diagnostics& diags)
{
    const std::string where = "edit";
    const bool clusterOk = clusterFromJson(toJson(cluster), where, "/cluster", diags).has_value();
    nlohmann::json runJson = toJson(run);
    runJson.erase("cluster"); // a path on disk is not part of what an edit changes
    const bool runOk = runFromJson(runJson, where, "/run", diags).has_value();
    if (clusterOk && runOk)
        checkRunOnCluster(run, cluster, where, "/run", diags);
}

} // namespace cs
