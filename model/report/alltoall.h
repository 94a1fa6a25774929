#pragma once
// The expert all-to-all as the views name it. An op's exposed all-to-all is one event (the
// dispatch and combine of all its MoE layers together, Event::dim == Dim::EP); whether the op
// runs forward or backward says which way its tokens go: forward, dispatch to the experts then
// combine back; backward, the gradients take the combine's way first, then the dispatch's.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "evaluation.h"

namespace cs {

struct AllToAllLabel {
    std::string brief; // fits in a timeline box: "dispatch + combine"
    std::string text;  // a sentence for a tooltip
};

// The label of events[index]; nothing when it is not an expert all-to-all.
std::optional<AllToAllLabel> allToAllLabel(const std::vector<Event>& events, size_t index);

} // namespace cs
