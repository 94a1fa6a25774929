// The step timeline: what every gap is, finding events, dependencies of a selection, a measured
// range, stages that scroll, a zoom kept across edits.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QMouseEvent>
#include <QScrollBar>

#include "costmodel.h"
#include "document.h"
#include "documentio.h"
#include "guitestutil.h"
#include "timelinemapping.h"
#include "timelineview.h"

namespace {

cs::Evaluation evaluationOf(const char* run)
{
    QString problems;
    auto session = loadSessionFromFile(sampleFile(run), &problems);
    REQUIRE(session);
    return cs::evaluate(session->cluster, session->run);
}

cs::Event at(cs::EventKind kind, int stage, int microBatch, int chunk = -1)
{
    cs::Event e;
    e.kind = kind;
    e.stage = stage;
    e.microBatch = microBatch;
    e.chunk = chunk;
    return e;
}

void drag(QWidget* w, QPointF from, QPointF to, Qt::KeyboardModifiers modifiers = {})
{
    QMouseEvent press(QEvent::MouseButtonPress, from, w->mapToGlobal(from), Qt::LeftButton,
                      Qt::LeftButton, modifiers);
    QApplication::sendEvent(w, &press);
    QMouseEvent move(QEvent::MouseMove, to, w->mapToGlobal(to), Qt::NoButton, Qt::LeftButton,
                     modifiers);
    QApplication::sendEvent(w, &move);
    QMouseEvent release(QEvent::MouseButtonRelease, to, w->mapToGlobal(to), Qt::LeftButton,
                        Qt::NoButton, modifiers);
    QApplication::sendEvent(w, &release);
}

} // namespace

TEST_CASE("every stage is busy or waiting for a named reason until the optimizer", "[timeline]")
{
    for (const char* run :
         {"fairwater-gb200-128-llama405b.run.json", "ndv5-h100-1344-gpt3-175b.run.json"}) {
        INFO(run);
        const cs::Evaluation e = evaluationOf(run);
        const TimelineLanes lanes(e.events, int(e.memoryGiBPerStage.size()));
        double optimizerStart = e.stepTimeS;
        for (const cs::Event& ev : e.events)
            if (ev.kind == cs::EventKind::Optimizer)
                optimizerStart = ev.start;
        for (int s = 0; s < lanes.stages(); ++s) {
            // From 0 to the optimizer a stage computes, waits on its exposed communication or
            // waits for a named reason, without a hole.
            std::vector<std::pair<double, double>> spans;
            for (const cs::Event& ev : e.events) {
                if (ev.stage != s || (ev.isComm() && ev.dim == cs::Dim::PP))
                    continue;
                spans.push_back({ev.start, ev.end});
                if (ev.kind == cs::EventKind::Bubble)
                    CHECK(ev.wait != cs::WaitReason::None);
            }
            std::sort(spans.begin(), spans.end());
            double covered = 0;
            int holes = 0;
            for (const auto& [start, end] : spans) {
                holes += start > covered + 1e-9;
                covered = std::max(covered, end);
            }
            CHECK(holes == 0);
            CHECK(covered == Approx(optimizerStart).margin(1e-9));
        }
    }
}

TEST_CASE("the wait before the optimizer is named, and it is the step's own time", "[timeline]")
{
    const cs::Evaluation e = evaluationOf("fairwater-gb200-128-llama405b.run.json");
    double contention = -1, contentionEnd = -1;
    for (const cs::Event& ev : e.events)
        if (ev.kind == cs::EventKind::Bubble && ev.wait == cs::WaitReason::Contention &&
            ev.stage == 0) {
            contention = ev.end - ev.start;
            contentionEnd = ev.end;
        }
    // The gap is the compute slowed by the DP traffic under it, counted as compute: tens of
    // milliseconds, ending where the optimizer starts.
    CHECK(contention > 0.01);
    CHECK(contention < 0.1);
    CHECK(contentionEnd == Approx(e.stepTimeS - e.breakdown.overhead - e.breakdown.optimizer));
    TimelineView view;
    view.resize(1200, 300);
    view.setSchedule(e.events, 8, e.stepTimeS);
    const double x = view.mapping().xOf(e.stepTimeS - e.breakdown.optimizer - contention / 2);
    const QString tip =
        view.describeAt(QPointF(x, view.geometry().rowTop(3) + view.geometry().rowHeight / 2));
    CHECK(tip.startsWith("bubble, stage 3"));
    CHECK(tip.contains("Compute slowed by the communication running under it"));
}

TEST_CASE("events are found by kind, dimension, stage and micro-batch", "[timeline]")
{
    std::string problem;
    const auto matches = [&](const char* text, const cs::Event& e) {
        const auto f = EventFilter::parse(text, &problem);
        REQUIRE(f);
        return f->matches(e);
    };
    cs::Event dp = at(cs::EventKind::Comm, 2, 4);
    dp.dim = cs::Dim::DP;
    dp.exposed = false;
    CHECK(matches("backward stage 3", at(cs::EventKind::Backward, 3, 0)));
    CHECK_FALSE(matches("backward stage 3", at(cs::EventKind::Backward, 2, 0)));
    CHECK(matches("forward backward", at(cs::EventKind::Forward, 0, 0)));
    CHECK(matches("s2 mb 4", dp));
    CHECK(matches("dp hidden", dp));
    CHECK_FALSE(matches("dp exposed", dp));
    CHECK(matches("comm", dp));
    CHECK(matches("Stage 2", dp));
    CHECK(matches("wait", at(cs::EventKind::Bubble, 0, -1)));
    CHECK(matches("chunk 1", at(cs::EventKind::Forward, 0, 0, 1)));
    CHECK(EventFilter::parse("", &problem)->empty());
    CHECK_FALSE(EventFilter::parse("backwards", &problem));
    CHECK_THAT(problem, Catch::Contains("\"backwards\" is not a kind"));

    TimelineView view;
    const cs::Evaluation e = evaluationOf("fairwater-gb200-128-llama405b.run.json");
    view.setSchedule(e.events, 8, e.stepTimeS);
    REQUIRE(view.setFilter("backward stage 3"));
    int expected = 0;
    for (const cs::Event& ev : e.events)
        expected += ev.kind == cs::EventKind::Backward && ev.stage == 3;
    CHECK(view.filterMatches() == expected);
    QString why;
    CHECK_FALSE(view.setFilter("stage three", &why));
    CHECK_FALSE(why.isEmpty());
}

