#include "replan.h"

#include <QObject>
#include <QUndoStack>
#include <chrono>

#include "backgroundwork.h"
#include "costmodel.h"
#include "document.h"
#include "editcommands.h"
#include "search.h"
#include "text.h"

namespace {

constexpr auto kReplanTimeLimit = std::chrono::seconds(300);

QString qtext(const std::string& s)
{
    return QString::fromStdString(s);
}

QString change(const QString& what, const QString& before, const QString& after)
{
    return QObject::tr("%1 %2 -> %3").arg(what, before, after);
}

QString onOff(bool on)
{
    return on ? QObject::tr("on") : QObject::tr("off");
}

StepFigure figureOf(const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    const cs::Evaluation e = cs::evaluate(cluster, run);
    return {e.stepTimeS, e.gpusUsed};
}

QString figureText(const StepFigure& f)
{
    return QObject::tr("%1 on %2 GPUs")
        .arg(qtext(cs::stepTimeText(f.stepTimeS)), qtext(cs::withThousands(f.gpusUsed)));
}

} // namespace

cs::ClusterDesc healthyCluster(cs::ClusterDesc cluster)
{
    cluster.failures = {};
    return cluster;
}

QStringList layoutChanges(const cs::RunDesc& before, int64_t gpusBefore, const cs::RunDesc& after,
                          int64_t gpusAfter)
{
    const cs::Parallelism& a = before.parallelism;
    const cs::Parallelism& b = after.parallelism;
    QStringList out;
    for (const cs::DimInfo& d : cs::kDims) {
        const int from = d.dim == cs::Dim::DP ? before.dpFor(gpusBefore) : a.size(d.dim);
        const int to = d.dim == cs::Dim::DP ? after.dpFor(gpusAfter) : b.size(d.dim);
        if (from != to)
            out << change(qtext(std::string(d.shortLabel)), QString::number(from),
                          QString::number(to));
    }
    if (a.vp != b.vp)
        out << change(QObject::tr("VP"), QString::number(a.vp), QString::number(b.vp));
    if (a.etp != b.etp)
        out << change(QObject::tr("expert TP"), QString::number(a.etp), QString::number(b.etp));
    if (before.batch.micro != after.batch.micro)
        out << change(QObject::tr("micro-batch"), QString::number(before.batch.micro),
                      QString::number(after.batch.micro));
    if (a.recompute != b.recompute)
        out << change(QObject::tr("recompute"), qtext(cs::toString(a.recompute)),
                      qtext(cs::toString(b.recompute)));
    if (before.placement != after.placement)
        out << change(QObject::tr("placement"), qtext(cs::placementText(before.placement)),
                      qtext(cs::placementText(after.placement)));
    if (a.sequenceParallel != b.sequenceParallel)
        out << change(QObject::tr("sequence parallel"), onOff(a.sequenceParallel),
                      onOff(b.sequenceParallel));
    if (a.distributedOptimizer != b.distributedOptimizer)
        out << change(QObject::tr("distributed optimizer"), onOff(a.distributedOptimizer),
                      onOff(b.distributedOptimizer));
    if (a.fsdp != b.fsdp)
        out << change(QObject::tr("FSDP"), onOff(a.fsdp), onOff(b.fsdp));
    return out;
}

std::optional<cs::RunDesc> replanOnHealthy(const cs::ClusterDesc& cluster, const cs::RunDesc& run,
                                           const std::atomic<bool>* cancel,
                                           std::function<void(int64_t, int64_t)> progress)
{
    cs::RunDesc free = run;
    free.parallelism.dp = 0; // what the healthy GPUs hold
    cs::SearchOptions options;
    options.keep = 1;
    options.cancel = cancel;
    options.progress = std::move(progress);
    options.deadline = std::chrono::steady_clock::now() + kReplanTimeLimit;
    const cs::SearchOutcome outcome = cs::searchParallelism(cluster, free, options);
    if (outcome.results.empty() || outcome.cancelled)
        return std::nullopt;
    return cs::withLayout(run, outcome.results.front().layout);
}

std::optional<Replan> replanWithProgress(QWidget* parent, const cs::ClusterDesc& left,
                                         const cs::RunDesc& run)
{
    const cs::ClusterDesc healthy = healthyCluster(left);
    std::optional<cs::RunDesc> replanned, bestHealthy;
    const bool finished = runWithProgress(
        parent,
        QObject::tr("Searching layouts on %1 healthy GPUs, and on all %2 for comparison...")
            .arg(qtext(cs::withThousands(cs::allocatedGpuCount(left, run))),
                 qtext(cs::withThousands(cs::allocatedGpuCount(healthy, run)))),
        [&](TaskProgress& progress) {
            replanned = replanOnHealthy(left, run, &progress.cancelled, progress.report);
            if (replanned && !progress.cancelled)
                bestHealthy = replanOnHealthy(healthy, run, &progress.cancelled, progress.report);
        });
    if (!finished || !replanned || !bestHealthy)
        return std::nullopt;
    Replan out;
    out.run = *replanned;
    // A job on an allocation is re-planned on the GPUs of its allocation only.
    out.healthyGpus = cs::allocatedGpuCount(healthy, run);
    out.leftGpus = cs::allocatedGpuCount(left, run);
    out.asItWas = figureOf(healthy, run);
    out.bestHealthy = figureOf(healthy, *bestHealthy);
    out.replanned = figureOf(left, *replanned);
    out.changes = layoutChanges(run, out.healthyGpus, *replanned, out.leftGpus);
    return out;
}

QString replanSummary(const Replan& r)
{
    const QString layout =
        r.changes.isEmpty() ? QObject::tr("The layout is kept as it was.")
                            : QObject::tr("The re-plan changed %1; the rest of the layout is kept.")
                                  .arg(r.changes.join(QStringLiteral(", ")));
    const double vsBest = r.replanned.stepTimeS / r.bestHealthy.stepTimeS - 1;
    return QObject::tr("%1 of %2 GPUs are in service. %3\n\n"
                       "Step time, side by side:\n"
                       "  the run as it was, on the healthy cluster: %4\n"
                       "  the best layout on the healthy cluster: %5\n"
                       "  the re-planned layout, on what is left: %6 (%7 against the best "
                       "on the healthy cluster)")
        .arg(qtext(cs::withThousands(r.leftGpus)), qtext(cs::withThousands(r.healthyGpus)), layout,
             figureText(r.asItWas), figureText(r.bestHealthy), figureText(r.replanned),
             qtext(cs::signedPercentText(vsBest)));
}

std::optional<Replan> replanDocument(QWidget* parent, Document* doc)
{
    auto replan = replanWithProgress(parent, doc->cluster(), doc->run());
    if (!replan || replan->run == doc->run())
        return replan;
    doc->undoStack()->push(
        new EditModelCommand(doc, doc->cluster(), replan->run,
                             QObject::tr("Re-plan on %1 healthy GPUs (%2)")
                                 .arg(qtext(cs::withThousands(replan->leftGpus)),
                                      replan->changes.join(QStringLiteral(", ")))));
    return replan;
}
