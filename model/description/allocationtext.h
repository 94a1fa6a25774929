#pragma once
// An allocation (formats.md `allocation`) as people read and type it: "racks 0-7, 12" or
// "nodes 0-31". One printer and one parser for the command line, the Jobs dock, Place Job and
// the Properties panel, so that what one shows the other reads back.

#include <optional>
#include <string>
#include <string_view>

#include "description.h"

namespace cs {

// "racks 8-15", "node 12", "racks 0-3, 8-11": an allocation in words.
std::string allocationText(const Allocation& allocation);
// The same, and "the whole cluster" for a run without an allocation.
std::string allocationText(const std::optional<Allocation>& allocation);

// The allocation typed, or nothing and why (`error`, a phrase without a full stop): a unit
// ("racks" or "nodes", "rack" or "node", in any case) and ranges "first-last" or single
// indices separated by commas, each first <= last, of at most nine digits. Whether the racks
// or nodes exist on a cluster, or overlap another job's, is the checks' business (checkJobs).
std::optional<Allocation> parseAllocation(std::string_view text, std::string* error);

} // namespace cs
