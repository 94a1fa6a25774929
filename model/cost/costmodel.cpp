#include "costmodel.h"

#include <algorithm>

#include "calibration.h"
#include "closedform.h"
#include "simulation.h"
#include "workload.h"

namespace cs {

namespace {

const Calibration& calibrationOf(const EvalOptions& opts)
{
    return opts.calibration ? *opts.calibration : defaultCalibration();
}

// What both methods derive the same way from the step time and the workload.
void finish(const ClusterDesc& cluster, const RunDesc& run, const Workload& w, Evaluation& e)
{
    e.commExposedS = e.breakdown.exposed;
    e.tokensPerS = w.tokensPerStep / e.stepTimeS;
    e.mfu = w.modelFlopsPerStep / (e.stepTimeS * double(w.gpus) * w.peakFlopsPerGpu);
    e.memoryGiBPerStage = w.memoryGiB;
    e.memoryGiBPerGpu = *std::max_element(w.memoryGiB.begin(), w.memoryGiB.end());
    e.memory = w.busiestMemory;
    e.fitsMemory = e.memoryGiBPerGpu <= cluster.gpu.hbmGiB;
    if (run.trainingSteps)
        e.timeToTrainS = e.stepTimeS * *run.trainingSteps;
    // A job on an allocation: the GPUs idle in it; the failed ones are the cluster's.
    e.gpusUsed = w.gpus;
    e.gpusIdle = allocatedGpuCount(cluster, run) - w.gpus;
    e.gpusFailed = cluster.gpuCount() - cluster.healthyGpuCount();
}

// The training run around the step: only what is shown, so the search's estimates skip it.
void finishTrainingRun(const ClusterDesc& cluster, const RunDesc& run, const Workload& w,
                       Evaluation& e)
{
    TrainingRun training = trainingRunOf(cluster, run, e.stepTimeS, w.modelParams(), w.gpus);
    e.goodput = std::move(training.goodput);
    e.variance = std::move(training.variance);
}

} // namespace

std::vector<int> layersPerVirtualStage(const ClusterDesc& cluster, const RunDesc& run)
{
    return buildWorkload(cluster, run, defaultCalibration()).layers;
}

std::vector<Breakdown::Part> Breakdown::parts() const
{
    std::vector<Part> out;
    out.reserve(5 + kDimCount);
    out.push_back({"compute", "compute", compute, std::nullopt});
    out.push_back({"recompute", "recompute", recompute, std::nullopt});
    for (const DimInfo& d : kDims)
        out.push_back(
            {d.exposedKey, std::string(d.shortLabel) + " exposed", exposed[d.dim], d.dim});
    out.push_back({"bubble", "bubble", bubble, std::nullopt});
    out.push_back({"optimizer", "optimizer", optimizer, std::nullopt});
    out.push_back({"overhead", "overhead", overhead, std::nullopt});
    return out;
}

double Breakdown::total() const
{
    double sum = compute + recompute + bubble + optimizer + overhead;
    for (double s : exposed.values)
        sum += s;
    return sum;
}

std::string_view eventName(const Event& e)
{
    if (e.isComm())
        return dimInfo(e.dim).key;
    return toString(e.kind);
}

Evaluation evaluate(const ClusterDesc& cluster, const RunDesc& run, const EvalOptions& opts)
{
    const Workload w = buildWorkload(cluster, run, calibrationOf(opts), opts.fabric);
    Evaluation e = simulateStep(w, opts.timeline);
    finish(cluster, run, w, e);
    finishTrainingRun(cluster, run, w, e);
    return e;
}

Evaluation estimate(const ClusterDesc& cluster, const RunDesc& run, const EvalOptions& opts)
{
    thread_local Workload w; // its buffers serve the next estimate on the thread
    rebuildWorkload(cluster, run, calibrationOf(opts), w, opts.fabric);
    Evaluation e = estimateStep(w);
    finish(cluster, run, w, e);
    return e;
}

} // namespace cs
