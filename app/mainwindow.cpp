#include "mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QLayout>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTimer>
#include <QUndoStack>
#include <algorithm>

#include <QComboBox>
#include <QToolBar>

#include "autosave.h"
#include "backgroundwork.h"
#include "bookmarkdialog.h"
#include "bookmarkslist.h"
#include "document.h"
#include "documentio.h"
#include "editcommands.h"
#include "exports.h"
#include "fabricviews.h"
#include "helppages.h"
#include "importdialog.h"
#include "inspectorpanel.h"
#include "legendwidget.h"
#include "logfolder.h"
#include "measuredrunsdialog.h"
#include "presentation.h"
#include "propertiespanel.h"
#include "search.h"
#include "searchdialog.h"
#include "stepviews.h"
#include "text.h"
#include "theme.h"
#include "topologyscene.h"
#include "topologyview.h"
#include "trace.h"
#include "windowlayout.h"

namespace {
constexpr int kMaxRecentFiles = 10;
const QString kSessionFilter = QStringLiteral("ClusterScope sessions (*.csession)");

// Measured runs, and a folder of training logs, open as a dialog over the document.
bool opensAsDialog(const QString& path)
{
    return MainWindow::isMeasuredRunsFile(path) || QFileInfo(path).isDir();
}
} // namespace

