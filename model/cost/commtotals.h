#pragma once
// Communication per dimension along the critical stage, hidden and exposed together, and the
// part of the exposed time spent on the scale-out fabric: the same accounting for the
// simulation and the closed form.

#include "evaluation.h"
#include "workload.h"

namespace cs {

// Needs e.breakdown filled. ppScaleOut: the exposed pipeline time on fabric hops; dpStepTotal:
// the critical stage's once-a-step parameter gathers and gradient reductions (FSDP's per-layer
// ones are in the ops).
void fillCommTotals(const Workload& w, int critical, double ppTotal, double dpStepTotal,
                    double ppScaleOut, Evaluation& e);

} // namespace cs
