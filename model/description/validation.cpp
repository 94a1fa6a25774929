#include "validation.h"

#include "loader.h"

namespace cs {

void validateClusterRun(const ClusterDesc& cluster, const RunDesc& run, Diagnostics& diags)
{
    const std::string where = "edit";
    ClusterDesc checked = cluster;
    // A GPU named from the catalog is written by name only: when its figures were edited away
    // from the catalog's, the figures are what gets evaluated, so they are what gets checked.
    if (checked.gpuByName) {
        const GpuSpec* catalog = findCatalogGpu(checked.gpu.name);
        checked.gpuByName = catalog && *catalog == checked.gpu;
    }
    nlohmann::json clusterJson = toJson(checked);
    // toJson leaves out 0, "automatic"; any other value out of range is the file's error.
    if (cluster.layoutRows < 0)
        clusterJson["layout"]["rows"] = cluster.layoutRows;
    const bool clusterOk = clusterFromJson(clusterJson, where, "/cluster", diags).has_value();
    nlohmann::json runJson = toJson(run);
    runJson.erase("cluster"); // a path on disk is not part of what an edit changes
    if (run.parallelism.dp < 0)
        runJson["parallelism"]["dp"] = run.parallelism.dp;
    const bool runOk = runFromJson(runJson, where, "/run", diags).has_value();
    if (clusterOk && runOk)
        checkRunOnCluster(run, cluster, where, "/run", diags);
}

} // namespace cs