MainWindow::MainWindow(const QString& recoveryDir, QWidget* parent)
    : QMainWindow(parent)
    , m_document(new Document(this))
{
    setAcceptDrops(true);
    createTopologyView();
    m_presentation = new Presentation(this, m_document);
    createDocks();
    createActions();
    addStepViews(this, m_document); // after the topology view: its colours are set first
    addFabricViews(this, m_document, m_topologyView,
                   findChild<QMenu*>(QStringLiteral("toolsMenu")));
    menuBar()->addAction(m_helpMenu->menuAction()); // Help stays last
    addDockToggles();
    m_autosaver = new Autosaver(
        m_document, recoveryDir.isEmpty() ? Autosaver::defaultRecoveryDir() : recoveryDir,
        Autosaver::kIntervalMs, this);
    connect(m_autosaver, &Autosaver::writeFailed, this, [this](const QString& reason) {
        m_lastProblem = reason;
        statusBar()->showMessage(tr("Autosave failed: %1").arg(reason), 15'000);
    });
    connect(m_document, &Document::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::modelChanged, this, &MainWindow::updateStepFigure);
    connect(m_document, &Document::modifiedChanged, this, &QWidget::setWindowModified);
    connect(m_document, &Document::modelChanged, this,
            [this] { m_properties->setValues(m_document->cluster(), m_document->run()); });
    connect(m_document, &Document::bookmarksChanged, this,
            [this] { m_bookmarks->setBookmarks(m_document->bookmarks()); });
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
        const QSize size = defaultWindowSize(screen->availableGeometry().size());
        placeDocks(this, size);
        // Placing the docks grows the window to what they asked for on the way; once laid out
        // they need less, and the window takes the size meant for the screen.
        layout()->activate();
        resize(size);
    }
    createStatusBar();
    readSettings();
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::setQuiet(bool quiet)
{
    m_quiet = quiet;
    m_presentation->setQuiet(quiet);
}

void MainWindow::createTopologyView()
{
    m_topologyView =
        new TopologyView([this]() -> const cs::ViewState& { return m_document->view(); },
                         [this](const cs::ViewState& v) { m_document->setView(v); }, this);
    setCentralWidget(m_topologyView);
    m_legend = new LegendWidget(this);
    auto* legendDock = new QDockWidget(tr("Legend"), this);
    legendDock->setObjectName(QStringLiteral("legend"));
    // Scrolled rather than squeezed when the dock is short.
    auto* legendScroll = new QScrollArea(legendDock);
    legendScroll->setWidget(m_legend);
    legendScroll->setWidgetResizable(true);
    legendScroll->setFrameShape(QFrame::NoFrame);
    legendScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    legendDock->setWidget(legendScroll);
    addDockWidget(Qt::RightDockWidgetArea, legendDock);
    m_inspector = new InspectorPanel(this);
    auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
    inspectorDock->setObjectName(QStringLiteral("inspector"));
    inspectorDock->setWidget(m_inspector);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
    // Both are short: as tabs they leave the charts below room. updateTopologyPanels raises
    // the one that just changed.
    tabifyDockWidget(legendDock, inspectorDock);
    legendDock->raise();

    QToolBar* toolbar = addToolBar(tr("View"));
    toolbar->setObjectName(QStringLiteral("viewToolbar"));
    toolbar->addWidget(new QLabel(tr(" Colour by: "), toolbar));
    m_colorBy = new QComboBox(toolbar);
    for (const cs::ColorMode& mode : cs::colorModes()) {
        QString label = QString::fromStdString(cs::labelOf(mode));
        label[0] = label[0].toUpper();
        m_colorBy->addItem(label, QString::fromStdString(cs::toString(mode)));
    }
    toolbar->addWidget(m_colorBy);
    connect(m_colorBy, &QComboBox::activated, this, [this](int i) {
        cs::ViewState v = m_document->view();
        v.colorBy = cs::colorModeFromString(m_colorBy->itemData(i).toString().toStdString())
                        .value_or(v.colorBy);
        m_document->setView(v);
    });
    QAction* fit = new QAction(tr("&Fit to View"), this);
    fit->setShortcut(Qt::Key_F);
    connect(fit, &QAction::triggered, m_topologyView, &TopologyView::fitToView);
    QAction* zoomIn = new QAction(tr("Zoom &In"), this);
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    connect(zoomIn, &QAction::triggered, m_topologyView, &TopologyView::zoomIn);
    QAction* zoomOut = new QAction(tr("Zoom &Out"), this);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    connect(zoomOut, &QAction::triggered, m_topologyView, &TopologyView::zoomOut);
    m_topologyActions = {fit, zoomIn, zoomOut};
    toolbar->addActions(m_topologyActions);

    connect(m_document, &Document::modelChanged, this, [this] {
        m_topologyView->setModel(m_document->topology(), m_document->placement(),
                                 m_document->evaluation());
        updateTopologyPanels();
    });
    connect(m_document, &Document::viewChanged, this, [this] {
        m_topologyView->viewStateChanged();
        // Playback changes the time sixty times a second; the panels depend on the rest.
        const cs::ViewState& v = m_document->view();
        if (v.colorBy != m_panelsColorBy || v.highlightRank != m_panelsRank)
            updateTopologyPanels();
    });
}

void MainWindow::updateTopologyPanels()
{
    TopologyScene* scene = m_topologyView->scene();
    if (!scene)
        return;
    const cs::ViewState& view = m_document->view();
    const auto raise = [this](const char* dock) {
        if (auto* d = findChild<QDockWidget*>(QString::fromLatin1(dock)))
            d->raise();
    };
    if (view.highlightRank != m_panelsRank && view.highlightRank >= 0)
        raise("inspector");
    else if (view.colorBy != m_panelsColorBy || view.highlightRank != m_panelsRank)
        raise("legend");
    m_panelsColorBy = view.colorBy;
    m_panelsRank = view.highlightRank;
    m_colorBy->setCurrentIndex(
        std::max(0, m_colorBy->findData(QString::fromStdString(cs::toString(view.colorBy)))));
    m_legend->setLegend(scene->legend());
    m_inspector->showRank(m_document->topology(), m_document->placement(), m_document->evaluation(),
                          m_document->run(), view.highlightRank);
}

void MainWindow::createDocks()
{
    m_properties = new PropertiesPanel(this);
    auto* propertiesDock = new QDockWidget(tr("Properties"), this);
    propertiesDock->setObjectName(QStringLiteral("properties"));
    propertiesDock->setWidget(m_properties);
    addDockWidget(Qt::LeftDockWidgetArea, propertiesDock);
    connect(m_properties, &PropertiesPanel::editRequested, this,
            [this](const cs::ClusterDesc& c, const cs::RunDesc& r, const QString& what, int field) {
                m_document->undoStack()->push(new EditModelCommand(m_document, c, r, what, field));
            });

    m_bookmarks = new BookmarksList(this);
    auto* bookmarksDock = new QDockWidget(tr("Bookmarks"), this);
    bookmarksDock->setObjectName(QStringLiteral("bookmarks"));
    bookmarksDock->setWidget(m_bookmarks);
    addDockWidget(Qt::LeftDockWidgetArea, bookmarksDock);
    connect(m_bookmarks, &BookmarksList::goToRequested, m_presentation,
            [this](int i) { m_presentation->goTo(i); });
    connect(m_bookmarks, &BookmarksList::renameRequested, this,
            [this](int i, const QString& title) {
                auto marks = m_document->bookmarks();
                if (i < 0 || i >= int(marks.size()) || title.isEmpty())
                    return;
                marks[size_t(i)].title = title.toStdString();
                m_document->undoStack()->push(
                    new SetBookmarksCommand(m_document, marks, tr("Rename Bookmark")));
            });
    connect(m_bookmarks, &BookmarksList::editRequested, this, [this](int i) {
        auto marks = m_document->bookmarks();
        if (i < 0 || i >= int(marks.size()))
            return;
        BookmarkDialog ask(tr("Edit Bookmark"), QString::fromStdString(marks[size_t(i)].title),
                           QString::fromStdString(marks[size_t(i)].notes), this);
        if (ask.exec() != QDialog::Accepted)
            return;
        marks[size_t(i)].title = ask.caption().toStdString();
        marks[size_t(i)].notes = ask.notes().toStdString();
        m_document->undoStack()->push(
            new SetBookmarksCommand(m_document, marks, tr("Edit Bookmark")));
    });
    connect(m_bookmarks, &BookmarksList::removeRequested, this, [this](int i) {
        auto marks = m_document->bookmarks();
        if (i < 0 || i >= int(marks.size()))
            return;
        marks.erase(marks.begin() + i);
        m_document->undoStack()->push(
            new SetBookmarksCommand(m_document, marks, tr("Delete Bookmark")));
    });
}

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
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
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
    // Before loading: a change between the two makes a later save ask, never lose it.
    const std::optional<DiskState> state = isSession ? DiskState::read(path) : std::nullopt;
    QString problems;
    auto session = loadSessionFromFile(path, &problems);
    if (!session) {
        report(tr("Cannot open %1").arg(QFileInfo(path).fileName()), problems);
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
    m_document->setSession(std::move(*session), isSession ? path : QString());
    if (!isSession)
        m_document->setSourcePath(path);
    setDiskState(state);
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
        openUnsaved(cs::Session{run.cluster, run.run, {}, {}, {}, {}});
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
    QString problems;
    auto session = loadSessionFromFile(path, &problems);
    if (!session) {
        report(tr("Cannot compare with %1").arg(QFileInfo(path).fileName()), problems);
        return false;
    }
    m_document->undoStack()->push(new SetCompareCommand(
        m_document, cs::ClusterRun{session->cluster, session->run},
        tr("Compare with %1").arg(QString::fromStdString(session->run.name))));
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("compareDock")))
        dock->raise();
    return true;
}

