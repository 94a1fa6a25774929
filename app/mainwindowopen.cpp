// Documents in: Open, the files of the command line, measured runs, Import, Compare With, New.
#include "mainwindow.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>
#include <QUndoStack>
#include <algorithm>

#include "autosave.h"
#include "backgroundwork.h"
#include "document.h"
#include "editcommands.h"
#include "importdialog.h"
#include "logfolder.h"
#include "measuredrunsdialog.h"

namespace {
// Measured runs, and a folder of training logs, open as a dialog over the document.
bool opensAsDialog(const QString& path)
{
    return MainWindow::isMeasuredRunsFile(path) || QFileInfo(path).isDir();
}

// A file read and checked on a worker behind a progress dialog with Cancel: a session near the
// size limits takes seconds to read, and the window keeps answering meanwhile.
struct FileRead {
    std::optional<cs::Session> session;
    QString problems;
    std::optional<DiskState> state; // what the file held just before it was read
    bool cancelled = false;
};

FileRead readOnWorker(QWidget* parent, const QString& label, const QString& path, bool withState)
{
    FileRead read;
    read.cancelled = !runWithProgress(parent, label, [&](TaskProgress&) {
        // Before loading: a change between the two makes a later save ask, never lose it.
        if (withState)
            read.state = DiskState::read(path);
        read.session = loadSessionFromFile(path, &read.problems);
    });
    return read;
}
} // namespace

bool MainWindow::isMeasuredRunsFile(const QString& path)
{
    return path.endsWith(QLatin1String(".jsonl"));
}

QStringList MainWindow::startupFiles(const QStringList& files)
{
    const bool measuredOnly = std::all_of(files.begin(), files.end(), &isMeasuredRunsFile);
    return measuredOnly ? QStringList{QStringLiteral(CS_DEFAULT_SAMPLE)} + files : files;
}

void MainWindow::openStartupFiles(const QStringList& files)
{
    bool document = false;
    for (const QString& file : startupFiles(files))
        document = (openFile(file) && !opensAsDialog(file)) || document;
    if (!document)
        openFile(QStringLiteral(CS_DEFAULT_SAMPLE));
}

bool MainWindow::openFile(const QString& path)
{
    if (opensAsDialog(path))
        return openMeasuredRuns(path);
    const bool isSession = path.endsWith(QLatin1String(".csession"));
    const QString name = QFileInfo(path).fileName();
    FileRead read = readOnWorker(this, tr("Opening %1...").arg(name), path, isSession);
    if (read.cancelled) {
        statusBar()->showMessage(tr("Cancelled: %1 not opened").arg(path), 4000);
        return false;
    }
    if (!read.session) {
        report(tr("Cannot open %1").arg(name), read.problems);
        return false;
    }
    if (isSession && m_autosaver->isOpenElsewhere(path) &&
        !confirm(tr("Already open"),
                 tr("%1 is open in another ClusterScope window. Each window saves over what the "
                    "other saved; ClusterScope asks before saving over a change made there.\n\n"
                    "Open it here too?")
                     .arg(path),
                 tr("Open"), true))
        return false;
    m_document->setSession(std::move(*read.session), isSession ? path : QString());
    if (!isSession)
        m_document->setSourcePath(path);
    setDiskState(read.state);
    m_lastDir = QFileInfo(path).absolutePath();
    addRecentFile(QFileInfo(path).absoluteFilePath());
    statusBar()->showMessage(tr("Opened %1").arg(path), 4000);
    return true;
}

