#include "importcheck.h"

#include "loader.h"

namespace cs {

using nlohmann::json;

namespace {

bool report(const Diagnostics& found, const std::string& what, const SourcePlace& at,
            ImportReport& r)
{
    for (const Diagnostic& d : found.items())
        r.error(at, "the imported " + what + " would not load: " +
                        (d.pointer.empty() ? "" : d.pointer + ": ") + d.message);
    return found.empty();
}

} // namespace

bool checkImportedRun(const json& run, const SourcePlace& at, ImportReport& r)
{
    Diagnostics found;
    runFromJson(run, at.file, "", found);
    return report(found, "run", at, r);
}

bool checkImportedCluster(const json& cluster, const SourcePlace& at, ImportReport& r)
{
    Diagnostics found;
    clusterFromJson(cluster, at.file, "", found);
    return report(found, "cluster", at, r);
}

} // namespace cs