bool MainWindow::saveTo(const QString& path)
{
    if (!commitPendingEdit() || !confirmOverwrite(path))
        return false;
    const QByteArray bytes = sessionBytes(m_document->sessionToSave());
    QString error;
    if (!writeFileAtomically(path, bytes, &error)) {
        report(tr("Cannot save %1").arg(QFileInfo(path).fileName()), error);
        return false;
    }
    // Written, synced and read back: only now may the recovery file go.
    setDiskState(DiskState::of(bytes));
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
    QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Cancel, this);
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
    setDiskState(std::nullopt);
}

bool MainWindow::offerRecovery()
{
    // Only recoveries whose instance is gone: another running window's changes are its own.
    for (const auto& recovery : m_autosaver->staleRecoveries()) {
        const QString origin =
            recovery->originalPath.isEmpty() ? tr("an untitled session") : recovery->originalPath;
        const QString question =
            tr("ClusterScope did not close normally. Restore the unsaved changes to %1 "
               "(autosaved %2)?")
                .arg(origin, QLocale().toString(recovery->autosavedAt, QLocale::ShortFormat));
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

void MainWindow::report(const QString& title, const QString& text)
{
    m_lastProblem = text;
    statusBar()->showMessage(title, 8000);
    if (m_quiet)
        return;
    QMessageBox box(QMessageBox::Warning, title, title, QMessageBox::Ok, this);
    box.setInformativeText(text.section(QLatin1Char('\n'), 0, 4) +
                           tr("\n\nThe open document is unchanged."));
    box.setDetailedText(text);
    box.exec();
}

void MainWindow::updateTitle()
{
    const QString path =
        m_document->filePath().isEmpty() ? m_document->sourcePath() : m_document->filePath();
    const QString name = path.isEmpty() ? tr("untitled") : QFileInfo(path).fileName();
    setWindowTitle(QStringLiteral("%1[*] - ClusterScope").arg(name));
    setWindowModified(m_document->isModified());
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

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_presentation->leave();
    writeSettings();
    m_autosaver->discard();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile() || !maybeSave())
        return;
    openFile(urls.first().toLocalFile());
    event->acceptProposedAction();
}

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
    const QString path = askSavePath(tr("Export View"), QStringLiteral("view.") + format.toLower(),
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
    const QString path = askSavePath(tr("Export Bookmarks"), QStringLiteral("bookmarks.pdf"),
                                     tr("PDF files (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportBookmarksHandout(*m_document, path, &error))
        report(tr("Cannot export"), error);
}

void MainWindow::exportWindow(const QString& format)
{
    const QString path =
        askSavePath(tr("Export Window"), QStringLiteral("clusterscope.") + format.toLower(),
                    tr("%1 files (*.%2)").arg(format, format.toLower()));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportWidget(this, path, format, &error))
        report(tr("Cannot export"), error);
}

void MainWindow::exportBreakdownCsv()
{
    const QString path = askSavePath(tr("Export Breakdown"), QStringLiteral("breakdown.csv"),
                                     tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!::exportBreakdownCsv(m_document->evaluation(), m_document->run(), path, &error))
        report(tr("Cannot export"), error);
}

void MainWindow::exportTrace()
{
    const QString path = askSavePath(tr("Export Step Trace"), QStringLiteral("step.trace.json"),
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

void MainWindow::setDarkTheme(bool dark)
{
    applyTheme(dark);
    QSettings().setValue(QStringLiteral("theme"),
                         dark ? QStringLiteral("dark") : QStringLiteral("light"));
    if (auto* a =
            findChild<QAction*>(dark ? QStringLiteral("darkTheme") : QStringLiteral("lightTheme")))
        a->setChecked(true);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // Once the window has its size and the docks their content: sizes asked for earlier are
    // redistributed as the docks fill.
    // After the events queued with the show: the first document is loaded by then, and the
    // legend asks for the height its entries need.
    if (!m_dockSizesSet) {
        m_dockSizesSet = true;
        QTimer::singleShot(0, this, [this] { applyDefaultLayout(this); });
    }
}

void MainWindow::createStatusBar()
{
    m_stepFigure = new QLabel(this);
    m_stepFigure->setObjectName(QStringLiteral("stepFigure"));
    statusBar()->addPermanentWidget(m_stepFigure);
    connect(m_topologyView, &TopologyView::hovered, this, [this](const QString& what) {
        if (what.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(what);
    });
}

void MainWindow::updateStepFigure()
{
    if (!m_document->hasModel())
        return;
    const cs::Evaluation& e = m_document->evaluation();
    QString text =
        tr("Step %1 predicted").arg(QString::fromStdString(cs::stepTimeText(e.stepTimeS)));
    if (const auto& measured = m_document->run().measured)
        text += tr(", measured %1 (%2)")
                    .arg(QString::fromStdString(cs::stepTimeText(measured->stepTimeS)),
                         QString::fromStdString(
                             cs::signedPercentText(e.stepTimeS / measured->stepTimeS - 1)));
    text += tr("  |  %1 GPUs  |  MFU %2 %")
                .arg(QString::fromStdString(cs::withThousands(e.gpusUsed)))
                .arg(e.mfu * 100, 0, 'f', 1);
    const double hbm = m_document->cluster().gpu.hbmGiB;
    text += e.fitsMemory ? tr("  |  %1 of %2 GiB a GPU").arg(e.memoryGiBPerGpu, 0, 'f', 1).arg(hbm)
                         : tr("  |  %1 GiB a GPU: does not fit the %2")
                               .arg(e.memoryGiBPerGpu, 0, 'f', 1)
                               .arg(hbm);
    if (e.timeToTrainS)
        text += tr("  |  time to train %1")
                    .arg(QString::fromStdString(cs::trainingTimeText(*e.timeToTrainS)));
    m_stepFigure->setText(text);
    QStringList parts;
    for (const cs::MemoryPart& p : cs::kMemoryParts)
        parts << QStringLiteral("%1 %2").arg(QLatin1String(p.key)).arg(e.memory.*p.gib, 0, 'f', 1);
    m_stepFigure->setToolTip(tr("Memory of one GPU of the most loaded pipeline stage, GiB: %1")
                                 .arg(parts.join(QStringLiteral(", "))));
}

void MainWindow::showHelp(HelpPage page)
{
    QPointer<QDialog>& dialog = m_help[size_t(page)];
    if (!dialog)
        dialog = helpDialog(page, this);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

void MainWindow::readSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    m_dockSizesSet = restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
    m_lastDir = settings.value(QStringLiteral("lastDir")).toString();
    if (settings.value(QStringLiteral("theme")).toString() == QLatin1String("dark"))
        setDarkTheme(true);
}

void MainWindow::writeSettings()
{
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState());
    settings.setValue(QStringLiteral("lastDir"), m_lastDir);
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About ClusterScope"),
                       tr("<h3>ClusterScope %1</h3><p>See which GPUs hold which parallel groups, "
                          "what crosses NVLink and what crosses the fabric, and where the time of "
                          "one training step goes.</p>")
                           .arg(QStringLiteral(CLUSTERSCOPE_VERSION)));
}