bool MainWindow::openMeasuredRuns(const QString& path)
{
    const bool fromFolder = QFileInfo(path).isDir();
    // A folder's logs measure the document's run: a copy, for the worker.
    const cs::ClusterRun current{m_document->cluster(), m_document->run()};
    cs::Diagnostics diags;
    std::vector<cs::MeasuredRun> runs;
    std::vector<MeasuredPrediction> predicted;
    const bool finished = runWithProgress(
        this, tr("Predicting the measured runs of %1...").arg(QFileInfo(path).fileName()),
        [&](TaskProgress& progress) {
            if (fromFolder) {
                cs::ImportReport report;
                runs =
                    cs::importLogFolder(path.toStdString(), current.cluster, current.run, report);
                diags = report.errors;
            } else {
                runs = cs::readMeasuredRuns(path.toStdString(), diags);
            }
            for (size_t i = 0; i < runs.size() && !progress.cancelled; ++i) {
                progress.report(int64_t(i), int64_t(runs.size()));
                const cs::Evaluation e = cs::evaluate(runs[i].cluster, runs[i].run);
                MeasuredPrediction p{e.stepTimeS};
                if (e.variance)
                    p = {e.stepTimeS, e.variance->stragglerS, e.variance->stepStddevS};
                predicted.push_back(p);
            }
        });
    if (!finished) {
        statusBar()->showMessage(tr("Cancelled: %1 not opened").arg(path), 4000);
        return false;
    }
    // A folder lists its refused files beside the others; with none kept, they are the answer.
    QStringList problems;
    for (const cs::Diagnostic& d : diags.items())
        problems << QString::fromStdString(d.format());
    if (!diags.empty() && (!fromFolder || runs.empty()))
        report(tr("Problems in %1").arg(QFileInfo(path).fileName()),
               QString::fromStdString(diags.formatAll()));
    if (runs.empty())
        return false;
    addRecentFile(QFileInfo(path).absoluteFilePath());
    auto* dialog =
        new MeasuredRunsDialog(std::move(runs), std::move(predicted), QFileInfo(path).fileName(),
                               fromFolder ? problems : QStringList(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &MeasuredRunsDialog::openRequested, this, [this](const cs::MeasuredRun& run) {
        openUnsaved(cs::Session{run.cluster, run.run, {}, {}, {}, {}, {}});
    });
    m_measuredRuns = dialog;
    if (!m_quiet)
        dialog->open();
    return true;
}

bool MainWindow::openUnsaved(cs::Session session)
{
    if (!maybeSave())
        return false;
    m_document->setSession(std::move(session), QString());
    m_document->undoStack()->resetClean(); // saved nowhere yet: closing or opening asks
    setDiskState(std::nullopt);
    return true;
}

ImportDialog* MainWindow::openImportDialog()
{
    if (!commitPendingEdit())
        return nullptr;
    auto* dialog = new ImportDialog(cs::ClusterRun{m_document->cluster(), m_document->run()}, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ImportDialog::openRequested, this, &MainWindow::openUnsaved);
    if (!m_quiet)
        dialog->open();
    return dialog;
}

bool MainWindow::compareWith(const QString& path)
{
    if (!commitPendingEdit())
        return false;
    const QString name = QFileInfo(path).fileName();
    FileRead read = readOnWorker(this, tr("Reading %1...").arg(name), path, false);
    if (read.cancelled) {
        statusBar()->showMessage(tr("Cancelled: %1 not compared").arg(path), 4000);
        return false;
    }
    if (!read.session) {
        report(tr("Cannot compare with %1").arg(name), read.problems);
        return false;
    }
    const cs::Session& session = *read.session;
    m_document->undoStack()->push(
        new SetCompareCommand(m_document, cs::ClusterRun{session.cluster, session.run},
                              tr("Compare with %1").arg(QString::fromStdString(session.run.name))));
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("compareDock")))
        dock->raise();
    return true;
}

void MainWindow::newDocument()
{
    if (!maybeSave())
        return;
    QString problems;
    auto session = loadSessionFromFile(QStringLiteral(CS_DEFAULT_SAMPLE), &problems);
    if (!session) {
        report(tr("Cannot start a new session"), problems);
        return;
    }
    session->bookmarks.clear();
    m_document->setSession(std::move(*session), QString());
    m_document->undoStack()->resetClean(); // saved nowhere yet: closing or opening asks
    setDiskState(std::nullopt);
}
