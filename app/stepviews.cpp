#include "stepviews.h"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QStatusBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>

#include "activitycolors.h"
#include "backgroundwork.h"
#include "breakdownchart.h"
#include "comparepanel.h"
#include "costmodel.h"
#include "document.h"
#include "onscreen.h"
#include "playbackbar.h"
#include "scaling.h"
#include "scalingchart.h"
#include "timelineview.h"
#include "uncertainty.h"
#include "validation.h"
#include "windowlayout.h"

namespace {

QString legendHtml(const std::vector<LegendEntry>& entries)
{
    QStringList parts;
    for (const LegendEntry& e : entries)
        parts << QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2")
                     .arg(e.color.name(), e.label.toHtmlEscaped());
    return parts.join(QStringLiteral(" &nbsp; "));
}

QDockWidget* addDock(QMainWindow* window, QWidget* content, const QString& title,
                     const QString& objectName, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(objectName);
    dock->setWidget(content);
    window->addDockWidget(area, dock);
    return dock;
}

// Shows `wide` in place of `narrow` while the panel has room for its whole width.
class ShownWhenItFits : public QObject {
public:
    ShownWhenItFits(QWidget* wide, QWidget* narrow, QWidget* panel)
        : QObject(panel)
        , m_wide(wide)
        , m_narrow(narrow)
    {
        panel->installEventFilter(this);
    }

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Resize) {
            auto* panel = static_cast<QWidget*>(watched);
            // The rest of the row needs about half of a narrow panel.
            const bool fits = m_wide->sizeHint().width() < panel->width() - 560;
            m_wide->setVisible(fits);
            m_narrow->setVisible(!fits);
        }
        return false;
    }

private:
    QWidget* m_wide;
    QWidget* m_narrow;
};

// Owns nothing but the wiring between the document and the step views.
class StepViews : public QObject {
public:
    StepViews(QMainWindow* window, Document* document);

private:
    QWidget* createTimelinePanel();
    void createDocks();
    void createMenu();
    void modelChanged();
    void viewChanged();
    void refreshShownCharts();
    void updateCompare();
    void setTime(double timeS);

    QMainWindow* m_window;
    Document* m_document;
    TimelineView* m_timeline = nullptr;
    QCheckBox* m_critical = nullptr;
    PlaybackBar* m_bar = nullptr;
    BreakdownChart* m_breakdown = nullptr;
    ScalingChart* m_scaling = nullptr;
    ComparePanel* m_compare = nullptr;
    bool m_scalingStale = true;
    bool m_compareStale = true;
    LatestWork m_scalingWork; // an evaluation per size: off the GUI thread
    LatestWork m_rangeWork;   // the measured runs behind the range, evaluated once
    std::vector<QDockWidget*> m_docks;
};

StepViews::StepViews(QMainWindow* window, Document* document)
    : QObject(window)
    , m_window(window)
    , m_document(document)
{
    // The breakdown's range rests on the measured runs that ship, each evaluated once for the
    // process (a tenth of a second or two): begun now on a worker, while the window is made
    // and the first file read, so that the first frame does not wait for all of it.
    m_rangeWork.start(this, [](const std::atomic<bool>&) {
        cs::shippedReferenceRuns(cs::defaultCalibration());
        return std::function<void()>([] {});
    });
    m_bar = new PlaybackBar(window);
    window->addToolBar(Qt::TopToolBarArea, m_bar);
    createDocks();
    createMenu();

    connect(m_bar, &PlaybackBar::stateEdited, this, [this](double t, double speed, bool playing) {
        cs::ViewState view = m_document->view();
        // Playing is watching what the GPUs do: the topology shows it.
        if (playing && !view.playing)
            view.colorBy = {cs::ColorKind::Activity};
        view.timeS = t;
        view.speed = speed;
        view.playing = playing;
        m_document->setView(view);
    });
    connect(m_timeline, &TimelineView::timeClicked, this, &StepViews::setTime);
    connect(document, &Document::modelChanged, this, &StepViews::modelChanged);
    connect(document, &Document::viewChanged, this, &StepViews::viewChanged);
    if (document->hasModel()) {
        modelChanged();
        viewChanged();
    }
}

