#pragma once
// The rules a run must follow, alone and on its cluster, shared by the loader, the editor
// (validateClusterRun) and the measured-runs reader, so that one value gets one message
// wherever it comes from.

#include <string>

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

// Checks descriptions built in memory (by an editor) by exactly the rules files are held to,
// so an edit is refused with the same message a file with that value would get. Pointers are
// prefixed "/cluster" and "/run".
void validateClusterRun(const ClusterDesc& cluster, const RunDesc& run, Diagnostics& diags);

} // namespace cs
