#pragma once
// Exports of views and of the model's answers. Each is made in memory and written by the one
// atomic writer: a failed export says why and leaves any old file as it was.

#include <QByteArray>
#include <QRectF>
#include <QSize>
#include <QSizeF>
#include <QString>
#include <optional>

#include "costmodel.h"
#include "description.h"

class Document;
class QPainter;
class QWidget;

// PNG, SVG or PDF of what the widget shows.
bool exportWidget(QWidget* widget, const QString& path, const QString& format, QString* error);
bool exportBreakdownCsv(const cs::Evaluation& evaluation, const cs::RunDesc& run,
                        const QString& path, QString* error);
bool exportStepTrace(const cs::ClusterDesc& cluster, const cs::RunDesc& run, const QString& path,
                     QString* error);

// The breakdown and per-dimension communication as one table: kind, key, label, seconds,
// share_of_step. Kinds: `breakdown` (each part, adding up to the step), `step`, `comm_total`
// and `comm_exposed` (per dimension).
QString breakdownCsv(const cs::Evaluation& evaluation, const cs::RunDesc& run);

// The topology as a figure: a title line, the view as `view` sets it (zoom, centre, colours,
// selection, time) and its legend, on the hall's dark background, at any size (not the
// window's). Type scales with the figure's height: 18 px at 1080.
// "Llama 3.1 405B ... on Fairwater ...": what a figure of the document is titled, each part of
// the names said once.
QString figureTitle(const Document& doc);
QString figureTitle(const QString& runName, const QString& clusterName);
void paintFigure(QPainter& painter, const QSizeF& size, const Document& doc,
                 const cs::ViewState& view, const QString& title);
// The figure as PNG, SVG or PDF bytes; nothing for another format or a failed encoding.
std::optional<QByteArray> figureBytes(const Document& doc, const cs::ViewState& view,
                                      const QString& title, QSize size, const QString& format);
bool exportFigure(const Document& doc, const cs::ViewState& view, const QString& title, QSize size,
                  const QString& path, const QString& format, QString* error);
// Every bookmark on a landscape page of its own: its caption, its view as a figure, and its
// speaker notes, in type that shrinks until the notes fit their box.
QByteArray bookmarksHandoutPdf(const Document& doc);
bool exportBookmarksHandout(const Document& doc, const QString& path, QString* error);
// The largest pixel size, at most `largest`, at which `text` wrapped to `box` fits in it.
int fittingPixelSize(const QString& text, const QRectF& box, int largest, int smallest);
// The step's events as Chrome trace JSON (the same as `clusterscope-cli trace`).
QByteArray stepTraceJson(const cs::ClusterDesc& cluster, const cs::RunDesc& run);
