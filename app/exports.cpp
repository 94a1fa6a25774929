#include "exports.h"

#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

#include "trace.h"

namespace {

bool commit(QSaveFile& file, const QString& path, QString* error)
{
    if (!file.commit()) {
        *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool openFor(QSaveFile& file, const QString& path, QString* error)
{
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace

bool exportWidget(QWidget* widget, const QString& path, const QString& format, QString* error)
{
    QSaveFile file(path);
    if (!openFor(file, path, error))
        return false;
    const QSize size = widget->size();
    const QString f = format.toUpper();
    if (f == QLatin1String("PNG")) {
        if (!widget->grab().save(&file, "PNG")) {
            *error = QStringLiteral("%1: the image could not be encoded").arg(path);
            file.cancelWriting();
            return false;
        }
    } else if (f == QLatin1String("SVG")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(widget->window()->windowTitle());
        QPainter painter(&svg);
        widget->render(&painter);
    } else if (f == QLatin1String("PDF")) {
        QPdfWriter pdf(&file);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        pdf.setTitle(widget->window()->windowTitle());
        QPainter painter(&pdf);
        widget->render(&painter);
    } else {
        *error =
            QStringLiteral("%1: unknown format %2; expected PNG, SVG or PDF").arg(path, format);
        file.cancelWriting();
        return false;
    }
    return commit(file, path, error);
}

bool writeTextAtomically(const QString& path, const QString& text, QString* error)
{
    QSaveFile file(path);
    if (!openFor(file, path, error))
        return false;
    file.write(text.toUtf8());
    return commit(file, path, error);
}

QString breakdownCsv(const cs::Evaluation& e, const cs::RunDesc& run)
{
    QString out =
        QStringLiteral("# %1\nitem,seconds,share\n").arg(QString::fromStdString(run.name));
    const double step = e.stepTimeS > 0 ? e.stepTimeS : 1;
    for (const cs::Breakdown::Part& part : e.breakdown.parts())
        if (!part.dim || cs::usesDim(run, *part.dim))
            out += QStringLiteral("%1,%2,%3\n")
                       .arg(QLatin1String(part.key.data(), int(part.key.size())))
                       .arg(part.seconds, 0, 'g', 9)
                       .arg(part.seconds / step, 0, 'f', 6);
    out += QStringLiteral("step_time_s,%1,1\n").arg(e.stepTimeS, 0, 'g', 9);
    out += QStringLiteral("\ndimension,comm_total_s,comm_exposed_s\n");
    for (cs::Dim d : cs::kAllDims)
        if (cs::usesDim(run, d))
            out += QStringLiteral("%1,%2,%3\n")
                       .arg(QLatin1String(cs::toString(d)))
                       .arg(e.commTotalS[d], 0, 'g', 9)
                       .arg(e.commExposedS[d], 0, 'g', 9);
    return out;
}

QString stepTraceJson(const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    return QString::fromStdString(cs::chromeTraceJson(cluster, run));
}
