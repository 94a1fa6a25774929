#pragma once
// What several commands do alike: report problems, load a cluster and a run.

#include <iosfwd>
#include <optional>
#include <string>

#include "clicommands.h"
#include "calibration.h"
#include "description.h"
#include "diagnostics.h"

namespace cs::cli {

void printDiagnostics(const Diagnostics& diags, std::ostream& out);

// Loads CLUSTER and RUN; with `checkOnCluster` the run must also be valid on that cluster
// (evaluate), without it only each file on its own (the search finds a layout that fits).
// Problems go to io.err.
std::optional<ClusterRun> loadClusterAndRun(const std::string& clusterPath,
                                            const std::string& runPath, bool checkOnCluster, Io io);

std::string percent(double fraction, int decimals = 1);

// The calibration `--calibration FILE` names, read and checked, or the built-in one; nothing
// (problems printed) when the file is bad.
class ParsedArgs;
std::optional<Calibration> calibrationOf(const ParsedArgs& args, Io io);

} // namespace cs::cli
