#include "evaluationjson.h"

#include <nlohmann/json.hpp>

#include "costmodel.h"
#include "goodput.h"

namespace cs {

namespace {

using nlohmann::json;

json perDimJson(const PerDim<double>& v, const RunDesc& run)
{
    json j = json::object();
    for (Dim d : kAllDims)
        if (usesDim(run, d))
            j[toString(d)] = v[d];
    return j;
}

json splitJson(const TimeSplit& split)
{
    json j = json::object();
    for (const TimeSplit::Part& part : split.parts())
        j[std::string(part.key)] = part.seconds;
    return j;
}

// Non-finite times (a run that failures keep from finishing) are written as null.
json goodputJson(const Goodput& g)
{
    json j;
    j["checkpoint_bytes"] = g.checkpoint.bytes;
    j["checkpoint_write_s"] = g.checkpoint.writeS;
    j["checkpoint_read_s"] = g.checkpoint.readS;
    j["checkpoint_host_copy_s"] = g.checkpoint.hostCopyS;
    j["async"] = g.checkpoint.async;
    j["interval_steps"] = g.intervalSteps();
    j["interval_auto"] = g.intervalAuto;
    j["optimal_interval_steps"] = g.optimalIntervalSteps;
    j["failures_per_day"] = g.failures.perDay();
    j["goodput"] = g.goodput();
    if (const auto t = g.timeToTrainS())
        j["time_to_train_s"] = *t;
    if (const auto t = g.timeToTrainIdealS())
        j["time_to_train_ideal_s"] = *t;
    if (const auto split = g.timeToTrainSplit())
        j["time_to_train_split_s"] = splitJson(*split);
    j["assumed"] = g.assumed();
    return j;
}

} // namespace

json evaluationJson(const Evaluation& e, const RunDesc& run)
{
    json j;
    j["step_time_s"] = e.stepTimeS;
    json bd = json::object();
    for (const Breakdown::Part& part : e.breakdown.parts())
        if (!part.dim || usesDim(run, *part.dim))
            bd[std::string(part.key)] = part.seconds;
    j["breakdown"] = bd;
    j["comm_total_s"] = perDimJson(e.commTotalS, run);
    j["comm_exposed_s"] = perDimJson(e.commExposedS, run);
    j["exposed_scale_out_s"] = e.exposedScaleOutS;
    j["mfu"] = e.mfu;
    j["tokens_per_s"] = e.tokensPerS;
    j["memory_gib_per_gpu"] = e.memoryGiBPerGpu;
    j["memory_gib_per_stage"] = e.memoryGiBPerStage;
    json parts = json::object();
    for (const MemoryPart& p : kMemoryParts)
        parts[p.key] = e.memory.*p.gib;
    j["memory_gib_parts"] = parts;
    j["fits_memory"] = e.fitsMemory;
    j["gpus_used"] = e.gpusUsed;
    j["gpus_idle"] = e.gpusIdle;
    j["gpus_failed"] = e.gpusFailed;
    if (e.timeToTrainS)
        j["time_to_train_s"] = *e.timeToTrainS;
    if (e.goodput)
        j["goodput"] = goodputJson(*e.goodput);
    if (e.variance)
        j["variance"] = {{"step_stddev_s", e.variance->stepStddevS},
                         {"straggler_s", e.variance->stragglerS},
                         {"step_jitter", e.variance->jitter.sigma}};
    if (run.measured) {
        j["measured_s"] = run.measured->stepTimeS;
        j["error"] = e.stepTimeS / run.measured->stepTimeS - 1;
    }
    return j;
}

} // namespace cs
