#pragma once
// What to import and from which files, as `clusterscope-cli import` and File > Import ask for
// it: one definition of how the importers are called.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "importreport.h"

namespace cs {

// The kinds of input, as the command line names them.
inline constexpr std::array<std::string_view, 4> kImportKinds{"megatron", "nemo", "mllog", "slurm"};

struct ImportRequest {
    std::string kind;
    std::vector<std::string> files; // megatron: the scripts in order; the others: one file
    std::string log;                // megatron: the training log
    std::string system;             // mllog: the submission's system description
    std::string gpu;                // slurm: the GPU of every node
    int gpusPerNode = 0;            // slurm
    std::string down;               // slurm: nodes out of service
};

// The file at `path`, read as readSource does; nothing, without an error, for no path (an
// optional input not given).
std::optional<SourceText> readGivenSource(const std::string& path, ImportReport& report);

// The run (megatron, nemo) or cluster (slurm) the files describe; nothing when a file cannot be
// read or the importer refuses it, every reason in the report. mllog is read with readMllog.
std::optional<nlohmann::json> importDescription(const ImportRequest& request, ImportReport& report);

} // namespace cs