TEST_CASE("a selected op shows the op it depends on and those that depend on it", "[timeline]")
{
    const cs::Evaluation e = evaluationOf("fairwater-gb200-128-llama405b.run.json");
    TimelineView view;
    view.resize(1400, 320);
    view.setSchedule(e.events, 8, e.stepTimeS);
    // The first forward of stage 1 takes its input from stage 0 and feeds stage 2.
    int selected = -1;
    for (int i = 0; i < int(e.events.size()) && selected < 0; ++i)
        if (e.events[size_t(i)].kind == cs::EventKind::Forward && e.events[size_t(i)].stage == 1)
            selected = i;
    REQUIRE(selected >= 0);
    view.selectEvent(selected);
    const auto arrows = view.selectedDependencies();
    REQUIRE(arrows.size() == 2);
    const auto& ops = view.ops();
    const TimelineOp& from = ops[size_t(arrows[0].first)];
    const TimelineOp& self = ops[size_t(arrows[0].second)];
    CHECK(from.stage == 0);
    CHECK(self.stage == 1);
    CHECK(from.end <= self.start + 1e-12);
    const TimelineOp& next = ops[size_t(arrows[1].second)];
    CHECK(next.stage == 2);
    CHECK(self.end <= next.start + 1e-12);
    CHECK(view.describeEvent(selected).contains("takes its input from the forward of "
                                                "micro-batch 0, chunk 0 on stage 0"));
}

TEST_CASE("dragging over the rows measures, dragging the ruler pans", "[timeline]")
{
    const cs::Evaluation e = evaluationOf("fairwater-gb200-128-llama405b.run.json");
    TimelineView view;
    view.resize(1200, 300);
    view.setSchedule(e.events, 8, e.stepTimeS);
    const double y = view.geometry().rowTop(2) + 4;
    const TimelineMapping& m = view.mapping();
    drag(&view, QPointF(m.xOf(0.2), y), QPointF(m.xOf(0.5), y));
    REQUIRE(view.measuredRange());
    CHECK(view.measuredRange()->first == Approx(0.2).margin(m.secondsPerPixel()));
    CHECK(view.measuredRange()->second == Approx(0.5).margin(m.secondsPerPixel()));
    CHECK(view.mapping().startS == 0); // not panned

    QWheelEvent zoom(QPointF(600, y), QPointF(600, y), QPoint(), QPoint(0, 480), Qt::NoButton,
                     Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &zoom);
    const double start = view.mapping().startS;
    REQUIRE(view.mapping().spanS < e.stepTimeS);
    drag(&view, QPointF(600, 5), QPointF(500, 5)); // on the ruler
    CHECK(view.mapping().startS > start);
}

TEST_CASE("the zoom is kept across an edit, the whole step stays whole", "[timeline]")
{
    const cs::Evaluation e = evaluationOf("fairwater-gb200-128-llama405b.run.json");
    TimelineView view;
    view.resize(1200, 300);
    view.setSchedule(e.events, 8, e.stepTimeS);
    view.setSchedule(e.events, 8, e.stepTimeS * 1.1);
    CHECK(view.mapping().spanS == Approx(e.stepTimeS * 1.1)); // whole, still whole

    QWheelEvent zoom(QPointF(600, 100), QPointF(600, 100), QPoint(), QPoint(0, 480), Qt::NoButton,
                     Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &zoom);
    const TimelineMapping zoomed = view.mapping();
    view.setSchedule(e.events, 8, e.stepTimeS);
    CHECK(view.mapping().startS == zoomed.startS);
    CHECK(view.mapping().spanS == zoomed.spanS);
}

TEST_CASE("stages that do not fit scroll under the ruler", "[timeline]")
{
    std::vector<cs::Event> events;
    for (int s = 0; s < 32; ++s)
        events.push_back(at(cs::EventKind::Forward, s, 0));
    for (size_t i = 0; i < events.size(); ++i)
        events[i].end = 1.0;
    TimelineView view;
    view.resize(800, 200);
    view.show();
    view.setSchedule(events, 32, 1.0);
    auto* scroll = view.findChild<QScrollBar*>();
    REQUIRE(scroll);
    CHECK(scroll->isVisible());
    CHECK(view.geometry().rowHeight >= 16);
    CHECK(view.geometry().rowTop(31) > view.height()); // below the widget
    scroll->setValue(scroll->maximum());
    const QPointF last(400, view.geometry().rowTop(31) + 8);
    REQUIRE(last.y() < view.height());
    CHECK(view.eventAt(last) == 31);
}
