#include <catch2/catch.hpp>

#include <cmath>

#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QDockWidget>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QMainWindow>
#include <QTableWidget>

#include "activitycolors.h"
#include "activityoverlay.h"
#include "barlegend.h"
#include "breakdownchart.h"
#include "comparepanel.h"
#include "document.h"
#include "documentio.h"
#include "guitestutil.h"
#include "playbackbar.h"
#include "scaling.h"
#include "scalingchart.h"
#include "stepviews.h"
#include "text.h"
#include "timelinemapping.h"
#include "timelineview.h"

namespace {

void loadInto(Document& doc, const char* sample)
{
    QString problems;
    auto session = loadSessionFromFile(sampleFile(sample), &problems);
    INFO(problems.toStdString());
    REQUIRE(session);
    doc.setSession(std::move(*session), sampleFile(sample));
}

QHorizontalStackedBarSeries* barsOf(QChart* chart)
{
    REQUIRE(chart->series().size() == 1);
    auto* series = qobject_cast<QHorizontalStackedBarSeries*>(chart->series().front());
    REQUIRE(series);
    return series;
}

cs::Event event(cs::EventKind kind, int stage, double start, double end)
{
    cs::Event e;
    e.kind = kind;
    e.stage = stage;
    e.start = start;
    e.end = end;
    return e;
}

cs::Event comm(cs::Dim dim, int stage, double start, double end)
{
    cs::Event e = event(cs::EventKind::Comm, stage, start, end);
    e.dim = dim;
    return e;
}

} // namespace

TEST_CASE("the timeline maps time to x and back under zoom and pan")
{
    const TimelineMapping whole = TimelineMapping::fit(2.0, 100, 1000);
    struct Case {
        const char* name;
        TimelineMapping mapping;
        double t;
        double x;
    };
    const TimelineMapping zoomed = whole.zoomedAt(350, 4); // t = 0.5 stays at x = 350
    const Case cases[] = {
        {"start", whole, 0.0, 100},
        {"middle", whole, 1.0, 600},
        {"end", whole, 2.0, 1100},
        {"zoom anchor", zoomed, 0.5, 350},
        {"zoomed end", zoomed, 0.5 + 0.5 * 750 / 1000, 1100},
        {"panned", whole.zoomedAt(100, 2).pannedBy(-100), 0.6, 600},
        {"no pan when the whole step shows", whole.pannedBy(-100), 1.0, 600},
        {"pan past the start clamps", whole.zoomedAt(100, 2).pannedBy(5000), 0.0, 100},
        {"pan past the end clamps", whole.zoomedAt(100, 2).pannedBy(-5000), 2.0, 1100},
        {"zoom out past the step fits it", zoomed.zoomedAt(700, 0.01), 1.0, 600},
        {"resized keeps the range", zoomed.resized(0, 500), 0.5 + 0.5 * 750 / 1000, 500},
        {"follow scrolls", zoomed.following(1.9), 1.9, 1100},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        CHECK(c.mapping.xOf(c.t) == Approx(c.x));
        CHECK(c.mapping.timeOf(c.x) == Approx(c.t).margin(1e-12));
        CHECK(c.mapping.startS >= 0);
        CHECK(c.mapping.endS() <= 2.0 + 1e-12);
    }
    CHECK(zoomed.spanS == Approx(0.5));
}

TEST_CASE("a point on the timeline hits the event drawn there")
{
    const std::vector<cs::Event> events{
        event(cs::EventKind::Forward, 0, 0.0, 1.0),
        comm(cs::Dim::PP, 0, 1.0, 1.1),
        comm(cs::Dim::TP, 1, 0.5, 0.7),
        event(cs::EventKind::Backward, 1, 1.0, 2.0),
        comm(cs::Dim::DP, 1, 1.5, 2.0),
        event(cs::EventKind::Optimizer, -1, 2.0, 2.1),
    };
    const TimelineLanes lanes(events, 2);
    REQUIRE(lanes.rows() == 3);
    struct Case {
        int row;
        double fraction;
        double t;
        int event;
    };
    const Case cases[] = {
        {0, 0.5, 0.5, 0},                            // main lane
        {0, 0.05, 1.05, 1},                          // send lane on top
        {0, 0.05, 0.5, -1},                          // nothing sent then
        {1, 0.9, 0.6, 2},                            // communication lane below
        {1, 0.5, 1.7, 3},   {1, 0.9, 1.7, 4},        // DP in its stage's row
        {2, 0.75, 1.7, 4},                           // and in the fabric row, in stage 1's sub-lane
        {2, 0.25, 1.7, -1}, {0, 0.5, 2.05, 5},       // cluster-wide events in every stage row
        {1, 0.5, 2.05, 5},  {0, 0.5, 1.0 + 1e-9, 0}, // within tolerance of the forward's end
    };
    for (const Case& c : cases) {
        INFO("row " << c.row << " fraction " << c.fraction << " t " << c.t);
        CHECK(lanes.eventAt(c.row, c.fraction, c.t, 1e-6) == c.event);
    }
}

