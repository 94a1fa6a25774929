#pragma once
// The predicted step as Chrome trace events (Perfetto, chrome://tracing): one process per
// pipeline stage with rows for compute, TP/CP collectives, PP sends and the DP fabric.
//
// The text is written event by event, no JSON document is built, so a trace costs about its
// own size in memory. It holds the events the evaluation keeps (at most kMaxStepEvents); what
// a step of very many micro-batches leaves out is said in the trace (otherData) and by
// leftOutNote.

#include <string>

#include "costmodel.h"

namespace cs {

struct ChromeTrace {
    std::string text;        // JSON
    size_t events = 0;       // complete ("X") events in it
    int64_t leftOut = 0;     // events of the step not in it (about)
    std::string leftOutNote; // a sentence saying what is left out; empty when nothing is
};

ChromeTrace chromeTrace(const Evaluation& evaluation, const RunDesc& run);
// Evaluates the run with its events and returns its trace.
ChromeTrace chromeTraceOf(const ClusterDesc& cluster, const RunDesc& run);

} // namespace cs
