// Documents out: Save and Save As, the questions asked before losing anything, the recovery
// of a crashed instance's changes, and the report of what went wrong.
#include "mainwindow.h"

#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QUndoStack>

#include "autosave.h"
#include "backgroundwork.h"
#include "document.h"
#include "messagetext.h"
#include "propertiespanel.h"

namespace {
const QString kSessionFilter = QStringLiteral("ClusterScope sessions (*.csession)");
} // namespace

bool MainWindow::saveTo(const QString& path)
{
    if (!commitPendingEdit() || !confirmOverwrite(path))
        return false;
    // A session near the size limits takes seconds to write and to check: on a worker.
    std::optional<QByteArray> bytes;
    QString error;
    bool written = false;
    const bool finished =
        runWithProgress(this, tr("Saving %1...").arg(QFileInfo(path).fileName()),
                        [&, session = m_document->sessionToSave()](TaskProgress& progress) {
                            bytes = sessionFileBytes(session, path, &error);
                            // Cancelled before the write begins, the old file stays.
                            if (bytes && !progress.cancelled)
                                written = writeFileAtomically(path, *bytes, &error);
                        });
    if (!written) {
        if (finished || !bytes)
            report(tr("Cannot save %1").arg(QFileInfo(path).fileName()), error);
        else
            statusBar()->showMessage(tr("Cancelled: %1 not saved").arg(path), 4000);
        return false;
    }
    // Written, synced and read back: only now may the recovery file go.
    setDiskState(DiskState::of(*bytes));
    m_document->markSaved(path);
    m_autosaver->discard();
    addRecentFile(QFileInfo(path).absoluteFilePath());
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

bool MainWindow::save()
{
    const QString path = m_document->filePath();
    return path.isEmpty() ? saveAs() : saveTo(path);
}

bool MainWindow::saveAs()
{
    const QString suggested =
        !m_document->filePath().isEmpty() ? m_document->filePath()
        : !m_document->sourcePath().isEmpty()
            ? sessionPathFor(m_document->sourcePath())
            : QString::fromStdString(m_document->run().name) + QStringLiteral(".csession");
    QString path = askSavePath(tr("Save Session As"), suggested, kSessionFilter);
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".csession")))
        path += QStringLiteral(".csession");
    return saveTo(path);
}

bool MainWindow::confirmOverwrite(const QString& path)
{
    const QString opened = QFileInfo(m_document->filePath()).canonicalFilePath();
    if (!m_diskState || opened.isEmpty() || opened != QFileInfo(path).canonicalFilePath() ||
        !changedOnDisk(path, *m_diskState))
        return true;
    return confirm(tr("Changed on disk"),
                   tr("%1 changed on disk since ClusterScope opened or saved it: another program "
                      "or window wrote it.\n\nSave over it, losing that change?")
                       .arg(path),
                   tr("Save Over It"), false);
}

bool MainWindow::commitPendingEdit()
{
    if (m_properties->commitPendingEdit())
        return true;
    if (!confirm(tr("A typed value was refused"),
                 tr("%1\n\nContinue without this value?").arg(m_properties->problem()),
                 tr("Continue"), false))
        return false;
    // Given up: the field shows the document's value again, and is not asked about twice.
    m_properties->setValues(m_document->cluster(), m_document->run());
    return true;
}

bool MainWindow::confirm(const QString& title, const QString& text, const QString& yes,
                         bool quietAnswer)
{
    if (m_quiet) {
        m_lastProblem = text;
        return quietAnswer;
    }
    QMessageBox box(QMessageBox::Warning, title, boundedMessage(text), QMessageBox::Cancel, this);
    QPushButton* accept = box.addButton(yes, QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == accept;
}

void MainWindow::setDiskState(const std::optional<DiskState>& state)
{
    m_diskState = state;
    m_autosaver->setOriginState(state);
}

bool MainWindow::maybeSave()
{
    if (!commitPendingEdit())
        return false;
    if (!m_document->isModified())
        return true;
    if (m_quiet) {
        m_lastProblem = tr("The session has unsaved changes.");
        return false;
    }
    const auto answer = QMessageBox::warning(
        this, tr("Unsaved changes"), tr("The session has unsaved changes. Save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

bool MainWindow::offerRecovery()
{
    // Only recoveries whose instance is gone: another running window's changes are its own.
    // Each may be a large session: read on a worker.
    std::vector<std::unique_ptr<Autosaver::Recovery>> recoveries;
    runWithProgress(this, tr("Reading the unsaved changes of a ClusterScope that did not close..."),
                    [&](TaskProgress&) { recoveries = m_autosaver->staleRecoveries(); });
    reportUnreadable(recoveries);
    for (const auto& recovery : recoveries) {
        if (!recovery->problem.isEmpty())
            continue;
        const QString origin =
            !recovery->originalPath.isEmpty() ? recovery->originalPath
            : recovery->relativeOrigin.isEmpty()
                ? tr("an untitled session")
                : tr("%1 (a path relative to a folder it does not say: restored untitled, "
                     "Save asks where)")
                      .arg(recovery->relativeOrigin);
        const QString question = boundedMessage(
            tr("ClusterScope did not close normally. Restore the unsaved changes to %1 "
               "(autosaved %2)?")
                .arg(origin, QLocale().toString(recovery->autosavedAt, QLocale::ShortFormat)));
        const auto answer =
            m_quiet ? QMessageBox::Yes
                    : QMessageBox::question(this, tr("Restore unsaved changes?"), question,
                                            QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
        if (answer != QMessageBox::Yes) {
            recovery->discard();
            continue;
        }
        m_document->setSession(std::move(recovery->session), recovery->originalPath);
        m_document->undoStack()->resetClean(); // restored changes are still unsaved
        setDiskState(recovery->originState);
        // The changes are this window's now: the old file goes once its own copy is written.
        if (m_autosaver->writeNow())
            recovery->discard();
        return true;
    }
    return false;
}

void MainWindow::reportUnreadable(const std::vector<std::unique_ptr<Autosaver::Recovery>>& found)
{
    QStringList problems;
    for (const auto& recovery : found) {
        if (recovery->problem.isEmpty())
            continue;
        // Kept under another name: the user may still want what it holds, and is told once.
        const QString aside = recovery->setAside();
        problems << recovery->problem
                 << (aside.isEmpty() ? tr("It stays as %1.").arg(recovery->path)
                                     : tr("It is kept as %1.").arg(aside));
    }
    if (!problems.isEmpty())
        report(tr("Unsaved changes that cannot be restored"),
               tr("ClusterScope did not close normally, and its recovery file cannot be read:\n") +
                   problems.join(QLatin1Char('\n')));
}

void MainWindow::report(const QString& title, const QString& text)
{
    m_lastProblem = text;
    statusBar()->showMessage(title, 8000);
    if (m_quiet)
        return;
    QMessageBox box(QMessageBox::Warning, title, title, QMessageBox::Ok, this);
    // Bounded: a message quoting a 5 MB value would take the box a minute to lay out.
    box.setInformativeText(boundedMessage(text, 5) + tr("\n\nThe open document is unchanged."));
    box.setDetailedText(boundedMessage(text, 200, 1000));
    box.exec();
}
