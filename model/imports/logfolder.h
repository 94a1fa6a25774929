#pragma once
// A folder of training logs as measured runs, for the measured-runs view.

#include <string>
#include <vector>

#include "importreport.h"
#include "measuredruns.h"

namespace cs {

// The most files of a folder read as logs; the rest are reported and left out.
inline constexpr size_t kMaxFolderLogs = 1000;

// Every *.log and *.txt file of `folder`, by name: an MLPerf result log when it has ":::MLLOG"
// lines, else a Megatron training log. A log beside a Megatron launch script of its name
// (NAME.sh or NAME.sbatch) is measured against the run that script launches, any other against
// `run`; each on `cluster`. A file the importers refuse, or whose run does not fit the cluster,
// has its errors in the report and is left out; the other files are kept.
std::vector<MeasuredRun> importLogFolder(const std::string& folder, const ClusterDesc& cluster,
                                         const RunDesc& run, ImportReport& report);

// The per-step times a run's measurement kept (kMeasuredStepTimesKey); empty when it kept none.
std::vector<double> measuredStepTimes(const RunDesc& run);

} // namespace cs
