#include "comparison.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "extensions.h"
#include "loader.h"
#include "text.h"
#include "validation.h"
#include "writer.h"

namespace cs {

using nlohmann::json;

namespace {

double tokensPerStep(const RunDesc& run)
{
    return double(run.batch.global) * double(run.model.seqLen);
}

double perGpu(double value, const Evaluation& e)
{
    return e.gpusUsed > 0 ? value / double(e.gpusUsed) : 0;
}

std::vector<Figure> figuresOf(const Comparison& c)
{
    const Evaluation& ea = c.evalA;
    const Evaluation& eb = c.evalB;
    const double ta = tokensPerStep(c.a.run), tb = tokensPerStep(c.b.run);
    const auto gpuSecondsPerToken = [](const Evaluation& e, double tokens) {
        return tokens > 0 ? e.stepTimeS * double(e.gpusUsed) / tokens : 0;
    };
    std::vector<Figure> f = {
        {"gpus_used", "GPUs", FigureUnit::Count, false, false, double(ea.gpusUsed),
         double(eb.gpusUsed)},
        {"step_time_s", "step time", FigureUnit::Seconds, false, false, ea.stepTimeS, eb.stepTimeS},
        {"tokens_per_step", "tokens per step", FigureUnit::Count, false, true, ta, tb},
        {"tokens_per_s", "tokens per second", FigureUnit::Rate, false, true, ea.tokensPerS,
         eb.tokensPerS},
        {"memory_gib_per_gpu", "memory per GPU", FigureUnit::GiB, false, false, ea.memoryGiBPerGpu,
         eb.memoryGiBPerGpu},
        {"tokens_per_s_per_gpu", "tokens per second per GPU", FigureUnit::Rate, true, true,
         perGpu(ea.tokensPerS, ea), perGpu(eb.tokensPerS, eb)},
        {"tokens_per_gpu_hour", "tokens per GPU-hour", FigureUnit::Count, true, true,
         perGpu(ea.tokensPerS, ea) * 3600, perGpu(eb.tokensPerS, eb) * 3600},
        {"gpu_s_per_token", "GPU time per token", FigureUnit::GpuSeconds, true, false,
         gpuSecondsPerToken(ea, ta), gpuSecondsPerToken(eb, tb)},
        {"mfu", "MFU", FigureUnit::Fraction, true, true, ea.mfu, eb.mfu},
        {"hbm_in_use", "HBM in use", FigureUnit::Fraction, true, false,
         ea.memoryGiBPerGpu / std::max(1e-9, c.a.cluster.gpu.hbmGiB),
         eb.memoryGiBPerGpu / std::max(1e-9, c.b.cluster.gpu.hbmGiB)},
    };
    if (ea.timeToTrainS && eb.timeToTrainS) {
        f.push_back({"time_to_train_s", "time to train", FigureUnit::TrainingTime, false, false,
                     *ea.timeToTrainS, *eb.timeToTrainS});
        f.push_back({"gpu_hours_to_train", "GPU-hours to train", FigureUnit::GpuHours, true, false,
                     *ea.timeToTrainS * double(ea.gpusUsed) / 3600,
                     *eb.timeToTrainS * double(eb.gpusUsed) / 3600});
    }
    return f;
}

std::vector<BreakdownRow> breakdownOf(const Comparison& c)
{
    const auto pa = c.evalA.breakdown.parts();
    const auto pb = c.evalB.breakdown.parts();
    const auto perToken = [](double s, const Evaluation& e, const RunDesc& run) {
        const double tokens = tokensPerStep(run);
        return tokens > 0 ? s * double(e.gpusUsed) / tokens : 0;
    };
    std::vector<BreakdownRow> rows;
    for (size_t i = 0; i < pa.size(); ++i) {
        if (pa[i].dim && !usesDim(c.a.run, *pa[i].dim) && !usesDim(c.b.run, *pa[i].dim))
            continue;
        rows.push_back({std::string(pa[i].key), pa[i].label, pa[i].dim, pa[i].seconds,
                        pb[i].seconds, perToken(pa[i].seconds, c.evalA, c.a.run),
                        perToken(pb[i].seconds, c.evalB, c.b.run)});
    }
    return rows;
}

WhatIf evaluateWhatIf(WhatIf w, const ClusterDesc& cluster, const RunDesc& run)
{
    w.hbmGiB = cluster.gpu.hbmGiB;
    Diagnostics diags;
    checkRunShape(run, "", "", diags);
    checkRunOnCluster(run, cluster, "", "", diags);
    if (!diags.empty()) {
        w.why = diags.items().front().message;
        return w;
    }
    const Evaluation e = evaluate(cluster, run);
    w.valid = true;
    w.tokensPerSPerGpu = perGpu(e.tokensPerS, e);
    w.memoryGiBPerGpu = e.memoryGiBPerGpu;
    w.fitsMemory = e.fitsMemory;
    return w;
}

WhatIf gpuSwapped(const std::string& label, ClusterDesc cluster, const ClusterDesc& gpuFrom,
                  const RunDesc& run)
{
    cluster.gpu = gpuFrom.gpu;
    cluster.gpuByName = gpuFrom.gpuByName;
    WhatIf w;
    w.label = label;
    return evaluateWhatIf(std::move(w), cluster, run);
}

// Inputs that do not stand alone: counts change dp, dp follows the counts, and the GPU's
// fields go together (gpuSwapped). Names and records are not inputs of the step.
bool changesAlone(const std::string& path)
{
    for (std::string_view fixedPath :
         {"/cluster/gpu/", "/cluster/racks", "/cluster/nodes_per_rack", "/cluster/gpus_per_node",
          "/cluster/layout/", "/cluster/failures", "/run/parallelism/dp", "/run/model/name",
          "/run/measured/", "/run/training/"})
        if (path.rfind(fixedPath, 0) == 0)
            return false;
    return true;
}

bool isAllocation(const std::string& path)
{
    return path.rfind("/run/allocation/", 0) == 0;
}

// B with one input at A's value, on B's cluster. Where B has none of the section the input
// belongs to (no `storage`), it takes A's whole section: its fields do not stand alone.
WhatIf withInputOfA(const ClusterRun& a, const ClusterRun& b, const InputDifference& d)
{
    WhatIf w;
    w.label = "B with " + d.label + " " + inputText(d.a) + " (A's)";
    w.path = d.path;
    json j = {{"cluster", toJson(b.cluster)}, {"run", toJson(b.run)}};
    const json::json_pointer pointer(d.path);
    const json::json_pointer section = pointer.parent_pointer();
    if (isAllocation(d.path)) {
        // An allocation is one kind of range: B takes A's whole allocation, or none.
        w.label = "B on A's allocation";
        j["run"].erase("allocation");
        if (const json runA = toJson(a.run); runA.contains("allocation"))
            j["run"]["allocation"] = runA["allocation"];
    } else if (d.a.is_null()) {
        j[section].erase(pointer.back());
    } else if (!j.contains(section) && !section.empty()) {
        const json jA = {{"cluster", toJson(a.cluster)}, {"run", toJson(a.run)}};
        j[section] = jA.at(section);
    } else {
        j[pointer] = d.a;
    }
    Diagnostics diags;
    const std::optional<ClusterDesc> cluster = clusterFromJson(j["cluster"], "", "/cluster", diags);
    const std::optional<RunDesc> run = runFromJson(j["run"], "", "/run", diags);
    if (!cluster || !run) {
        w.why = diags.items().front().message;
        return w;
    }
    return evaluateWhatIf(w, *cluster, *run);
}

std::string signedPercent(double ratio)
{
    return signedPercentText(ratio - 1);
}

std::string gpuCountText(const ClusterRun& side, const Evaluation& e)
{
    return withThousands(e.gpusUsed) + " " + side.cluster.gpu.name;
}

// "micro-batch 1 -> 2, VP 12 -> 6": the run's layout fields that differ.
std::string layoutChanges(const std::vector<InputDifference>& differences)
{
    std::vector<std::string> parts;
    for (const InputDifference& d : differences) {
        if (d.path.rfind("/run/parallelism/", 0) != 0 && d.path != "/run/batch/micro" &&
            d.path != "/run/placement")
            continue;
        parts.push_back(d.label + " " + inputText(d.a) + " -> " + inputText(d.b));
    }
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? ", " : "") + parts[i];
    return out;
}

std::vector<std::string> findingsOf(const Comparison& c)
{
    std::vector<std::string> out;
    const Figure* rate = c.figure("tokens_per_s_per_gpu");
    const Figure* perToken = c.figure("gpu_s_per_token");
    const std::optional<double> ratio = rate->ratio();
    if (ratio) {
        const bool more = *ratio >= 1;
        out.push_back("B (" + gpuCountText(c.b, c.evalB) + ") runs " +
                      fixed(std::abs(*ratio - 1) * 100, 1) + " % " + (more ? "more" : "fewer") +
                      " tokens per second per GPU than A (" + gpuCountText(c.a, c.evalA) +
                      "): " + figureText(FigureUnit::Rate, rate->b) + " against " +
                      figureText(FigureUnit::Rate, rate->a) + ".");
    }
    if (c.evalA.gpusUsed != c.evalB.gpusUsed)
        out.push_back("The steps (" + figureText(FigureUnit::Seconds, c.evalB.stepTimeS) +
                      " against " + figureText(FigureUnit::Seconds, c.evalA.stepTimeS) +
                      ") run on different GPU counts: per GPU is the fair comparison.");

    // Where the GPU time per token went, largest changes first.
    const double total = perToken->difference();
    std::vector<const BreakdownRow*> rows;
    double magnitude = 0;
    for (const BreakdownRow& r : c.breakdown) {
        magnitude += std::abs(r.deltaPerToken());
        if (r.deltaPerToken() != 0)
            rows.push_back(&r);
    }
    std::sort(rows.begin(), rows.end(), [](const BreakdownRow* x, const BreakdownRow* y) {
        return std::abs(x->deltaPerToken()) > std::abs(y->deltaPerToken());
    });
    if (!rows.empty() && magnitude > 0) {
        std::string parts;
        for (const BreakdownRow* r : rows) {
            if (std::abs(r->deltaPerToken()) < 0.05 * magnitude)
                break;
            const double d = r->deltaPerToken() * 1e3;
            parts += std::string(parts.empty() ? "" : ", ") + r->label + " " + (d >= 0 ? "+" : "") +
                     fixed(d, 3);
        }
        out.push_back("Per token: " + figureText(FigureUnit::GpuSeconds, perToken->b) +
                      " against " + figureText(FigureUnit::GpuSeconds, perToken->a) + " (" +
                      (total <= 0 ? "-" : "+") + fixed(std::abs(total) * 1e3, 3) + "), from " +
                      parts + ".");
    }

    if (c.whatIfs.size() == 2 && rate->a > 0) {
        const WhatIf& gpuOnly = c.whatIfs[0];
        const WhatIf& layoutOnOld = c.whatIfs[1];
        if (gpuOnly.valid)
            out.push_back("The GPU alone (A's layout on the " + c.b.cluster.gpu.name +
                          "): " + signedPercent(gpuOnly.tokensPerSPerGpu / rate->a) + " (" +
                          figureText(FigureUnit::Rate, gpuOnly.tokensPerSPerGpu) +
                          " tokens per second per GPU).");
        const std::string changes = layoutChanges(c.differences);
        if (gpuOnly.valid && gpuOnly.tokensPerSPerGpu > 0 && !changes.empty())
            out.push_back("The layout (" + changes +
                          "): " + signedPercent(rate->b / gpuOnly.tokensPerSPerGpu) + " on top.");
        if (layoutOnOld.valid && !layoutOnOld.fitsMemory)
            out.push_back("B's layout needs " + fixed(layoutOnOld.memoryGiBPerGpu, 1) +
                          " GiB per GPU: it does not fit the " + fixed(layoutOnOld.hbmGiB, 0) +
                          " GiB of the " + c.a.cluster.gpu.name + "; the " + c.b.cluster.gpu.name +
                          "'s " + fixed(c.b.cluster.gpu.hbmGiB, 0) + " GiB allow it.");
        else if (layoutOnOld.valid)
            out.push_back("B's layout on A's " + c.a.cluster.gpu.name + " would run " +
                          figureText(FigureUnit::Rate, layoutOnOld.tokensPerSPerGpu) +
                          " tokens per second per GPU (" +
                          signedPercent(layoutOnOld.tokensPerSPerGpu / rate->a) + " over A).");
    }
    // What each of B's own choices is worth: B over B with that input at A's value.
    std::vector<std::pair<double, std::string>> worth;
    for (const WhatIf& w : c.oneAtATime) {
        if (!w.valid || w.tokensPerSPerGpu <= 0 || rate->b <= 0)
            continue;
        const InputDifference* d = nullptr;
        for (const InputDifference& x : c.differences)
            if (x.path == w.path)
                d = &x;
        const double gain = rate->b / w.tokensPerSPerGpu;
        worth.push_back({gain, d->label + " " + inputText(d->b) + " (A: " + inputText(d->a) + ") " +
                                   signedPercent(gain) +
                                   (w.fitsMemory ? "" : ", A's value does not fit in memory")});
    }
    std::sort(worth.begin(), worth.end(), [](const auto& x, const auto& y) {
        return std::abs(x.first - 1) > std::abs(y.first - 1);
    });
    if (!worth.empty()) {
        std::string list;
        for (size_t i = 0; i < std::min<size_t>(worth.size(), 5); ++i)
            list += (i ? "; " : "") + worth[i].second;
        out.push_back("One input at a time, on B: " + list + ".");
    }
    return out;
}

} // namespace

