#pragma once
// The fabric's rules that need its graph, for `check`, `evaluate` and the application: the
// switches and links `failures` names exist, and a run's traffic still has a path with them
// out of service.

#include <string>

#include "description.h"
#include "diagnostics.h"

namespace cs {

// Every name in failures.switches and failures.links is one the fabric has (as `describe
// --json` lists them), and `rails` is at most gpus_per_node. Pointers are relative to the
// cluster object at `base` ("/failures/switches/3").
void checkFabric(const ClusterDesc& cluster, const std::string& file, const std::string& base,
                 Diagnostics& diags);

// Every flow of the run's collectives has a path left: with switches or links out of service,
// or leaves that no tier joins, a run whose traffic cannot arrive is refused with the reason,
// at the cluster's `failures` (or its `tiers` when nothing failed). The run must be valid on
// the cluster (checkRunOnCluster) and the cluster pass checkFabric.
void checkRunOnFabric(const ClusterDesc& cluster, const RunDesc& run, const std::string& file,
                      const std::string& base, Diagnostics& diags);

} // namespace cs
