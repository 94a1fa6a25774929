#include "render.h"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <cstdio>

#include "document.h"
#include "documentio.h"
#include "gpucolors.h"
#include "legendwidget.h"
#include "text.h"
#include "topologyscene.h"

namespace {

int fail(int status, const QString& message)
{
    std::fprintf(stderr, "%s\n", qPrintable(message));
    return status;
}

} // namespace

int renderToPng(const RenderRequest& request)
{
    QString problems;
    auto session = loadSessionFromFile(request.input, &problems);
    if (!session)
        return fail(1, problems);
    Document document;
    document.setSession(std::move(*session), request.input);
    cs::ViewState view = document.view();
    if (!request.colorBy.isEmpty()) {
        const auto mode = cs::colorModeFromString(request.colorBy.toStdString());
        if (!mode) {
            std::vector<std::string> words;
            for (const cs::ColorMode& m : cs::colorModes())
                words.push_back(cs::toString(m));
            return fail(
                2, QStringLiteral("clusterscope: --color-by takes %1, not %2")
                       .arg(QString::fromStdString(cs::wordList(words)),
                            QString::fromStdString(cs::inQuotes(request.colorBy.toStdString()))));
        }
        view.colorBy = *mode;
    }
    if (request.selectRank >= 0) {
        if (request.selectRank >= document.placement().worldSize())
            return fail(1, QStringLiteral("%1: --select %2: the run has ranks 0 to %3")
                               .arg(QString::fromStdString(
                                   cs::printable(request.input.toStdString(), cs::kNoLimit)))
                               .arg(request.selectRank)
                               .arg(document.placement().worldSize() - 1));
        view.highlightRank = request.selectRank;
    }
    if (request.timeS >= 0)
        view.timeS = request.timeS;
    document.setView(view);

    // The window shows the legend in a dock beside the view; the image gives it a strip
    // below the view when there is room.
    const QSizeF size(request.size);
    const double legendWidth = std::min(size.width() - 16, 900.0);
    const Legend legend =
        legendFor(view.colorBy, document.topology(), document.placement(), document.evaluation());
    const double legendStrip = legendHeight(legend, legendWidth) + 16;
    const bool withLegend = legendWidth >= 300 && legendStrip <= size.height() * 0.35;
    const QSizeF viewSize(size.width(), size.height() - (withLegend ? legendStrip : 0));
    // The window's layout, so that a session's zoom and centre show the same racks.
    TopologyScene scene(document.topology(), document.placement(), document.evaluation());
    scene.applyView(view);
    QImage image(request.size, QImage::Format_ARGB32_Premultiplied);
    image.fill(TopologyRenderer::background());
    QPainter painter(&image);
    const ViewTransform transform = scene.transform(view, viewSize);
    scene.renderer().paint(painter, transform);
    scene.paintOverlay(painter, transform);
    if (withLegend)
        paintLegendIn(painter, legend,
                      QRectF(8, viewSize.height() + 8, legendWidth, legendStrip - 16));
    painter.end();
    // Encoded in memory and written atomically: a failed write leaves an old PNG whole.
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG"))
        return fail(1, QStringLiteral("%1: the PNG could not be encoded").arg(request.output));
    QString error;
    if (!writeFileAtomically(request.output, png, &error))
        return fail(1, error);
    return 0;
}
