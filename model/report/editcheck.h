#pragma once
// The one check of a cluster and run edited in memory (the Properties panel, failing or
// repairing from the view): the rules a file is held to (validateClusterRun) and the fabric's,
// which need its graph (failed names exist, every flow still has a path).

#include "description.h"
#include "diagnostics.h"

namespace cs {

// Pointers are prefixed "/cluster" and "/run", as validateClusterRun's.
void checkEdit(const ClusterDesc& cluster, const RunDesc& run, Diagnostics& diags);

} // namespace cs
