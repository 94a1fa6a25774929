#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <algorithm>

#include "autosave.h"
#include "bookmarkdialog.h"
#include "bookmarkslist.h"
#include "document.h"
#include "editcommands.h"
#include "elidedlabel.h"
#include "fabricviews.h"
#include "inspectorpanel.h"
#include "jobsviews.h"
#include "legendwidget.h"
#include "onscreen.h"
#include "presentation.h"
#include "propertiespanel.h"
#include "stepviews.h"
#include "text.h"
#include "theme.h"
#include "timelineview.h"
#include "topologyscene.h"
#include "topologyview.h"
#include "windowlayout.h"

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
    addJobsViews(this, m_document, m_topologyView, findChild<QMenu*>(QStringLiteral("toolsMenu")),
                 [this](const QString& why) { report(tr("Jobs"), why); });
    createMeasuredProfileViews(); // after the step views: its dock joins the breakdown's
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
    connect(m_document, &Document::jobsEvaluated, this, &MainWindow::updateStepFigure);
    connect(m_document, &Document::modifiedChanged, this, &QWidget::setWindowModified);
    connect(m_document, &Document::modelChanged, this,
            [this] { m_properties->setValues(m_document->cluster(), m_document->run()); });
    connect(m_document, &Document::bookmarksChanged, this,
            [this] { m_bookmarks->setBookmarks(m_document->bookmarks()); });
    connect(m_document, &Document::sessionReplaced, this, [this] {
        if (auto* timeline = findChild<TimelineView*>())
            timeline->showWholeStep(); // a new document's step, not the last one's zoom
    });
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
    legendDock->setWidget(scrolledVertically(m_legend, legendDock));
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
    connect(inspectorDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && m_inspectorStale)
            updateInspector();
    });

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
    // Behind the legend's tab, where it usually is, the inspector catches up when its dock is
    // shown (raised below, or later): laying out its text was a tenth of an edit.
    m_inspectorStale = true;
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
    if (m_inspectorStale && onScreen(m_inspector))
        updateInspector();
}

void MainWindow::updateInspector()
{
    m_inspectorStale = false;
    m_inspector->showRank(m_document->topology(), m_document->placement(), m_document->evaluation(),
                          m_document->run(), m_document->view().highlightRank);
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

void MainWindow::updateTitle()
{
    const QString path =
        m_document->filePath().isEmpty() ? m_document->sourcePath() : m_document->filePath();
    const QString name = path.isEmpty() ? tr("untitled") : QFileInfo(path).fileName();
    setWindowTitle(QStringLiteral("%1[*] - ClusterScope").arg(name));
    setWindowModified(m_document->isModified());
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
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    if (dropMeasuredProfile(urls))
        return;
    // After the drop has ended: the questions and the read (an event loop of its own while a
    // worker reads) do not run inside the drag and drop protocol.
    QTimer::singleShot(0, this, [this, path = urls.first().toLocalFile()] {
        if (maybeSave())
            openFile(path);
    });
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
    // No saved geometry: maximised, unless the window was given a size of its own before.
    if (m_maximiseAtFirstShow && *m_maximiseAtFirstShow == size())
        setWindowState(windowState() | Qt::WindowMaximized);
    m_maximiseAtFirstShow.reset();
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
    m_stepFigure = new ElidedLabel(this);
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
    QString text = tr("Step %1 predicted (%2)")
                       .arg(QString::fromStdString(cs::stepTimeText(e.stepTimeS)),
                            QString::fromStdString(cs::rangeText(m_document->range())));
    if (const auto& measured = m_document->run().measured)
        text += tr(", measured %1 (%2)")
                    .arg(QString::fromStdString(cs::stepTimeText(measured->stepTimeS)),
                         QString::fromStdString(
                             cs::signedPercentText(e.stepTimeS / measured->stepTimeS - 1)));
    // Several jobs: the step above is with the others running; alone, from the jobs'
    // evaluation.
    if (const JobsResult* jobs = m_document->jobsResult(); jobs && m_document->hasJobs())
        text += tr(", %1 alone")
                    .arg(QString::fromStdString(
                        cs::stepTimeText(jobs->evaluation.jobs.front().alone.stepTimeS)));
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
    // The whole line first: the label cuts it where the window is too narrow.
    m_stepFigure->setToolTip(
        tr("%1\n\nMemory of one GPU of the most loaded pipeline stage, GiB: %2")
            .arg(text, parts.join(QStringLiteral(", "))));
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
    // The last geometry when there is one; else, at the first show, the screen's whole,
    // maximised (the size meant for the screen stays the one it returns to).
    if (!restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray()))
        m_maximiseAtFirstShow = size();
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
