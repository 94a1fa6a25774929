#include "editcheck.h"

#include "fabriccheck.h"
#include "validation.h"

namespace cs {

void checkEdit(const ClusterDesc& cluster, const RunDesc& run, Diagnostics& diags)
{
    // The fabric's checks assume what the first pass checks: each runs only on what passed.
    const std::string where = "edit";
    validateClusterRun(cluster, run, diags);
    if (diags.empty())
        checkFabric(cluster, where, "/cluster", diags);
    if (diags.empty())
        checkRunOnFabric(cluster, run, where, "/cluster", diags);
}

} // namespace cs
