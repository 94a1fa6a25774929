#pragma once
// The colours of what a GPU does during the step and of the parallel dimensions' traffic,
// shared by the timeline, the topology's activity mode, the charts and their legends.

#include <QColor>
#include <vector>

#include "activity.h"
#include "evaluation.h"
#include "gpucolors.h"

QColor activityColor(cs::Activity a);
// Communication events take their dimension's colour; the rest their activity's.
QColor eventColor(const cs::Event& e);
QColor dimensionColor(cs::Dim d);
// A dimension's link at `share` of its stages busy: from dark towards its full colour.
QColor linkColor(cs::Dim d, double share);
// The colour of a breakdown part: a dimension's exposed time in the dimension's colour.
QColor breakdownColor(const cs::Breakdown::Part& part);

std::vector<LegendEntry> activityLegend();
// The traffic of each dimension; expert parallelism only for models with experts.
std::vector<LegendEntry> dimensionLegend(bool experts);
