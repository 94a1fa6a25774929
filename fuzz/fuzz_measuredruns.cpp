// Measured-runs files (*.jsonl): every row is parsed and turned into a cluster and a run.

#include "fuzzutil.h"
#include "measuredruns.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    cs::Diagnostics diags;
    const auto runs = cs::parseMeasuredRuns(csfuzz::asText(data, size), "f", diags);
    for (const cs::MeasuredRun& mr : runs)
        csfuzz::require(mr.line >= 1 && mr.cluster.gpuCount() >= 1, "a kept row is malformed");
    return 0;
}
