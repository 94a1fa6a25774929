#pragma once
// A Slurm topology.conf (the tree plugin's SwitchName= lines and the block plugin's BlockName= /
// BlockSizes= lines) turned into a cluster whose leaves, spines and racks follow the file.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "importreport.h"

namespace cs {

struct SlurmClusterOptions {
    std::string gpu; // a catalog GPU
    int gpusPerNode = 0;
    // Nodes out of service, one hostname or hostlist a line; nullptr when none are.
    const SourceText* down = nullptr;
};

// Racks are the blocks (an NVLink domain each, as with NVL72 racks), or else the leaf switches'
// node groups; a rack or leaf listing fewer nodes than the largest has its empty places marked
// out of service. Nodes are numbered rack-major in the order the file lists them, which is how
// failures.nodes names them.
std::optional<nlohmann::json> importSlurmTopology(const SourceText& topology,
                                                  const SlurmClusterOptions& options,
                                                  ImportReport& report);

} // namespace cs
