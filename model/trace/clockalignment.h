#pragma once
// The ranks' clocks aligned on the collectives they share (profile.h's ClockAlignment), and every
// time of every rank moved onto the aligned clock, from the profile's origin.

#include <vector>

#include "profile.h"

namespace cs {

// `ranks` sorted by rank; the first is the reference.
ClockAlignment alignClocks(std::vector<RankProfile>& ranks);

} // namespace cs
