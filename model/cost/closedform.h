#pragma once
// The same schedule in closed form, for a search that must look at hundreds of thousands of
// layouts: cheap, close to the simulation (within a few per cent on aligned layouts), and used
// only to choose which layouts the simulation then times.

#include "evaluation.h"
#include "workload.h"

namespace cs {

// Step time, breakdown and communication totals; no events.
Evaluation estimateStep(const Workload& w);

} // namespace cs
