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
    // Read by the loader once it learns them (formats.md: mixture of experts, attention
    // variants, checkpoints).
    json core = run;
    for (const char* key : {"head_dim", "mtp_layers", "attention", "moe"})
        core["model"].erase(key);
    for (const char* key : {"ep", "etp", "fsdp"})
        core["parallelism"].erase(key);
    if (core["parallelism"]["recompute"].is_array())
        core["parallelism"]["recompute"] = "selective";
    core.erase("checkpoint");
    Diagnostics found;
    if (const auto desc = runFromJson(core, at.file, "", found))
        checkRunShape(*desc, at.file, "", found);
    return report(found, "run", at, r);
}

bool checkImportedCluster(const json& cluster, const SourcePlace& at, ImportReport& r)
{
    json core = cluster;
    for (const char* key : {"switch_radix", "nodes_per_leaf", "rails", "routing"})
        core["scale_out"]["topology"].erase(key);
    core.erase("failures");
    Diagnostics found;
    clusterFromJson(core, at.file, "", found);
    return report(found, "cluster", at, r);
}

} // namespace cs
