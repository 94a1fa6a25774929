#pragma once
// Several jobs on one cluster on the command line (formats.md "Several jobs on one cluster"):
// evaluate and links with more than one RUN, and place.

#include <optional>
#include <string>
#include <vector>

#include "calibration.h"
#include "clicommands.h"
#include "description.h"

namespace cs::cli {

class ParsedArgs;

struct ClusterJobs {
    ClusterDesc cluster;
    std::vector<RunDesc> runs;
    std::vector<std::string> names; // one per run, unique: its name, numbered when repeated
};

// CLUSTER and every RUN, each valid on it; with `checkTogether`, the runs valid together
// (checkJobs: allocations, no overlap). Problems go to io.err.
std::optional<ClusterJobs> loadJobs(const std::string& clusterPath,
                                    const std::vector<std::string>& runPaths, bool checkTogether,
                                    Io io);

// evaluate CLUSTER RUN RUN..., after its words were parsed.
int evaluateJobsCommand(const ParsedArgs& args, const Calibration& calibration, Io io);

} // namespace cs::cli