std::optional<double> Figure::ratio() const
{
    if (a == 0)
        return std::nullopt;
    return b / a;
}

const Figure* Comparison::figure(std::string_view key) const
{
    for (const Figure& f : figures)
        if (f.key == key)
            return &f;
    return nullptr;
}

Comparison compareRuns(const ClusterRun& a, const ClusterRun& b)
{
    return compareRuns(a, evaluate(a.cluster, a.run), b, evaluate(b.cluster, b.run));
}

Comparison compareRuns(const ClusterRun& a, const Evaluation& evalA, const ClusterRun& b,
                       const Evaluation& evalB)
{
    Comparison c;
    c.a = a;
    c.b = b;
    c.evalA = evalA;
    c.evalB = evalB;
    // The comparison reads figures, not the step's events.
    c.evalA.events.clear();
    c.evalB.events.clear();
    c.figures = figuresOf(c);
    c.differences = inputDifferences(a, b);
    c.breakdown = breakdownOf(c);
    if (!(a.cluster.gpu == b.cluster.gpu)) {
        c.whatIfs.push_back(gpuSwapped("A's layout on B's GPU (" + b.cluster.gpu.name + ")",
                                       a.cluster, b.cluster, a.run));
        c.whatIfs.push_back(gpuSwapped("B's layout on A's GPU (" + a.cluster.gpu.name + ")",
                                       b.cluster, a.cluster, b.run));
    }
    bool allocationDone = false; // racks and nodes differ together when the kinds differ
    for (const InputDifference& d : c.differences) {
        if (!changesAlone(d.path) || (isAllocation(d.path) && allocationDone))
            continue;
        allocationDone = allocationDone || isAllocation(d.path);
        c.oneAtATime.push_back(withInputOfA(a, b, d));
    }
    const std::vector<ReferenceRun>& references = shippedReferenceRuns(defaultCalibration());
    c.rangeA = uncertaintyOf(evalA.stepTimeS, likenessOf(a.cluster, a.run), references);
    c.rangeB = uncertaintyOf(evalB.stepTimeS, likenessOf(b.cluster, b.run), references);
    c.findings = findingsOf(c);
    if (tied(c.rangeA, c.rangeB))
        c.findings.push_back("The measured steps may come in either order: A's range (" +
                             rangeText(c.rangeA) + ") and B's (" + rangeText(c.rangeB) +
                             ") overlap.");
    return c;
}

std::string figureText(FigureUnit unit, double value)
{
    switch (unit) {
    case FigureUnit::Count:
    case FigureUnit::Rate:
        return withThousands(int64_t(std::llround(value)));
    case FigureUnit::Seconds:
        return stepTimeText(value);
    case FigureUnit::Fraction:
        return fixed(value * 100, 1) + " %";
    case FigureUnit::GiB:
        return fixed(value, 1) + " GiB";
    case FigureUnit::GpuSeconds:
        return fixed(value * 1e3, 3) + " GPU-ms";
    case FigureUnit::TrainingTime:
        return trainingTimeText(value);
    case FigureUnit::GpuHours:
        return withThousands(int64_t(std::llround(value))) + " GPU-h";
    }
    return numberText(value);
}

namespace {
std::string notesIn(const Extensions& e)
{
    if (!e.contains("notes") || !e.value()["notes"].is_string())
        return {};
    return e.value()["notes"].get<std::string>();
}

} // namespace

std::string notesOf(const ClusterDesc& cluster)
{
    return notesIn(cluster.extensions);
}

std::string notesOf(const RunDesc& run)
{
    return notesIn(run.extensions);
}

} // namespace cs
