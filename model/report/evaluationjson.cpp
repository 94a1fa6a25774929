#include "evaluationjson.h"

#include <nlohmann/json.hpp>

#include "costmodel.h"

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
    j["fits_memory"] = e.fitsMemory;
    j["gpus_used"] = e.gpusUsed;
    j["gpus_idle"] = e.gpusIdle;
    j["gpus_failed"] = e.gpusFailed;
    if (e.timeToTrainS)
        j["time_to_train_s"] = *e.timeToTrainS;
    if (run.measured) {
        j["measured_s"] = run.measured->stepTimeS;
        j["error"] = e.stepTimeS / run.measured->stepTimeS - 1;
    }
    return j;
}

} // namespace cs
