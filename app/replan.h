#pragma once
// Re-planning a run on the GPUs a failure leaves: the search, and what it tells a person. A
// re-plan on fewer GPUs can be faster than the run was, because the run was not the fastest
// layout to begin with; so the answer sets three step times side by side (the run as it was on
// the healthy cluster, the best layout there, the re-planned layout on what is left) and says
// every part of the layout it changed.

#include <QString>
#include <QStringList>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>

#include "description.h"

class Document;
class QWidget;

// One layout's step on one cluster, as the summary quotes it.
struct StepFigure {
    double stepTimeS = 0;
    int64_t gpusUsed = 0;
};

struct Replan {
    cs::RunDesc run;         // the re-planned run
    StepFigure asItWas;      // the run before the re-plan, on the healthy cluster
    StepFigure bestHealthy;  // the search's best layout on the healthy cluster
    StepFigure replanned;    // the re-planned run on the cluster as it is left
    int64_t healthyGpus = 0; // GPUs of the healthy cluster
    int64_t leftGpus = 0;    // GPUs in service in the cluster as it is left
    QStringList changes;     // "PP 8 -> 16", "micro-batch 1 -> 2", ... (empty: kept)
};

// The cluster with nothing out of service.
cs::ClusterDesc healthyCluster(cs::ClusterDesc cluster);

// Every part of the layout that differs: each parallel dimension (dp as resolved on each
// side's GPUs), recompute, placement, micro-batch and the optimizer's sharding.
QStringList layoutChanges(const cs::RunDesc& before, int64_t gpusBefore, const cs::RunDesc& after,
                          int64_t gpusAfter);

// The fastest layout of the run on the cluster's healthy GPUs (the global batch kept), by the
// search; nothing when none fits or it was cancelled.
std::optional<cs::RunDesc> replanOnHealthy(const cs::ClusterDesc& cluster, const cs::RunDesc& run,
                                           const std::atomic<bool>* cancel = nullptr,
                                           std::function<void(int64_t, int64_t)> progress = {});

// `run` re-planned on `left` and the three figures, each search on a worker behind a progress
// dialog with Cancel; nothing when cancelled or nothing fits what is left.
std::optional<Replan> replanWithProgress(QWidget* parent, const cs::ClusterDesc& left,
                                         const cs::RunDesc& run);

// The re-plan for people: what changed, then the three step times side by side.
QString replanSummary(const Replan& replan);

// "Re-plan on Healthy GPUs": the best layout of the document's run on its cluster, applied as
// one undo step (none when it is the run's own). Nothing when cancelled or nothing fits.
std::optional<Replan> replanDocument(QWidget* parent, Document* doc);