TEST_CASE("the GPUs of the topology show what their stage's schedule says")
{
    Document doc;
    loadInto(doc, "fairwater-gb200-128.csession");
    const cs::Evaluation& eval = doc.evaluation();
    const cs::Placement& placement = doc.placement();
    ActivityOverlay overlay(eval, placement, doc.topology());
    // A GPU of each stage, in the first and the last data-parallel replica.
    std::vector<int> gpus;
    for (int stage = 0; stage < placement.size(cs::Dim::PP); ++stage)
        for (int replica : {0, placement.size(cs::Dim::DP) - 1}) {
            cs::RankCoord c;
            c.c[cs::Dim::PP] = stage;
            c.c[cs::Dim::DP] = replica;
            c.c[cs::Dim::TP] = 1;
            gpus.push_back(placement.gpuOfRank(placement.rankOf(c)));
        }
    int checked = 0;
    for (size_t i = 0; i < eval.events.size(); i += 11) {
        const cs::Event& e = eval.events[i];
        if (e.kind != cs::EventKind::Forward && e.kind != cs::EventKind::Backward)
            continue;
        const double mid = 0.5 * (e.start + e.end);
        const cs::Activity expected =
            e.kind == cs::EventKind::Forward ? cs::Activity::Forward : cs::Activity::Backward;
        const GpuColors& colors = overlay.colorsAt(mid);
        for (int gpu : gpus) {
            if (overlay.stageOfGpu(gpu) != e.stage)
                continue;
            INFO("GPU " << gpu << " at " << mid);
            CHECK(overlay.activityOfGpu(gpu, mid) == expected);
            CHECK(colors.colorOf(gpu) == activityColor(expected).rgb());
            ++checked;
        }
    }
    CHECK(checked > 20);
}

TEST_CASE("watching Fairwater, DP traffic crosses racks in the backward pass and ends exposed")
{
    Document doc;
    loadInto(doc, "fairwater-gb200-128.csession");
    const cs::Evaluation& eval = doc.evaluation();
    ActivityOverlay overlay(eval, doc.placement(), doc.topology());
    const double step = eval.stepTimeS;
    bool dpDuringBackward = false, exposedTail = false;
    for (double t = 0.5 * step; t < step; t += step / 2000) {
        const cs::LinkUse use = overlay.linkUseAt(t);
        const bool dp = use[cs::Dim::DP] > 0 && use.crossesFabric(cs::Dim::DP);
        const GpuColors& colors = overlay.colorsAt(t);
        int backward = 0, waiting = 0;
        for (uint16_t a : colors.index) {
            backward += a == uint16_t(cs::Activity::Backward);
            waiting += a == uint16_t(cs::Activity::Communication);
        }
        dpDuringBackward = dpDuringBackward || (dp && backward > 0);
        exposedTail = exposedTail || (dp && t > 0.9 * step && waiting > 0);
    }
    CHECK(dpDuringBackward);
    CHECK(exposedTail);
}

