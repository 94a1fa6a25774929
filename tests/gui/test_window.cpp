// The main window as a whole: themes, the default layout, help pages, the status bar.

#include <catch2/catch.hpp>

#include <memory>

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QDockWidget>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMouseEvent>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBar>
#include <QUndoStack>

#include "breakdownchart.h"
#include "costmodel.h"
#include "dialogsize.h"
#include "document.h"
#include "guitestutil.h"
#include "helppages.h"
#include "mainwindow.h"
#include "measuredrunsdialog.h"
#include "playbackbar.h"
#include "searchdialog.h"
#include "text.h"
#include "theme.h"
#include "timelineview.h"
#include "topologyrenderer.h"
#include "topologyscene.h"
#include "topologyview.h"
#include "windowlayout.h"

namespace {

struct FairwaterWindow {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    FairwaterWindow()
    {
        window.setQuiet(true);
        REQUIRE(window.openFile(sampleFile("fairwater-gb200-128.csession")));
    }
    ~FairwaterWindow() { applyTheme(false); }
};

double lightness(const QImage& image, QPoint at)
{
    return QColor(image.pixel(at)).lightnessF();
}

// What the timeline paints in its plot area, below the ruler and right of the labels.
double timelinePlotLightness(TimelineView* timeline)
{
    const QImage image = timeline->grab().toImage();
    return lightness(image, QPoint(image.width() - 3, image.height() - 3));
}

double playIconLightness(PlaybackBar* bar)
{
    const QImage icon = bar->playAction()->icon().pixmap(64, 64).toImage();
    return lightness(icon, QPoint(30, 32)); // inside the triangle
}

} // namespace

TEST_CASE("the dark theme reaches every painted view, and the light one comes back", "[theme]")
{
    FairwaterWindow f;
    f.window.resize(1400, 900);
    f.window.show();
    QApplication::processEvents();
    auto* timeline = f.window.findChild<TimelineView*>();
    auto* bar = f.window.findChild<PlaybackBar*>();
    auto* breakdown = f.window.findChild<BreakdownChart*>();
    REQUIRE(timeline);
    REQUIRE(bar);
    REQUIRE(breakdown);
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    const QPalette light = fusion->standardPalette();

    f.window.setDarkTheme(true);
    QApplication::processEvents();
    CHECK(isDark(qApp->palette()));
    CHECK(timelinePlotLightness(timeline) < 0.3);
    CHECK(breakdown->stepChart()->backgroundBrush().color().lightnessF() < 0.3);
    breakdown->grab(); // painting styles the chart's axes
    for (QAbstractAxis* axis : breakdown->stepChart()->axes())
        CHECK(axis->labelsBrush().color().lightnessF() > 0.6);
    CHECK(playIconLightness(bar) > 0.6); // light glyphs on dark buttons
    TopologyRenderer& hall = f.window.topologyView()->scene()->renderer();
    CHECK(hall.ink().background.lightnessF() < 0.3);
    CHECK(f.window.topologyView()->grab().toImage().pixelColor(2, 2).lightnessF() < 0.3);

    f.window.setDarkTheme(false);
    QApplication::processEvents();
    CHECK_FALSE(isDark(qApp->palette()));
    for (QPalette::ColorRole role : {QPalette::Window, QPalette::Base, QPalette::Text,
                                     QPalette::Button, QPalette::ButtonText, QPalette::Highlight})
        CHECK(qApp->palette().color(role) == light.color(role));
    CHECK(timelinePlotLightness(timeline) > 0.8);
    CHECK(breakdown->stepChart()->backgroundBrush().color().lightnessF() > 0.8);
    breakdown->grab();
    for (QAbstractAxis* axis : breakdown->stepChart()->axes())
        CHECK(axis->labelsBrush().color().lightnessF() < 0.4);
    CHECK(playIconLightness(bar) < 0.4);
    CHECK(hall.ink().background.lightnessF() > 0.8);
    CHECK(f.window.topologyView()->grab().toImage().pixelColor(2, 2).lightnessF() > 0.8);
}

