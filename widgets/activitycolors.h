#pragma once
// The colours of what a GPU does during the step and of the parallel dimensions' traffic,
// shared by the timeline, the topology's activity mode, the charts and their legends.

#include <QColor>
#include <vector>

#include "activity.h"
#include "costmodel.h"
#include "gpucolors.h"

QColor activityColor(cs::Activity a);
// Communication events take their dimension's colour; the rest their activity's.
QColor eventColor(cs::EventKind kind);
QColor dimensionColor(cs::Dim d);
// A dimension's link at `share` of its stages busy: from dark towards its full colour.
QColor linkColor(cs::Dim d, double share);
// The colour of a breakdown entry, by its formats.md name ("compute", "tp_exposed", ...).
QColor breakdownColor(const char* name);

std::vector<LegendEntry> activityLegend();
std::vector<LegendEntry> dimensionLegend();