TEST_CASE("the breakdown chart shows the breakdown, and the measurement beside it")
{
    Document doc;
    loadInto(doc, "fairwater-gb200-128.csession");
    const cs::Evaluation& eval = doc.evaluation();
    REQUIRE(doc.run().measured);
    const double measured = doc.run().measured->stepTimeS;
    BreakdownChart chart;
    chart.setEvaluation(eval, measured);

    auto* series = barsOf(chart.stepChart());
    double predicted = 0;
    int entries = 0;
    for (const cs::Breakdown::Part& part : eval.breakdown.parts()) {
        if (part.seconds <= 0)
            continue;
        const QBarSet* set = series->barSets()[entries++];
        INFO(part.label);
        CHECK(set->label().startsWith(QString::fromStdString(part.label)));
        CHECK(set->at(0) == part.seconds);
        CHECK(set->at(1) == 0);
        predicted += set->at(0);
    }
    REQUIRE(series->count() == entries + 1);
    CHECK(series->barSets().back()->at(1) == measured);
    CHECK(predicted == Approx(eval.stepTimeS));
    const QString error =
        QString::fromStdString(cs::signedPercentText(eval.stepTimeS / measured - 1));
    CHECK(chart.stepChart()->title().contains(QStringLiteral("measured")));
    CHECK(chart.stepChart()->title().contains(error));
    // The measured bar is named by its axis, not the legend.
    CHECK(int(chart.stepLegend()->entries().size()) == entries);

    auto* comm = barsOf(chart.communicationChart());
    REQUIRE(comm->count() == 2);
    for (cs::Dim d : cs::kAllDims) { // within a step: milliseconds
        INFO(cs::toString(d));
        CHECK(comm->barSets()[0]->at(int(d)) == Approx(eval.commExposedS[d] * 1e3));
        CHECK(comm->barSets()[0]->at(int(d)) + comm->barSets()[1]->at(int(d)) ==
              Approx(eval.commTotalS[d] * 1e3));
    }

    chart.setEvaluation(eval, std::nullopt);
    CHECK(barsOf(chart.stepChart())->count() == entries);
    CHECK_FALSE(chart.stepChart()->title().contains(QStringLiteral("measured")));

    // The range from the same evaluation: in the title, its basis in the tooltip.
    const cs::Uncertainty& range = doc.range();
    REQUIRE(range.known());
    chart.setEvaluation(eval, measured, range);
    CHECK(chart.stepChart()->title().contains(QString::number(range.lowS, 'f', 3)));
    CHECK(chart.stepChart()->title().contains(QString::number(range.highS, 'f', 3)));
    CHECK(chart.toolTip().isEmpty()); // on the step chart's view, not the whole widget
    bool basisSaid = false;
    for (const QWidget* w : chart.findChildren<QWidget*>())
        basisSaid |= w->toolTip().contains(QStringLiteral("measured runs like this one"));
    CHECK(basisSaid);
}

TEST_CASE("the scaling chart plots every scaling point")
{
    Document doc;
    loadInto(doc, "fairwater-gb200-128.csession");
    const auto points = cs::weakScaling(doc.cluster(), doc.run());
    ScalingChart chart;
    chart.setPoints(points);
    const auto axes = chart.chart()->axes().size();
    chart.setPoints(points); // replaces the series and axes (the sanitizers check nothing leaks)
    CHECK(chart.chart()->axes().size() == axes);
    auto* stepTime = qobject_cast<QLineSeries*>(chart.chart()->series().front());
    REQUIRE(stepTime);
    REQUIRE(stepTime->count() == int(points.size()));
    for (int i = 0; i < stepTime->count(); ++i) {
        CHECK(stepTime->at(i).x() == double(points[size_t(i)].gpus));
        CHECK(stepTime->at(i).y() == points[size_t(i)].stepTimeS);
    }
}

TEST_CASE("the scaling chart's GPU axis labels at most six powers")
{
    struct Case {
        double from, to, base;
    };
    const Case cases[] = {
        {64, 1024, 2},  // 64 ... 1,024: five powers of 2
        {64, 16384, 4}, // Fairwater's 64 ... 16,384: nine of 2, five of 4
        {8, 131072, 8}, // 8 ... 131,072: fourteen of 2, seven of 4, five of 8
        {1, 1u << 30, 32},
    };
    for (const Case& c : cases) {
        INFO(c.from << " to " << c.to);
        CHECK(logAxisBase(c.from, c.to) == c.base);
        CHECK(std::log(c.to / c.from) / std::log(c.base) < 6.5);
    }
}

