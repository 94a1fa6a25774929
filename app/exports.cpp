#include "exports.h"

#include <QBuffer>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>
#include <optional>

#include "documentio.h"
#include "trace.h"

namespace {

// The widget drawn as a PNG, SVG or PDF file, in memory; nothing when encoding fails.
std::optional<QByteArray> drawWidget(QWidget* widget, const QString& format)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    const QSize size = widget->size();
    if (format == QLatin1String("PNG")) {
        if (!widget->grab().save(&buffer, "PNG"))
            return std::nullopt;
    } else if (format == QLatin1String("SVG")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(widget->window()->windowTitle());
        QPainter painter(&svg);
        widget->render(&painter);
    } else {
        QPdfWriter pdf(&buffer);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        pdf.setTitle(widget->window()->windowTitle());
        QPainter painter(&pdf);
        widget->render(&painter);
    }
    return bytes;
}

} // namespace

bool exportWidget(QWidget* widget, const QString& path, const QString& format, QString* error)
{
    const QString f = format.toUpper();
    if (!QStringList{QStringLiteral("PNG"), QStringLiteral("SVG"), QStringLiteral("PDF")}.contains(
            f)) {
        *error =
            QStringLiteral("%1: unknown format %2; expected PNG, SVG or PDF").arg(path, format);
        return false;
    }
    const std::optional<QByteArray> bytes = drawWidget(widget, f);
    if (!bytes) {
        *error = QStringLiteral("%1: the %2 could not be encoded").arg(path, f);
        return false;
    }
    return writeFileAtomically(path, *bytes, error);
}

bool exportBreakdownCsv(const cs::Evaluation& evaluation, const cs::RunDesc& run,
                        const QString& path, QString* error)
{
    return writeFileAtomically(path, breakdownCsv(evaluation, run).toUtf8(), error);
}

bool exportStepTrace(const cs::ClusterDesc& cluster, const cs::RunDesc& run, const QString& path,
                     QString* error)
{
    return writeFileAtomically(path, stepTraceJson(cluster, run), error);
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

QByteArray stepTraceJson(const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    return QByteArray::fromStdString(cs::chromeTraceOf(cluster, run).text);
}
