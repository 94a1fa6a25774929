#include "common.h"

#include <ostream>

#include "loader.h"
#include "options.h"
#include "text.h"
#include "validation.h"

namespace cs::cli {

void printDiagnostics(const Diagnostics& diags, std::ostream& out)
{
    for (const Diagnostic& d : diags.items())
        out << d.format() << "\n";
}

std::optional<ClusterRun> loadClusterAndRun(const std::string& clusterPath,
                                            const std::string& runPath, bool checkOnCluster, Io io)
{
    Diagnostics diags;
    const std::optional<LoadedFile> c = loadFile(clusterPath, diags);
    const std::optional<LoadedFile> r = loadFile(runPath, diags);
    if (c && c->kind != FileKind::Cluster)
        diags.atPointer(clusterPath, "/format",
                        std::string("is not a cluster (\"") + kClusterFormat + "\")");
    if (r && r->kind != FileKind::Run)
        diags.atPointer(runPath, "/format", std::string("is not a run (\"") + kRunFormat + "\")");
    if (diags.empty() && (!c || !r || !c->cluster || !r->run))
        diags.atPointer(runPath, "", "could not be loaded");
    if (diags.empty() && checkOnCluster)
        checkRunOnCluster(*r->run, *c->cluster, runPath, "", diags);
    if (!diags.empty()) {
        printDiagnostics(diags, io.err);
        return std::nullopt;
    }
    return ClusterRun{*c->cluster, *r->run};
}

std::optional<Calibration> calibrationOf(const ParsedArgs& args, Io io)
{
    const std::optional<std::string> path = args.value(kCalibrationOption.name);
    if (!path)
        return defaultCalibration();
    Diagnostics diags;
    std::optional<Calibration> read = readCalibration(*path, diags);
    printDiagnostics(diags, io.err);
    return read;
}

std::string percent(double fraction, int decimals)
{
    return fixed(100 * fraction, decimals) + " %";
}

} // namespace cs::cli
