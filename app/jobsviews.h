#pragma once
// Several jobs on one cluster in the window (issue 38): the Jobs dock (every job's GPUs,
// allocation, step alone and shared, and who slows it), evaluated together off the GUI thread
// after each change; the "job" colour mode; the detail job's allocation and traffic lit in the
// view; and the Jobs menu: add a job (a run file, or the job shown copied) on the first free
// racks, remove one, show another in detail. Each change is one undo step.

#include <QString>
#include <functional>

#include "topologyscene.h"

class Document;
class QMainWindow;
class QMenu;
class TopologyView;

// Adds the dock and the Jobs menu (before `toolsMenu`), and Tools > Place Job.... An edit
// refused (jobs that overlap, no free racks) is said through `report`.
void addJobsViews(QMainWindow* window, Document* document, TopologyView* view, QMenu* toolsMenu,
                  std::function<void(const QString&)> report);

// The "job" colour mode of a scene of `doc` (the window's and exported figures').
TopologyScene::ColorSource jobColorSource(const Document& doc);

// The traffic link loads show, in colour, tooltips and the Links dock: with several jobs, every
// job's together once they are evaluated; else (and until then) the run's own.
const cs::StepTraffic& linkLoadTraffic(const Document& doc);
// The traffic a scene of `doc` coloured by `mode` draws: link loads as above; the activity
// mode's routes are the detail job's own, as its timeline is.
const cs::StepTraffic& sceneTraffic(const Document& doc, const cs::ColorMode& mode);
