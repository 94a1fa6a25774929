#pragma once
// The step timed as an event-level schedule: interleaved 1F1B op by op (schedule.h), the
// data-parallel buckets on each stage's NICs, the breakdown read along the critical stage.
// This is the cost model's answer; the closed form (closedform.h) only bounds it.

#include "evaluation.h"
#include "workload.h"

namespace cs {

// Without `timeline`, the events are left out; the figures are the same.
Evaluation simulateStep(const Workload& w, bool timeline);

} // namespace cs
