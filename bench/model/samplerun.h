#pragma once
// A sample run with its cluster, for the model benchmarks; exits with the problems when it
// does not load.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "loader.h"

namespace csbench {

inline cs::ClusterRun loadSampleRun(const std::string& runFile)
{
    cs::Diagnostics diags;
    const auto loaded = cs::loadFile(std::string(CS_SAMPLES_DIR) + "/" + runFile, diags);
    if (!loaded || !loaded->run || !loaded->cluster) {
        std::fprintf(stderr, "%s", diags.formatAll().c_str());
        std::exit(1);
    }
    return {*loaded->cluster, *loaded->run};
}

} // namespace csbench