QWidget* StepViews::createTimelinePanel()
{
    auto* panel = new QWidget;
    m_timeline = new TimelineView(panel);
    m_timeline->setObjectName(QStringLiteral("timelineView"));
    m_critical = new QCheckBox(QObject::tr("Critical path"), panel);
    m_critical->setToolTip(
        QObject::tr("Dim what is off the critical path and outline what is on it"));
    connect(m_critical, &QCheckBox::toggled, m_timeline, &TimelineView::setCriticalPathShown);
    auto* whole = new QPushButton(QObject::tr("Whole step"), panel);
    whole->setToolTip(
        QObject::tr("Zoom out to the whole step.\nWheel zooms; Shift+wheel, a drag on "
                    "the time ruler or the middle button pans;\na drag over the rows "
                    "measures a range; a click selects an event and shows\nwhat it "
                    "depends on; Escape clears."));
    connect(whole, &QPushButton::clicked, m_timeline, &TimelineView::showWholeStep);
    auto* find = new QLineEdit(panel);
    find->setObjectName(QStringLiteral("timelineFind"));
    find->setClearButtonEnabled(true);
    find->setPlaceholderText(QObject::tr("Find events: backward stage 3, dp exposed, bubble"));
    find->setToolTip(QObject::tr(
        "Events that do not match are dimmed. Words: forward, backward, recompute, optimizer, "
        "bubble, comm;\ntp, cp, pp (or send), dp, ep; stage N, mb N, chunk N; exposed, hidden, "
        "critical;\nmeasured, compute, idle (a measured profile's lanes).\nWords of one sort "
        "widen the search, different sorts narrow it."));
    find->setMinimumWidth(find->fontMetrics().horizontalAdvance(find->placeholderText()) / 2);
    auto* found = new QLabel(panel);
    connect(find, &QLineEdit::textChanged, this, [this, find, found](const QString& text) {
        QString problem;
        const bool understood = m_timeline->setFilter(text, &problem);
        QPalette ink; // the application's, but for red text where a word is not understood
        if (!understood)
            ink.setColor(QPalette::Text, QColor(0xd0, 0x24, 0x3f));
        find->setPalette(ink);
        found->setText(!understood ? QObject::tr("not understood")
                       : text.isEmpty()
                           ? QString()
                           : QObject::tr("%n event(s)", "", m_timeline->filterMatches()));
        found->setToolTip(problem);
    });
    connect(m_timeline, &TimelineView::hovered, this, [this](const QString& what) {
        if (!what.isEmpty())
            m_window->statusBar()->showMessage(what, 4000);
    });
    const QString legendText = legendHtml(activityLegend()) + QStringLiteral(" &nbsp; &nbsp; ") +
                               legendHtml(dimensionLegend(true));
    auto* legend = new QLabel(legendText, panel);
    legend->setTextFormat(Qt::RichText);
    legend->setMinimumWidth(1); // never widens the window: hidden where it does not fit
    legend->hide();
    // In one line where it fits; always behind the Colours button, so that a narrow panel
    // keeps its height for the stages.
    auto* colours = new QToolButton(panel);
    colours->setText(QObject::tr("Colours"));
    colours->setPopupMode(QToolButton::InstantPopup);
    auto* popup = new QMenu(colours);
    auto* popupLegend =
        new QLabel(QString(legendText).replace(QStringLiteral(" &nbsp; "), QStringLiteral("<br>")));
    popupLegend->setMargin(8);
    auto* popupAction = new QWidgetAction(popup);
    popupAction->setDefaultWidget(popupLegend);
    popup->addAction(popupAction);
    colours->setMenu(popup);
    new ShownWhenItFits(legend, colours, panel);

    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(6, 2, 6, 0);
    controls->addWidget(m_critical);
    controls->addWidget(whole);
    controls->addWidget(find, 1);
    controls->addWidget(found);
    controls->addSpacing(12);
    controls->addWidget(legend);
    controls->addWidget(colours);
    controls->addStretch();
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(controls);
    layout->addWidget(m_timeline, 1);
    return panel;
}

void StepViews::createDocks()
{
    m_docks.push_back(addDock(m_window, createTimelinePanel(), QObject::tr("Step Timeline"),
                              QStringLiteral("timelineDock"), Qt::BottomDockWidgetArea));
    m_breakdown = new BreakdownChart;
    m_scaling = new ScalingChart;
    m_compare = new ComparePanel;
    // Scrolled in a short window: the charts keep their readable height, the window its room.
    QDockWidget* breakdown =
        addDock(m_window, scrolledVertically(m_breakdown, m_window), QObject::tr("Step Breakdown"),
                QStringLiteral("breakdownDock"), Qt::RightDockWidgetArea);
    QDockWidget* scaling =
        addDock(m_window, scrolledVertically(m_scaling, m_window), QObject::tr("Weak Scaling"),
                QStringLiteral("scalingDock"), Qt::RightDockWidgetArea);
    QDockWidget* compare = addDock(m_window, m_compare, QObject::tr("Compare"),
                                   QStringLiteral("compareDock"), Qt::RightDockWidgetArea);
    // One chart at a time: the charts share the side, the topology keeps the middle.
    m_window->tabifyDockWidget(breakdown, scaling);
    m_window->tabifyDockWidget(scaling, compare);
    breakdown->raise();
    m_docks.insert(m_docks.end(), {breakdown, scaling, compare});
    for (QDockWidget* dock : {scaling, compare})
        QObject::connect(dock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
            if (shown)
                refreshShownCharts();
        });
}

