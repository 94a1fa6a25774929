#include "exports.h"

#include <QBuffer>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>
#include <optional>

#include "document.h"
#include "documentio.h"
#include "gpucolors.h"
#include "jobsviews.h"
#include "legendwidget.h"
#include "profilescene.h"
#include "text.h"
#include "topologyscene.h"
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
        // Figures are line art and text: lossless (Flate), not JPEG, in the PDF.
        painter.setRenderHint(QPainter::LosslessImageRendering);
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
    const auto csvText = [](QString text) {
        return text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"'))
                   ? QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
                         QLatin1Char('"')
                   : text;
    };
    const double step = e.stepTimeS > 0 ? e.stepTimeS : 1;
    QString out = QStringLiteral("kind,key,label,seconds,share_of_step\n");
    const auto row = [&](const char* kind, std::string_view key, const std::string& label,
                         double seconds) {
        out += QStringLiteral("%1,%2,%3,%4,%5\n")
                   .arg(QLatin1String(kind), QLatin1String(key.data(), int(key.size())),
                        csvText(QString::fromStdString(label)))
                   .arg(seconds, 0, 'g', 9)
                   .arg(seconds / step, 0, 'f', 6);
    };
    for (const cs::Breakdown::Part& part : e.breakdown.parts())
        if (!part.dim || cs::usesDim(run, *part.dim))
            row("breakdown", part.key, part.label, part.seconds);
    row("step", "step_time_s", "step time", e.stepTimeS);
    for (cs::Dim d : cs::kAllDims) {
        if (!cs::usesDim(run, d))
            continue;
        const std::string label(cs::dimInfo(d).shortLabel);
        row("comm_total", cs::toString(d), label + " communication", e.commTotalS[d]);
        row("comm_exposed", cs::toString(d), label + " exposed", e.commExposedS[d]);
    }
    return out;
}

QByteArray stepTraceJson(const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    return QByteArray::fromStdString(cs::chromeTraceOf(cluster, run).text);
}

QString figureTitle(const Document& doc)
{
    return figureTitle(QString::fromStdString(doc.run().name),
                       QString::fromStdString(doc.cluster().name));
}

QString figureTitle(const QString& run, const QString& cluster)
{
    // Runs are often named after their cluster ("..., 128 racks" in both): each part of the
    // run's name after a comma that the cluster's name has too is said once, by the cluster.
    const QString separator = QStringLiteral(", ");
    const QStringList clusterParts = cluster.split(separator);
    QStringList runParts = run.split(separator);
    runParts.erase(std::remove_if(runParts.begin() + 1, runParts.end(),
                                  [&](const QString& part) {
                                      return clusterParts.contains(part.trimmed(),
                                                                   Qt::CaseInsensitive);
                                  }),
                   runParts.end());
    const QString runName = runParts.join(separator);
    if (runName.isEmpty() || cluster.isEmpty())
        return runName.isEmpty() ? cluster : runName;
    // A name that says where it runs already ("GPT-3 175B on 1,024 H100") takes no second "on".
    return runName.contains(QStringLiteral(" on "))
               ? QStringLiteral("%1 \u2014 %2").arg(runName, cluster)
               : QStringLiteral("%1 on %2").arg(runName, cluster);
}

void paintFigure(QPainter& p, const QSizeF& size, const Document& doc, const cs::ViewState& view,
                 const QString& title)
{
    const double fontPx = std::max(12.0, size.height() / 60.0);
    p.save();
    p.fillRect(QRectF(QPointF(0, 0), size), TopologyRenderer::background());
    const double pad = fontPx * 0.8;
    double top = 0;
    if (!title.isEmpty()) {
        QFont font = p.font();
        font.setPixelSize(int(fontPx * 1.3));
        font.setBold(true);
        p.setFont(font);
        p.setPen(QColor(0xe8, 0xeb, 0xef));
        const QRectF line(pad, pad * 0.6, size.width() - 2 * pad, fontPx * 2);
        p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
                   p.fontMetrics().elidedText(title, Qt::ElideRight, int(line.width())));
        top = line.bottom();
    }
    // The window's layout, so that a session's zoom and centre show the same racks.
    TopologyScene scene(doc.topology(), doc.placement(), doc.evaluation());
    scene.setTrafficSource([&doc, mode = view.colorBy]() -> const cs::StepTraffic& {
        return sceneTraffic(doc, mode);
    });
    colorByStoredProfile(scene, doc); // the measured colour modes
    scene.addColorSource(jobColorSource(doc));
    scene.applyView(view);
    scene.renderer().setTextPixels(fontPx * 0.8); // the names of racks and tiers with the figure
    const Legend legend = scene.legend();
    const LegendStyle style = LegendStyle::onDark(fontPx);
    const double legendWidth = std::min(size.width() - 2 * pad, fontPx * 75);
    const double legendStrip = legendHeight(legend, legendWidth, style) + 2 * pad;
    const bool withLegend = legendStrip <= (size.height() - top) * 0.4;
    const QSizeF viewSize(size.width(), size.height() - top - (withLegend ? legendStrip : 0));
    const ViewTransform transform = scene.transform(view, viewSize);
    p.translate(0, top);
    scene.renderer().paint(p, transform);
    scene.paintOverlay(p, transform);
    p.translate(0, -top);
    if (withLegend)
        paintLegendIn(
            p, legend,
            QRectF(pad, top + viewSize.height() + pad, legendWidth, legendStrip - 2 * pad), style);
    p.restore();
}