TEST_CASE("a run compared with itself differs in nothing")
{
    Document doc;
    loadInto(doc, "fairwater-gb200-128.csession");
    const cs::ClusterRun run{doc.cluster(), doc.run()};
    const cs::Comparison c = cs::compareRuns(run, doc.evaluation(), run, doc.evaluation());
    CHECK(c.differences.empty());
    for (const cs::BreakdownRow& row : c.breakdown) {
        INFO(row.key);
        CHECK(row.delta() == 0);
    }
    ComparePanel panel;
    panel.setComparison(c);
    CHECK_FALSE(panel.perToken()); // the same GPU count: seconds per step
    QTableWidget* inputs = panel.inputsTable();
    REQUIRE(inputs->rowCount() == 1);
    CHECK(inputs->item(0, 0)->text().startsWith("none"));
    QTableWidget* breakdown = panel.breakdownTable();
    REQUIRE(breakdown->rowCount() == int(c.breakdown.size()) + 1); // and the step
    for (int r = 0; r < breakdown->rowCount(); ++r)
        CHECK(breakdown->item(r, 3)->text().toDouble() == 0);
    auto* bars = barsOf(panel.chart());
    for (const QBarSet* set : bars->barSets())
        CHECK(set->at(0) == set->at(1));
}

TEST_CASE("a compare of different runs shows every differing input and the breakdown delta")
{
    Document doc;
    loadInto(doc, "fairwater-gb200-128.csession");
    cs::RunDesc slower = doc.run();
    slower.parallelism.vp = 1;
    const cs::ClusterRun a{doc.cluster(), doc.run()}, b{doc.cluster(), slower};
    const cs::Comparison c =
        cs::compareRuns(a, doc.evaluation(), b, cs::evaluate(b.cluster, b.run));
    ComparePanel panel;
    panel.resize(420, 800);
    panel.show();
    panel.setComparison(c);
    QTableWidget* inputs = panel.inputsTable();
    REQUIRE(inputs->rowCount() == 1);
    CHECK(inputs->item(0, 0)->text() == "VP (virtual stages)");
    CHECK(inputs->item(0, 0)->toolTip() == "/run/parallelism/vp");
    CHECK(inputs->item(0, 1)->text() == "8");
    CHECK(inputs->item(0, 2)->text() == "1");
    // The step row's B - A is the step-time difference, in milliseconds.
    QTableWidget* breakdown = panel.breakdownTable();
    const int step = breakdown->rowCount() - 1;
    CHECK(breakdown->item(step, 0)->text() == "step");
    const double deltaMs = (c.evalB.stepTimeS - c.evalA.stepTimeS) * 1e3;
    CHECK(breakdown->item(step, 3)->text() ==
          QString::fromStdString((deltaMs > 0 ? "+" : "") + cs::inStepTimeText(deltaMs / 1e3)));
    CHECK_FALSE(panel.findingsLabel()->text().isEmpty());
    // The notes of both runs are shown.
    CHECK(panel.notesLabel()->text().contains("MLPerf"));

    // Narrow, the parts stack; wide, the explanation sits beside the tables.
    CHECK_FALSE(panel.isWide());
    panel.resize(1200, 800);
    CHECK(panel.isWide());
    // Different GPU counts compare per token; the user's choice is kept.
    panel.setPerToken(true);
    CHECK(panel.chart()->axes(Qt::Horizontal).front()->titleText() == "GPU-ms per token");
}

TEST_CASE("the playback bar plays, pauses, steps by event and loops")
{
    const std::vector<cs::Event> events{event(cs::EventKind::Forward, 0, 0.0, 0.4),
                                        event(cs::EventKind::Backward, 0, 0.5, 1.0)};
    PlaybackBar bar;
    bar.setSchedule(events, 1.0);
    std::vector<double> edited;
    QObject::connect(&bar, &PlaybackBar::stateEdited,
                     [&](double t, double, bool) { edited.push_back(t); });
    bar.setState(0.0, 0.1, false);
    CHECK_FALSE(bar.timerActive());

    bar.togglePlaying();
    CHECK(bar.playing());
    CHECK(bar.timerActive());
    bar.advance(2.0); // two wall seconds at 0.1 simulated seconds per second
    CHECK(bar.time() == Approx(0.2));
    bar.advance(9.0); // past the end: wraps round while looping
    CHECK(bar.time() == Approx(0.1));
    bar.loopAction()->setChecked(false);
    bar.advance(10.0);
    CHECK(bar.time() == 1.0);
    CHECK_FALSE(bar.playing());
    CHECK_FALSE(bar.timerActive());

    bar.setState(0.2, 0.1, false);
    bar.stepForward();
    CHECK(bar.time() == 0.4);
    bar.stepForward();
    CHECK(bar.time() == 0.5);
    bar.stepBack();
    CHECK(bar.time() == 0.4);
    bar.toStart();
    CHECK(bar.time() == 0.0);
    CHECK(edited.size() >= 7);

    bar.fasterAction()->trigger();
    CHECK(bar.speed() > 0.1);
}