TEST_CASE("the first window fits the screen it opens on", "[layout]")
{
    for (const QSize screen : {QSize(1280, 720), QSize(1920, 1080), QSize(3840, 2160)}) {
        INFO(screen.width() << "x" << screen.height());
        const QSize size = defaultWindowSize(screen);
        CHECK(size.width() <= screen.width());
        CHECK(size.height() <= screen.height());
        CHECK(size.width() >= screen.width() * 0.8);
    }
}

TEST_CASE("the first window takes the size meant for the screen, not what placing docks asked",
          "[layout]")
{
    // No saved geometry: the window places itself. Other tests save theirs in the shared
    // test settings, so this one reads an empty folder of its own.
    QTemporaryDir settings;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    struct RestorePath {
        ~RestorePath()
        {
            QSettings::setPath(
                QSettings::NativeFormat, QSettings::UserScope,
                QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation));
        }
    } restore;
    MainWindow window{settings.path()};
    const QScreen* screen = QGuiApplication::primaryScreen();
    REQUIRE(screen);
    const QSize meant = defaultWindowSize(screen->availableGeometry().size());
    INFO(window.width() << "x" << window.height() << ", meant " << meant.width() << "x"
                        << meant.height());
    CHECK(window.width() == std::max(meant.width(), window.minimumSizeHint().width()));
    CHECK(window.height() == std::max(meant.height(), window.minimumSizeHint().height()));
    // Shown, it is maximised (un-maximised, it takes that size).
    window.show();
    CHECK(window.windowState().testFlag(Qt::WindowMaximized));
}

TEST_CASE("Reset Layout brings every dock back, docked and shown", "[layout]")
{
    for (const QSize size : {QSize(1228, 676), QSize(1650, 950)}) {
        FairwaterWindow f;
        f.window.resize(size);
        f.window.show();
        QApplication::processEvents();
        auto* timeline = f.window.findChild<QDockWidget*>(QStringLiteral("timelineDock"));
        auto* properties = f.window.findChild<QDockWidget*>(QStringLiteral("properties"));
        REQUIRE(timeline);
        REQUIRE(properties);
        timeline->setFloating(true);
        properties->hide();
        f.window.addDockWidget(Qt::RightDockWidgetArea, properties);
        auto* reset = f.window.findChild<QAction*>(QStringLiteral("resetLayout"));
        REQUIRE(reset);
        reset->trigger();
        QApplication::processEvents();
        CHECK_FALSE(timeline->isFloating());
        CHECK(f.window.dockWidgetArea(timeline) == Qt::BottomDockWidgetArea);
        CHECK(properties->isVisible());
        CHECK(f.window.dockWidgetArea(properties) == Qt::LeftDockWidgetArea);
        // The arrangement fits the window it was made for.
        CHECK(f.window.minimumSizeHint().width() <= size.width());
        CHECK(f.window.minimumSizeHint().height() <= size.height());
        for (QDockWidget* dock : f.window.findChildren<QDockWidget*>())
            CHECK_FALSE(dock->isFloating());
    }
}

TEST_CASE("a window laid out on a tall screen can be made as short as a 720p screen's", "[layout]")
{
    // Moved from a 1080p screen to a 720p one (1228x676 available) without a Reset Layout: the
    // docks keep the tall arrangement, the legend above the charts.
    FairwaterWindow f;
    f.window.resize(1650, 950);
    f.window.show();
    QApplication::processEvents();
    auto* legend = f.window.findChild<QDockWidget*>(QStringLiteral("legend"));
    REQUIRE(legend);
    REQUIRE(f.window.dockWidgetArea(legend) == Qt::RightDockWidgetArea);
    CHECK(f.window.minimumSizeHint().height() <= 676);
    f.window.resize(1228, 676);
    QApplication::processEvents();
    CHECK(f.window.height() == 676);
    // The charts scroll in their dock rather than shrink below the height their axes need.
    auto* breakdown = f.window.findChild<BreakdownChart*>();
    REQUIRE(breakdown);
    CHECK(breakdown->height() >= breakdown->minimumSizeHint().height());
}

