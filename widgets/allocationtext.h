#pragma once
// An allocation (formats.md `allocation`) as people read and type it: "racks 0-7, 12" or
// "nodes 0-31". The Jobs dock shows and edits it; the legend and the Place Job list show it.

#include <QString>
#include <optional>

#include "description.h"

// cs::allocationText (model/search/placejob.h); "the whole cluster" for a run without one.
QString allocationText(const std::optional<cs::Allocation>& allocation);
// The allocation typed, or nothing and why (`error`): a unit (racks or nodes) and ranges
// "first-last" or single indices separated by commas, each first <= last and not negative.
std::optional<cs::Allocation> allocationFromText(const QString& text, QString* error);
