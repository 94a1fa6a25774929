#pragma once
// Checks descriptions built in memory (by an editor) by exactly the rules files are held to,
// so an edit is refused with the same message a file with that value would get.

#include "description.h"
#include "diagnostics.h"

namespace cs {

// Pointers are prefixed "/cluster" and "/run".
void validateClusterRun(const ClusterDesc& cluster, const RunDesc& run, Diagnostics& diags);

} // namespace cs
