#pragma once
// Exports of views and of the model's answers. Every file is written atomically (QSaveFile):
// a failed export leaves any old file as it was.

#include <QString>

#include "costmodel.h"
#include "description.h"

class QWidget;

// PNG, SVG or PDF of what the widget shows.
bool exportWidget(QWidget* widget, const QString& path, const QString& format, QString* error);
bool writeTextAtomically(const QString& path, const QString& text, QString* error);

// One line per breakdown entry, with its share of the step; then per-dimension communication.
QString breakdownCsv(const cs::Evaluation& evaluation, const cs::RunDesc& run);
// The step's events as Chrome trace JSON (the same as `clusterscope-cli trace`).
QString stepTraceJson(const cs::ClusterDesc& cluster, const cs::RunDesc& run);