void StepViews::createMenu()
{
    auto* menu = new QMenu(QObject::tr("&Playback"), m_window);
    // Before Help, which stays last.
    QAction* before = nullptr;
    for (QAction* a : m_window->menuBar()->actions())
        if (a->menu() && a->text().remove(QLatin1Char('&')) == QObject::tr("Help"))
            before = a;
    m_window->menuBar()->insertMenu(before, menu);

    m_bar->playAction()->setShortcut(Qt::Key_Space);
    m_bar->stepBackAction()->setShortcuts(
        {Qt::Key_BracketLeft, QKeySequence(Qt::CTRL | Qt::Key_Left)});
    m_bar->stepForwardAction()->setShortcuts(
        {Qt::Key_BracketRight, QKeySequence(Qt::CTRL | Qt::Key_Right)});
    m_bar->toStartAction()->setShortcut(Qt::Key_Home);
    m_bar->loopAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_bar->slowerAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Down));
    m_bar->fasterAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Up));
    menu->addActions({m_bar->playAction(), m_bar->stepBackAction(), m_bar->stepForwardAction(),
                      m_bar->toStartAction(), m_bar->loopAction()});
    menu->addSeparator();
    menu->addActions({m_bar->slowerAction(), m_bar->fasterAction()});
    // The window knows every playback shortcut itself: they work while presenting, with the
    // menus and the bar hidden.
    m_window->addActions({m_bar->playAction(), m_bar->stepBackAction(), m_bar->stepForwardAction(),
                          m_bar->toStartAction(), m_bar->loopAction(), m_bar->slowerAction(),
                          m_bar->fasterAction()});
    menu->addSeparator();
    QAction* critical = menu->addAction(QObject::tr("Highlight &Critical Path"));
    critical->setCheckable(true);
    critical->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    connect(critical, &QAction::toggled, m_critical, &QCheckBox::setChecked);
    connect(m_critical, &QCheckBox::toggled, critical, &QAction::setChecked);
    menu->addSeparator();
    for (QDockWidget* dock : m_docks)
        menu->addAction(dock->toggleViewAction());
}

void StepViews::modelChanged()
{
    const cs::Evaluation& eval = m_document->evaluation();
    const cs::RunDesc& run = m_document->run();
    m_timeline->setSchedule(eval.events, run.parallelism.pp, eval.stepTimeS);
    m_bar->setSchedule(eval.events, eval.stepTimeS);
    std::optional<double> measured;
    if (run.measured)
        measured = run.measured->stepTimeS;
    m_breakdown->setEvaluation(eval, measured, m_document->range());
    m_scalingStale = m_compareStale = true;
    refreshShownCharts();
}

// Weak scaling and the comparison share tabs with the breakdown: one that cannot be seen is
// rebuilt when its tab is shown, so that an edit pays only for what is on screen.
void StepViews::refreshShownCharts()
{
    if (m_scalingStale && onScreen(m_scaling)) {
        m_scalingStale = false;
        m_scalingWork.start(this, [cluster = m_document->cluster(), run = m_document->run(),
                                   chart = m_scaling](const std::atomic<bool>& cancelled) {
            std::vector<cs::ScalingPoint> points = cs::weakScaling(cluster, run, &cancelled);
            return std::function<void()>(
                [chart, points = std::move(points)] { chart->setPoints(points); });
        });
    }
    if (m_compareStale && onScreen(m_compare)) {
        updateCompare();
        m_compareStale = false;
    }
}

void StepViews::updateCompare()
{
    const cs::Session& session = m_document->session();
    if (!session.compare) {
        m_compare->clear(QObject::tr("The session has no run to compare with."));
        return;
    }
    const cs::ClusterRun& other = *session.compare;
    cs::Diagnostics problems;
    cs::checkRunOnCluster(other.run, other.cluster, "compare", "/compare/run", problems);
    if (!problems.empty()) {
        m_compare->clear(QObject::tr("The compare run does not fit its cluster:\n%1")
                             .arg(QString::fromStdString(problems.formatAll())));
        return;
    }
    m_compare->setComparison(cs::compareRuns({session.cluster, session.run},
                                             m_document->evaluation(), other,
                                             cs::evaluate(other.cluster, other.run)));
}

void StepViews::viewChanged()
{
    const cs::ViewState& view = m_document->view();
    m_timeline->setTime(view.timeS, view.playing);
    m_bar->setState(view.timeS, view.speed, view.playing);
}

void StepViews::setTime(double timeS)
{
    cs::ViewState view = m_document->view();
    view.timeS = timeS;
    m_document->setView(view);
}

} // namespace

void addStepViews(QMainWindow* window, Document* document)
{
    new StepViews(window, document);
}