TEST_CASE("the shortcuts sheet lists every shortcut of the window", "[help]")
{
    FairwaterWindow f;
    const QString sheet = shortcutsHtml(&f.window);
    int listed = 0;
    for (const QAction* a : f.window.findChildren<QAction*>()) {
        if (a->shortcuts().isEmpty() || a->text().isEmpty())
            continue;
        INFO(a->text().toStdString());
        CHECK(sheet.contains(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped()));
        ++listed;
    }
    CHECK(listed > 15);
    auto* help = f.window.findChild<QAction*>(QStringLiteral("shortcutsHelp"));
    REQUIRE(help);
    CHECK(help->shortcut() == QKeySequence(QKeySequence::HelpContents));
    CHECK(firstStepsHtml().contains("Compare"));
    // Every use the tool serves has its step: what-ifs, experts, measurements.
    CHECK(firstStepsHtml().contains("out of service"));
    CHECK(firstStepsHtml().contains("expert-parallel"));
    CHECK(firstStepsHtml().contains("measured-runs file"));
}

TEST_CASE("the status bar says the step and what the pointer is over", "[window]")
{
    FairwaterWindow f;
    auto* figure = f.window.findChild<QLabel*>(QStringLiteral("stepFigure"));
    REQUIRE(figure);
    // The cost model's own figure for the session, beside the measured one the session keeps.
    const Document& doc = *f.window.document();
    const double predicted = cs::evaluate(doc.cluster(), doc.run()).stepTimeS;
    // With the range the measured step should lie in, from the same evaluation.
    CHECK(figure->text().startsWith(QStringLiteral("Step %1 predicted (%2), measured 1.271 s")
                                        .arg(QString::fromStdString(cs::stepTimeText(predicted)),
                                             QString::fromStdString(cs::rangeText(doc.range())))));
    CHECK(figure->text().contains(QStringLiteral("from 12 measured runs like this one")));
    // The memory of a GPU against its HBM, what fills it in the tooltip.
    const cs::Evaluation e = cs::evaluate(doc.cluster(), doc.run());
    CHECK(figure->text().contains(QStringLiteral("%1 of %2 GiB a GPU")
                                      .arg(e.memoryGiBPerGpu, 0, 'f', 1)
                                      .arg(doc.cluster().gpu.hbmGiB)));
    CHECK(figure->toolTip().contains(
        QStringLiteral("activations %1").arg(e.memory.activations, 0, 'f', 1)));
    // A layout that does not fit says so.
    cs::RunDesc heavy = doc.run();
    heavy.parallelism.distributedOptimizer = false;
    heavy.batch.micro = 8;
    f.window.document()->setClusterRun(doc.cluster(), heavy);
    QApplication::processEvents();
    const cs::Evaluation tooBig = cs::evaluate(doc.cluster(), heavy);
    REQUIRE_FALSE(tooBig.fitsMemory);
    CHECK(figure->text().contains(QStringLiteral("%1 GiB a GPU: does not fit the %2")
                                      .arg(tooBig.memoryGiBPerGpu, 0, 'f', 1)
                                      .arg(doc.cluster().gpu.hbmGiB)));

    f.window.resize(1600, 900);
    f.window.show();
    QApplication::processEvents();
    TopologyView* view = f.window.topologyView();
    const QPointF gpu =
        view->currentTransform().toScreen(view->scene()->layout().gpuRect(4097).center());
    QMouseEvent move(QEvent::MouseMove, gpu, view->mapToGlobal(gpu), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(view, &move);
    CHECK(f.window.statusBar()->currentMessage().startsWith("GPU 4097 (GB200): rack 64"));
    // Its tooltip says its groups: which stay on NVLink and which cross the fabric.
    const QString tip = view->scene()->describe(view->hitAt(gpu));
    CHECK(tip.contains("TP group"));
    CHECK(tip.contains("DP group 1 of 128 ranks: crosses the fabric (128 domains)"));
}

TEST_CASE("a run opens under its file name", "[window]")
{
    FairwaterWindow f;
    REQUIRE(f.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    CHECK(f.window.windowTitle().startsWith("ndv5-h200-64-gpt3-175b.run.json"));
    CHECK(f.window.document()->filePath().isEmpty()); // saving asks where
}

TEST_CASE("a layout applied from the search is one undo step with the table's step time",
          "[window][search]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    auto* search = window.findChild<QAction*>(QStringLiteral("searchParallelism"));
    REQUIRE(search);
    search->trigger();
    auto* dialog = window.findChild<SearchDialog*>();
    REQUIRE(dialog);
    QEventLoop loop;
    QObject::connect(dialog, &SearchDialog::searchFinished, &loop, &QEventLoop::quit);
    if (dialog->isSearching())
        loop.exec();
    REQUIRE(dialog->resultsModel()->rowCount() > 2);
    const cs::SearchResult chosen = dialog->resultsModel()->resultAt(2);
    const int undoSteps = window.document()->undoStack()->count();
    dialog->table()->selectRow(2);
    emit dialog->table()->doubleClicked(dialog->resultsModel()->index(2, 0));
    CHECK(window.document()->undoStack()->count() == undoSteps + 1);
    CHECK(window.document()->evaluation().stepTimeS == chosen.stepTimeS);
    CHECK(window.document()->run().parallelism.pp == chosen.layout.parallelism.pp);
}

TEST_CASE("started on measured runs alone, the window opens the default sample behind them",
          "[startup]")
{
    const QString sample = QStringLiteral(CS_DEFAULT_SAMPLE);
    const QString runs = QStringLiteral("moe-public.jsonl");
    const QString session = QStringLiteral("mine.csession");
    CHECK(MainWindow::startupFiles({}) == QStringList{sample});
    CHECK(MainWindow::startupFiles({runs}) == (QStringList{sample, runs}));
    CHECK(MainWindow::startupFiles({runs, runs}) == (QStringList{sample, runs, runs}));
    // A document of the user's own, or a folder of logs measured against it, opens as given.
    CHECK(MainWindow::startupFiles({session, runs}) == (QStringList{session, runs}));
    CHECK(MainWindow::startupFiles({QStringLiteral("logs")}) == QStringList{"logs"});

    QTemporaryDir recovery;
    MainWindow window(recovery.path());
    window.setQuiet(true);
    window.openStartupFiles(
        {QStringLiteral(CS_SAMPLES_DIR "/../../shared/reference/validation/public.jsonl")});
    CHECK(window.document()->cluster().gpuCount() > 0);
    REQUIRE(window.measuredRunsDialog());
    CHECK(window.measuredRunsDialog()->rowCount() == 56);
}

TEST_CASE("started on files that do not open, the window says why and opens the default sample",
          "[startup]")
{
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("missing.run.json"));
    const QString broken = dir.filePath(QStringLiteral("broken.cluster.json"));
    QFile file(broken);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write("{\"format\": ");
    file.close();

    MainWindow window(dir.path());
    window.setQuiet(true);
    window.openStartupFiles({missing, broken});
    CHECK(window.lastProblem().contains(QStringLiteral("broken.cluster.json")));
    CHECK(window.document()->cluster().gpuCount() > 0);
    CHECK(window.document()->filePath().endsWith(QFileInfo(CS_DEFAULT_SAMPLE).fileName()));

    // One that opens is the document; nothing is opened after it.
    MainWindow second(dir.path());
    second.setQuiet(true);
    const QString run = QStringLiteral(CS_SAMPLES_DIR "/ndv5-h100-128-gpt3-175b.run.json");
    REQUIRE(QFileInfo::exists(run));
    second.openStartupFiles({missing, run});
    CHECK(second.document()->sourcePath() == run);
}

TEST_CASE("a dialog opens at the size it wants, within the screen", "[layout]")
{
    struct Case {
        QSize wanted, available, expected;
    };
    const Case cases[] = {
        {{1100, 760}, {1920, 1040}, {1100, 760}}, // room to spare
        {{1100, 760}, {1280, 720}, {1100, 648}},  // a laptop: the buttons stay on the screen
        {{1180, 560}, {1024, 768}, {972, 560}},
        {{520, 300}, {}, {520, 300}}, // no screen known: as wanted
    };
    for (const Case& c : cases) {
        INFO(c.wanted.width() << "x" << c.wanted.height() << " on " << c.available.width() << "x"
                              << c.available.height());
        CHECK(dialogSizeWithin(c.wanted, c.available) == c.expected);
    }
}
