#pragma once
// The fabric and failure views of the window: the link-load colouring's traffic and tooltips,
// the Links and Goodput docks, the topology's right-click menu (fail or repair a switch or
// link, take a rack, node or GPU out of service or return it) and "Re-plan on Healthy GPUs".
// Every change is one undo step; long work runs behind a progress dialog with Cancel.

#include <QString>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "description.h"
#include "replan.h"

class Document;
class QMainWindow;
class QMenu;
class QWidget;
class TopologyView;
struct Hit;
namespace cs {
class Topology;
}

// Adds the docks, wires the view and puts "Re-plan on Healthy GPUs" in `toolsMenu`.
void addFabricViews(QMainWindow* window, Document* document, TopologyView* view, QMenu* toolsMenu);

// The cluster with `hit`'s switch, link, rack, node or GPU failed (or repaired when it is out
// of service already), and the undo text; nothing for what cannot fail (a bundle, nothing).
struct FailureEdit {
    cs::ClusterDesc cluster;
    QString text;
};
std::vector<FailureEdit> failureEdits(const cs::ClusterDesc& cluster, const cs::Topology& topology,
                                      const Hit& hit);

// Problems of a cluster and run as a file with them would have (fabric paths included), in
// sentences for people (problemsForPeople); empty when the pair is valid.
QString problemsOf(const cs::ClusterDesc& cluster, const cs::RunDesc& run);

// Applies a failure edit as one undo step; when the run no longer fits the cluster it makes,
// the run is re-planned on the healthy GPUs in the same step (and `replanned`, when given,
// says how). Returns why nothing was applied (empty when it was).
QString applyFailureEdit(QWidget* parent, Document* doc, const FailureEdit& edit,
                         std::optional<Replan>* replanned = nullptr);
