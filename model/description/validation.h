#pragma once
// The rules a run must follow, alone and on its cluster, shared by the loader, the editor
// (validateClusterRun) and the measured-runs reader, so that one value gets one message
// wherever it comes from.

#include <string>
#include <vector>

#include "description.h"
#include "diagnostics.h"

namespace cs {

// The most passes of a micro-batch through a pipeline chunk one step may hold: micro-batches
// per pipeline x pp x vp. The step is simulated op by op (two ops a pass) wherever its steady
// state does not repeat, so this bounds the time and memory of any evaluation.
inline constexpr int64_t kMaxChunkPasses = int64_t(1) << 21;

// The semantic rules of a run alone (divisibility of heads, sequence, layers, batch, experts;
// placement), on the struct, cheap enough for a search over many candidates. Pointers are
// relative to the run object at `runBase`.
void checkRunShape(const RunDesc& run, const std::string& file, const std::string& runBase,
                   Diagnostics& diags);

// The rules that need both descriptions: the healthy GPU count, dp, batch divisibility, the
// expert groups' folding, precision support.
void checkRunOnCluster(const RunDesc& run, const ClusterDesc& cluster, const std::string& file,
                       const std::string& runBase, Diagnostics& diags);

// Where a run was read: its file and the JSON pointer of the run object in it ("" for a run
// file, "/jobs/2/run" in a session).
struct RunSource {
    std::string file;
    std::string pointer;
};
// The runs of a session (sessionRuns: its run, then its jobs) where the session file has them.
std::vector<RunSource> sessionRunSources(const std::string& file, size_t jobs);

// The rules between the jobs on one cluster (formats.md "Several jobs on one cluster"), each
// run already valid on it (checkRunOnCluster): at most kMaxSessionJobs; with more than one,
// each has an allocation and no two hold the same node (the first shared node is named).
// `sources` is parallel to `runs`. An allocation by nodes that splits an NVLink domain larger
// than a node goes into `warnings` when given: it is allowed, but the domain is not shared.
void checkJobs(const ClusterDesc& cluster, const std::vector<RunDesc>& runs,
               const std::vector<RunSource>& sources, Diagnostics& diags,
               Diagnostics* warnings = nullptr);

// Checks descriptions built in memory (by an editor) by exactly the rules files are held to,
// so an edit is refused with the same message a file with that value would get. Pointers are
// prefixed "/cluster" and "/run".
void validateClusterRun(const ClusterDesc& cluster, const RunDesc& run, Diagnostics& diags);

} // namespace cs
