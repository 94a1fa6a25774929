#pragma once
// Slurm hostlists, as topology.conf, scontrol and sinfo write them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs {

// Expands a hostlist: "gpu[001-032,040]" -> gpu001 ... gpu032, gpu040 (the zero padding of a
// range's first number kept), several bracket groups ("r[1-2]n[1-3]": every combination, the
// last group fastest), comma-separated items ("a,b[1-2]"). Returns nothing and sets `problem`
// for text that is not a hostlist or that names more than `limit` hosts.
std::optional<std::vector<std::string>> expandHostlist(std::string_view text, size_t limit,
                                                       std::string& problem);

} // namespace cs