TEST_CASE("the step views follow the document and keep their docks named")
{
    QMainWindow window;
    Document doc;
    addStepViews(&window, &doc);
    loadInto(doc, "fairwater-gb200-128.csession");
    for (const char* name : {"timelineDock", "breakdownDock", "scalingDock", "compareDock"})
        CHECK(window.findChild<QDockWidget*>(QString::fromLatin1(name)));
    auto* timeline = window.findChild<TimelineView*>();
    auto* bar = window.findChild<PlaybackBar*>();
    REQUIRE(timeline);
    REQUIRE(bar);
    CHECK(timeline->mapping().totalS == Approx(doc.evaluation().stepTimeS));

    cs::ViewState view = doc.view();
    view.timeS = 0.5;
    doc.setView(view);
    CHECK(timeline->time() == 0.5);
    CHECK(bar->time() == 0.5);

    bar->togglePlaying(); // playing shows what the GPUs do
    CHECK(doc.view().playing);
    CHECK(cs::toString(doc.view().colorBy) == "activity");
    bar->advance(1.0);
    CHECK(doc.view().timeS == Approx(0.5 + doc.view().speed));
    bar->togglePlaying();
    CHECK_FALSE(bar->timerActive());

    emit timeline->timeClicked(0.25);
    CHECK(doc.view().timeS == 0.25);

    // What stage 0 computes at the cursor is what its tooltip tells.
    timeline->resize(1200, 300);
    const int stage0 = timeline->eventAt(
        QPointF(timeline->mapping().xOf(0.25),
                timeline->geometry().rowTop(0) + 0.5 * timeline->geometry().rowHeight));
    REQUIRE(stage0 >= 0);
    const cs::Event& e = doc.evaluation().events[size_t(stage0)];
    CHECK(e.stage == 0);
    CHECK(e.start <= 0.25 + 2 * timeline->mapping().secondsPerPixel());
    CHECK(timeline->describeEvent(stage0).startsWith(QString::fromUtf8(cs::toString(e.kind))));
}

TEST_CASE("an edit rebuilds the charts on screen and leaves those on hidden tabs until shown")
{
    QMainWindow window;
    window.setCentralWidget(new QWidget);
    Document doc;
    addStepViews(&window, &doc);
    window.resize(1400, 900);
    window.show();
    loadInto(doc, "fairwater-gb200-128.csession");
    auto* scaling = window.findChild<ScalingChart*>();
    auto* breakdown = window.findChild<BreakdownChart*>();
    REQUIRE(scaling);
    REQUIRE(breakdown);
    QApplication::processEvents();
    const auto firstPoint = [&] {
        const auto series = scaling->chart()->series();
        auto* line = series.empty() ? nullptr : qobject_cast<QLineSeries*>(series.front());
        return line && line->count() > 0 ? line->at(0).y() : -1.0;
    };
    CHECK(firstPoint() == -1.0); // behind the breakdown's tab: never built

    cs::ClusterDesc cluster = doc.cluster();
    cluster.scaleOut.GbpsPerGpu /= 4;
    doc.setClusterRun(cluster, doc.run());
    CHECK(barsOf(breakdown->stepChart())->barSets().front()->label().startsWith("compute"));
    CHECK(firstPoint() == -1.0);

    window.findChild<QDockWidget*>(QStringLiteral("scalingDock"))->raise();
    QApplication::processEvents();
    // Computed on a worker thread, shown when it is done.
    REQUIRE(waitUntil([&] { return firstPoint() != -1.0; }));
    CHECK(firstPoint() == Approx(cs::weakScaling(doc.cluster(), doc.run()).front().stepTimeS));
}
