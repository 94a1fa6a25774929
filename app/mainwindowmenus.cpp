// The window's menus and their actions: File, Edit, View, Tools, Help, and the recent files.
#include "mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QSettings>
#include <QUndoStack>

#include "document.h"
#include "documentundo.h"
#include "editcommands.h"
#include "presentation.h"
#include "searchdialog.h"
#include "windowlayout.h"

namespace {
constexpr int kMaxRecentFiles = 10;
} // namespace

void MainWindow::createActions()
{
    createFileMenu();
    createEditMenu();
    createViewMenu();
    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->setObjectName(QStringLiteral("toolsMenu"));
    QAction* search =
        tools->addAction(tr("&Search Parallelism..."), this, &MainWindow::searchParallelism);
    search->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    search->setObjectName(QStringLiteral("searchParallelism"));
    search->setStatusTip(tr("Rank every valid TP, CP, PP, VP, micro-batch, recompute and placement "
                            "for this model on this cluster, with any of them held fixed"));
    m_helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction* shortcuts = m_helpMenu->addAction(tr("&Keyboard Shortcuts"), this,
                                               [this] { showHelp(HelpPage::Shortcuts); });
    shortcuts->setShortcut(QKeySequence::HelpContents);
    shortcuts->setObjectName(QStringLiteral("shortcutsHelp"));
    m_helpMenu->addAction(tr("&First Steps"), this, [this] { showHelp(HelpPage::FirstSteps); })
        ->setObjectName(QStringLiteral("firstStepsHelp"));
    m_helpMenu->addSeparator();
    m_helpMenu->addAction(tr("&About ClusterScope"), this, &MainWindow::about);
    m_helpMenu->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newDocument)
        ->setStatusTip(tr("A new session on the Fairwater sample cluster"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        if (!maybeSave())
            return;
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open"), m_lastDir,
            tr("ClusterScope files (*.json *.csession *.jsonl);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("&Import..."), this, &MainWindow::openImportDialog)
        ->setStatusTip(tr("A Megatron-LM launch and log, a NeMo config, an MLPerf result log or a "
                          "Slurm topology as a new document"));
    file->addAction(tr("Open Measured &Logs Folder..."), this,
                    [this] {
                        const QString folder = QFileDialog::getExistingDirectory(
                            this, tr("Open Measured Logs Folder"), m_lastDir);
                        if (!folder.isEmpty())
                            openMeasuredRuns(folder);
                    })
        ->setStatusTip(tr("Every training log of a folder measured against the current run"));
    addMeasuredProfileActions(file);
    file->addAction(tr("&Compare With..."), this,
                    [this] {
                        const QString path = QFileDialog::getOpenFileName(
                            this, tr("Compare With"), m_lastDir,
                            tr("Runs, clusters and sessions (*.json *.csession)"));
                        if (!path.isEmpty())
                            compareWith(path);
                    })
        ->setStatusTip(tr("Show another run or cluster beside this one: breakdowns side by side "
                          "and their differences"));
    file->addAction(tr("Clear Comparison"), this, [this] {
        if (!commitPendingEdit())
            return;
        m_document->undoStack()->push(
            new SetCompareCommand(m_document, std::nullopt, tr("Clear Comparison")));
    });
    file->addSeparator();
    file->addAction(tr("&Save Session"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save Session &As..."), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    for (const QString& format :
         {QStringLiteral("PNG"), QStringLiteral("SVG"), QStringLiteral("PDF")})
        exportMenu->addAction(tr("View as %1...").arg(format), this,
                              [this, format] { exportTopology(format); });
    exportMenu->addAction(tr("Bookmarks as a PDF Handout..."), this, &MainWindow::exportHandout)
        ->setStatusTip(tr("One page per bookmark: its caption, its view and its speaker notes"));
    exportMenu->addSeparator();
    for (const QString& format :
         {QStringLiteral("PNG"), QStringLiteral("SVG"), QStringLiteral("PDF")})
        exportMenu->addAction(tr("Window as %1...").arg(format), this,
                              [this, format] { exportWindow(format); });
    exportMenu->addSeparator();
    exportMenu->addAction(tr("Breakdown as CSV..."), this, &MainWindow::exportBreakdownCsv);
    exportMenu->addAction(tr("Step Trace (Chrome JSON)..."), this, &MainWindow::exportTrace);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    updateRecentMenu();
}

void MainWindow::createEditMenu()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    const DocumentUndoActions undo =
        addDocumentUndo(this, m_document->undoStack(), [this] { return commitPendingEdit(); });
    edit->addAction(undo.undo);
    edit->addAction(undo.redo);
    edit->addSeparator();
    edit->addAction(m_presentation->addBookmarkAction());
}

void MainWindow::createViewMenu()
{
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addActions(m_topologyActions);
    // The colour modes of the toolbar's list, from the one table of modes.
    QMenu* colorBy = m_viewMenu->addMenu(tr("&Colour By"));
    colorBy->setObjectName(QStringLiteral("colorByMenu"));
    auto* modes = new QActionGroup(this);
    for (int i = 0; i < m_colorBy->count(); ++i) {
        QAction* a = colorBy->addAction(m_colorBy->itemText(i), this,
                                        [this, i] { m_colorBy->activated(i); });
        a->setCheckable(true);
        a->setData(m_colorBy->itemData(i));
        modes->addAction(a);
    }
    connect(colorBy, &QMenu::aboutToShow, this, [this, colorBy] {
        for (QAction* a : colorBy->actions())
            a->setChecked(a->data() == m_colorBy->currentData());
    });
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_presentation->toggleAction());
    m_viewMenu->addAction(m_presentation->nextAction());
    m_viewMenu->addAction(m_presentation->previousAction());
    m_viewMenu->addAction(m_presentation->notesAction());
    m_viewMenu->addSeparator();
    QAction* reset =
        m_viewMenu->addAction(tr("&Reset Layout"), this, [this] { applyDefaultLayout(this); });
    reset->setObjectName(QStringLiteral("resetLayout"));
    reset->setStatusTip(tr("Every dock and toolbar back to where it starts, sized for the window"));
    QMenu* theme = m_viewMenu->addMenu(tr("&Theme"));
    auto* group = new QActionGroup(this);
    QAction* light = theme->addAction(tr("&Light"), this, [this] { setDarkTheme(false); });
    QAction* dark = theme->addAction(tr("&Dark"), this, [this] { setDarkTheme(true); });
    for (QAction* a : {light, dark}) {
        a->setCheckable(true);
        group->addAction(a);
    }
    light->setChecked(true);
    dark->setObjectName(QStringLiteral("darkTheme"));
    light->setObjectName(QStringLiteral("lightTheme"));
}

void MainWindow::addDockToggles()
{
    m_viewMenu->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());
}

void MainWindow::addRecentFile(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecentFiles)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& path : recent) {
        m_recentMenu
            ->addAction(QFileInfo(path).fileName(), this,
                        [this, path] {
                            if (maybeSave())
                                openFile(path);
                        })
            ->setStatusTip(path);
    }
    m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("&Clear"), this, [this] {
        QSettings().remove(QStringLiteral("recentFiles"));
        updateRecentMenu();
    });
    clear->setEnabled(!recent.isEmpty());
}

void MainWindow::searchParallelism()
{
    auto* dialog = new SearchDialog(m_document->cluster(), m_document->run(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &SearchDialog::layoutChosen, this, [this](const cs::Layout& layout) {
        const cs::RunDesc run = cs::withLayout(m_document->run(), layout);
        const cs::Parallelism& p = run.parallelism;
        m_document->undoStack()->push(
            new EditModelCommand(m_document, m_document->cluster(), run,
                                 tr("Apply layout TP %1 CP %2 PP %3 VP %4 DP %5")
                                     .arg(p.tp)
                                     .arg(p.cp)
                                     .arg(p.pp)
                                     .arg(p.vp)
                                     .arg(p.dp)));
    });
    dialog->open();
}
