#include "alltoall.h"

namespace cs {

namespace {

// The op's compute, which comes before its collectives among the op's events.
std::optional<EventKind> computeOfOp(const std::vector<Event>& events, size_t index)
{
    const int op = events[index].op;
    for (size_t j = index; op >= 0 && j-- > 0 && events[j].op == op;)
        if (events[j].kind == EventKind::Forward || events[j].kind == EventKind::Backward)
            return events[j].kind;
    return std::nullopt;
}

} // namespace

std::optional<AllToAllLabel> allToAllLabel(const std::vector<Event>& events, size_t index)
{
    if (index >= events.size() || !events[index].isComm() || events[index].dim != Dim::EP)
        return std::nullopt;
    const std::optional<EventKind> pass = computeOfOp(events, index);
    if (pass == EventKind::Backward)
        return AllToAllLabel{"combine + dispatch (grad)",
                             "expert all-to-all, backward: the gradients of the combine, then "
                             "of the dispatch"};
    if (pass == EventKind::Forward)
        return AllToAllLabel{"dispatch + combine",
                             "expert all-to-all, forward: tokens dispatched to their experts, "
                             "then the results combined"};
    return AllToAllLabel{"dispatch + combine", "expert all-to-all: dispatch and combine"};
}

} // namespace cs
