#pragma once
// Exports of views and of the model's answers. Each is made in memory and written by the one
// atomic writer: a failed export says why and leaves any old file as it was.

#include <QByteArray>
#include <QString>

#include "costmodel.h"
#include "description.h"

class QWidget;

// PNG, SVG or PDF of what the widget shows.
bool exportWidget(QWidget* widget, const QString& path, const QString& format, QString* error);
bool exportBreakdownCsv(const cs::Evaluation& evaluation, const cs::RunDesc& run,
                        const QString& path, QString* error);
bool exportStepTrace(const cs::ClusterDesc& cluster, const cs::RunDesc& run, const QString& path,
                     QString* error);

// One line per breakdown entry, with its share of the step; then per-dimension communication.
QString breakdownCsv(const cs::Evaluation& evaluation, const cs::RunDesc& run);
// The step's events as Chrome trace JSON (the same as `clusterscope-cli trace`).
QByteArray stepTraceJson(const cs::ClusterDesc& cluster, const cs::RunDesc& run);
