#include "render.h"

#include <cstdio>
#include <optional>

#include "document.h"
#include "documentio.h"
#include "exports.h"
#include "fileio.h"
#include "text.h"

namespace {

int fail(int status, const QString& message)
{
    std::fprintf(stderr, "%s\n", qPrintable(message));
    return status;
}

// What is wrong with the request before anything is read, or nothing.
std::optional<QString> usageProblem(const RenderRequest& request)
{
    const QSize size = request.size;
    if (size.width() > kMaxRenderSide || size.height() > kMaxRenderSide ||
        qint64(size.width()) * size.height() > kMaxRenderPixels)
        return QStringLiteral("clusterscope: --size %1x%2 is too large: at most %3 pixels a side "
                              "and %4 pixels in all (7680x4320)")
            .arg(size.width())
            .arg(size.height())
            .arg(kMaxRenderSide)
            .arg(QString::fromStdString(cs::withThousands(kMaxRenderPixels)));
    const std::string output = request.output.toStdString(), input = request.input.toStdString();
    if (const auto same = cs::inputWrittenBy(output, {input}))
        return QStringLiteral("clusterscope: --render %1")
            .arg(QString::fromStdString(cs::writesOverInput(output, *same)));
    return std::nullopt;
}

} // namespace

int renderToPng(const RenderRequest& request)
{
    if (const std::optional<QString> problem = usageProblem(request))
        return fail(2, *problem);
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

    // The window's layout, legend and a title, as File > Export draws them; encoded in memory
    // and written atomically: a failed write leaves an old PNG whole.
    const std::optional<QByteArray> png =
        figureBytes(document, view, figureTitle(document), request.size, QStringLiteral("PNG"));
    if (!png)
        return fail(1, QStringLiteral("%1: the PNG could not be encoded").arg(request.output));
    QString error;
    if (!writeFileAtomically(request.output, *png, &error))
        return fail(1, error);
    return 0;
}
