// File > Export: the view, the window, the bookmarks, the breakdown and the step trace, each
// to a path the user picks.
#include "mainwindow.h"

#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>

#include "backgroundwork.h"
#include "document.h"
#include "exports.h"
#include "trace.h"

QString MainWindow::askSavePath(const QString& title, const QString& suggestedName,
                                const QString& filter)
{
    const QString start = QFileInfo(suggestedName).isAbsolute()
                              ? suggestedName
                              : m_lastDir + QLatin1Char('/') + suggestedName;
    const QString path = QFileDialog::getSaveFileName(this, title, start, filter);
    if (!path.isEmpty())
        m_lastDir = QFileInfo(path).absolutePath();
    return path;
}

namespace {

// Exports go where the last one went, else to the user's documents: not to the folder a
// sample was opened from.
QString askExportPath(QWidget* parent, const QString& title, const QString& suggestedName,
                      const QString& filter)
{
    QSettings settings;
    QString dir = settings.value(QStringLiteral("lastExportDir")).toString();
    if (dir.isEmpty() || !QFileInfo(dir).isDir())
        dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (dir.isEmpty() || !QFileInfo(dir).isDir())
        dir = QDir::homePath();
    const QString path =
        QFileDialog::getSaveFileName(parent, title, QDir(dir).filePath(suggestedName), filter);
    if (!path.isEmpty())
        settings.setValue(QStringLiteral("lastExportDir"), QFileInfo(path).absolutePath());
    return path;
}

} // namespace

std::optional<QSize> MainWindow::askFigureSize()
{
    const QList<QSize> sizes{{1920, 1080}, {2560, 1440}, {3840, 2160}, {1280, 720}, size()};
    if (m_quiet)
        return sizes.front();
    QStringList choices;
    for (const QSize& s : sizes)
        choices << tr("%1 x %2").arg(s.width()).arg(s.height());
    choices.last() += tr(" (this window)");
    bool ok = false;
    const QString choice = QInputDialog::getItem(this, tr("Export View"), tr("Size in pixels:"),
                                                 choices, 0, false, &ok);
    if (!ok)
        return std::nullopt;
    return sizes[int(choices.indexOf(choice))];
}

void MainWindow::exportTopology(const QString& format)
{
    const std::optional<QSize> size = askFigureSize();
    if (!size)
        return;
    const QString path =
        askExportPath(this, tr("Export View"), QStringLiteral("view.") + format.toLower(),
                      tr("%1 files (*.%2)").arg(format, format.toLower()));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportFigure(*m_document, m_document->view(), figureTitle(*m_document), *size, path,
                      format, &error))
        report(tr("Cannot export"), error);
}

void MainWindow::exportHandout()
{
    const QString path = askExportPath(this, tr("Export Bookmarks"),
                                       QStringLiteral("bookmarks.pdf"), tr("PDF files (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportBookmarksHandout(*m_document, path, &error))
        report(tr("Cannot export"), error);
}

void MainWindow::exportWindow(const QString& format)
{
    const QString path =
        askExportPath(this, tr("Export Window"), QStringLiteral("clusterscope.") + format.toLower(),
                      tr("%1 files (*.%2)").arg(format, format.toLower()));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportWidget(this, path, format, &error))
        report(tr("Cannot export"), error);
}

void MainWindow::exportBreakdownCsv()
{
    const QString path = askExportPath(this, tr("Export Breakdown"),
                                       QStringLiteral("breakdown.csv"), tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!::exportBreakdownCsv(m_document->evaluation(), m_document->run(), path, &error))
        report(tr("Cannot export"), error);
}

void MainWindow::exportTrace()
{
    const QString path =
        askExportPath(this, tr("Export Step Trace"), QStringLiteral("step.trace.json"),
                      tr("JSON files (*.json)"));
    if (!path.isEmpty())
        exportTraceTo(path);
}

bool MainWindow::exportTraceTo(const QString& path)
{
    QString error, note;
    bool written = false;
    const bool finished = runWithProgress(
        this, tr("Writing the step trace..."),
        [&, cluster = m_document->cluster(), run = m_document->run()](TaskProgress& progress) {
            const cs::ChromeTrace trace = cs::chromeTraceOf(cluster, run);
            note = QString::fromStdString(trace.leftOutNote);
            // Cancelled before the write begins, nothing is written.
            if (!progress.cancelled)
                written = writeFileAtomically(path, QByteArray::fromStdString(trace.text), &error);
        });
    if (finished && !written)
        report(tr("Cannot export"), error);
    else if (written)
        statusBar()->showMessage(
            note.isEmpty() ? tr("Wrote %1").arg(path) : tr("Wrote %1; %2").arg(path, note), 8000);
    return written;
}