std::optional<QByteArray> figureBytes(const Document& doc, const cs::ViewState& view,
                                      const QString& title, QSize size, const QString& format)
{
    const QString f = format.toUpper();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (f == QLatin1String("PNG")) {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        paintFigure(painter, QSizeF(size), doc, view, title);
        painter.end();
        if (!image.save(&buffer, "PNG"))
            return std::nullopt;
    } else if (f == QLatin1String("SVG")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(title);
        QPainter painter(&svg);
        paintFigure(painter, QSizeF(size), doc, view, title);
    } else if (f == QLatin1String("PDF")) {
        QPdfWriter pdf(&buffer);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        pdf.setTitle(title);
        QPainter painter(&pdf);
        // Figures are line art and text: lossless (Flate), not JPEG, in the PDF.
        painter.setRenderHint(QPainter::LosslessImageRendering);
        paintFigure(painter, QSizeF(size), doc, view, title);
    } else {
        return std::nullopt;
    }
    return bytes;
}

bool exportFigure(const Document& doc, const cs::ViewState& view, const QString& title, QSize size,
                  const QString& path, const QString& format, QString* error)
{
    const std::optional<QByteArray> bytes = figureBytes(doc, view, title, size, format);
    if (!bytes) {
        *error = QStringLiteral("%1: cannot make a %2; PNG, SVG and PDF can be made")
                     .arg(path, format.toUpper());
        return false;
    }
    return writeFileAtomically(path, *bytes, error);
}

int fittingPixelSize(const QString& text, const QRectF& box, int largest, int smallest)
{
    QFont font;
    for (int px = largest; px > smallest; --px) {
        font.setPixelSize(px);
        const QRectF needed = QFontMetricsF(font).boundingRect(
            box, int(Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap), text);
        if (needed.height() <= box.height() && needed.width() <= box.width())
            return px;
    }
    return smallest;
}

QByteArray bookmarksHandoutPdf(const Document& doc)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageOrientation(QPageLayout::Landscape);
    pdf.setPageMargins(QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter);
    pdf.setResolution(150);
    pdf.setTitle(QObject::tr("%1: bookmarks").arg(figureTitle(doc)));
    QPainter p(&pdf);
    // The figures are line art and text: lossless (Flate), not JPEG.
    p.setRenderHint(QPainter::LosslessImageRendering);
    const QRectF page(0, 0, pdf.width(), pdf.height());
    const auto& marks = doc.bookmarks();
    for (size_t i = 0; i < marks.size(); ++i) {
        if (i > 0)
            pdf.newPage();
        const cs::Bookmark& b = marks[i];
        const double unit = page.height() / 40; // one line of body text
        QFont caption;
        caption.setPixelSize(int(unit * 1.4));
        caption.setBold(true);
        p.setFont(caption);
        p.setPen(Qt::black);
        const QRectF captionBox(page.left(), page.top(), page.width(), unit * 2.2);
        const QString captionText = QStringLiteral("%1 / %2   %3")
                                        .arg(i + 1)
                                        .arg(marks.size())
                                        .arg(QString::fromStdString(b.title));
        p.drawText(
            captionBox, Qt::AlignLeft | Qt::AlignVCenter,
            p.fontMetrics().elidedText(captionText, Qt::ElideRight, int(captionBox.width())));
        // The view as the audience saw it, at the page's resolution.
        const QRectF figureBox(page.left(), captionBox.bottom() + unit * 0.4, page.width(),
                               page.height() * 0.62);
        QImage figure(figureBox.size().toSize(), QImage::Format_ARGB32_Premultiplied);
        QPainter fp(&figure);
        paintFigure(fp, QSizeF(figure.size()), doc, b.view, QString());
        fp.end();
        p.drawImage(figureBox.topLeft(), figure);
        const QRectF notesBox(page.left(), figureBox.bottom() + unit * 0.8, page.width(),
                              page.bottom() - figureBox.bottom() - unit * 0.8);
        const QString notes =
            b.notes.empty() ? QObject::tr("(no notes)") : QString::fromStdString(b.notes);
        QFont body;
        body.setPixelSize(fittingPixelSize(notes, notesBox, int(unit), int(unit * 0.35)));
        p.setFont(body);
        p.setPen(QColor(0x30, 0x34, 0x3a));
        p.save();
        p.setClipRect(notesBox); // whatever the type, nothing leaves the box
        p.drawText(notesBox, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, notes);
        p.restore();
    }
    p.end();
    return bytes;
}

bool exportBookmarksHandout(const Document& doc, const QString& path, QString* error)
{
    if (doc.bookmarks().empty()) {
        *error = QObject::tr("%1: the session has no bookmarks (Ctrl+B adds one)").arg(path);
        return false;
    }
    return writeFileAtomically(path, bookmarksHandoutPdf(doc), error);
}
