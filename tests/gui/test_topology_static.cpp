// What an edit repaints: the topology's static layer only when what it shows changed (a
// colour mode or a rate does not), charts updated in place, and docks behind a tab only once
// they are shown.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QDockWidget>
#include <QHorizontalStackedBarSeries>
#include <QTemporaryDir>
#include <functional>

#include "breakdownchart.h"
#include "document.h"
#include "documentio.h"
#include "goodputpanel.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "onscreen.h"
#include "propertiespanel.h"
#include "topologyrenderer.h"
#include "topologyview.h"

namespace {

struct ViewOfDocument {
    Document doc;
    TopologyView view{[this]() -> const cs::ViewState& { return doc.view(); },
                      [this](const cs::ViewState& v) { doc.setView(v); }};

    explicit ViewOfDocument(const char* sample)
    {
        QString problems;
        auto session = loadSessionFromFile(sampleFile(sample), &problems);
        REQUIRE(session);
        doc.setSession(std::move(*session), QString());
        view.resize(1000, 560);
        QObject::connect(&doc, &Document::modelChanged, &view, [this] {
            view.setModel(doc.topology(), doc.placement(), doc.evaluation());
        });
        QObject::connect(&doc, &Document::viewChanged, &view, &TopologyView::viewStateChanged);
        view.setModel(doc.topology(), doc.placement(), doc.evaluation());
    }

    QImage frame() { return view.grab().toImage(); }

    // What a view made now for the same document shows.
    QImage freshFrame()
    {
        TopologyView fresh([this]() -> const cs::ViewState& { return doc.view(); },
                           [this](const cs::ViewState& v) { doc.setView(v); });
        fresh.resize(view.size());
        fresh.setModel(doc.topology(), doc.placement(), doc.evaluation());
        return fresh.grab().toImage();
    }
};

using Edit = std::function<void(cs::ClusterDesc&, cs::RunDesc&)>;

} // namespace

TEST_CASE("colours and edits the hall does not show keep the static layer, and the frame is a "
          "fresh view's",
          "[topology][responsiveness]")
{
    ViewOfDocument v("fairwater-gb200-128.csession");
    // Zoomed in far enough for the ranks' labels (a new placement renumbers them), not for the
    // links' (which show the rates).
    cs::ViewState zoomed = v.doc.view();
    zoomed.zoom = 9;
    zoomed.center = {-60, 0};
    v.doc.setView(zoomed);
    v.frame();
    long drawn = TopologyRenderer::staticLayersDrawn();

    cs::ViewState view = v.doc.view();
    view.colorBy = *cs::colorModeFromString("tp");
    v.doc.setView(view);
    v.frame();
    CHECK(TopologyRenderer::staticLayersDrawn() == drawn);

    const std::pair<const char*, Edit> unseen[] = {
        {"NIC rate", [](cs::ClusterDesc& c, cs::RunDesc&) { c.scaleOut.GbpsPerGpu = 400; }},
        {"GPU MTBF",
         [](cs::ClusterDesc& c, cs::RunDesc&) { c.reliability = cs::Reliability{1000}; }},
        {"micro-batch", [](cs::ClusterDesc&, cs::RunDesc& r) { r.batch.micro = 3; }},
        {"context parallel 1 and data parallel 256",
         [](cs::ClusterDesc&, cs::RunDesc& r) {
             r.parallelism.cp = 1;
             r.parallelism.dp = 256;
             r.batch.global = 9 * 256;
         }},
    };
    for (const auto& [what, edit] : unseen) {
        INFO(what);
        cs::ClusterDesc cluster = v.doc.cluster();
        cs::RunDesc run = v.doc.run();
        edit(cluster, run);
        v.doc.setClusterRun(cluster, run);
        const QImage edited = v.frame();
        CHECK(TopologyRenderer::staticLayersDrawn() == drawn);
        CHECK(edited == v.freshFrame());
        drawn = TopologyRenderer::staticLayersDrawn();
    }

    // Closer in, the links' labels give the rates: a new NIC rate draws the layer anew.
    zoomed = v.doc.view();
    zoomed.zoom = 30;
    v.doc.setView(zoomed);
    v.frame();
    drawn = TopologyRenderer::staticLayersDrawn();
    cs::ClusterDesc faster = v.doc.cluster();
    faster.scaleOut.GbpsPerGpu = 1600;
    v.doc.setClusterRun(faster, v.doc.run());
    const QImage relabelled = v.frame();
    CHECK(TopologyRenderer::staticLayersDrawn() > drawn);
    CHECK(relabelled == v.freshFrame());
    drawn = TopologyRenderer::staticLayersDrawn();

    // A rack out of service shows: the layer is drawn anew.
    cs::ClusterDesc cluster = v.doc.cluster();
    cluster.failures.racks = {3};
    cs::RunDesc run = v.doc.run();
    run.parallelism.dp = 254;
    run.batch.global = 9 * 254;
    v.doc.setClusterRun(cluster, run);
    const QImage failed = v.frame();
    CHECK(TopologyRenderer::staticLayersDrawn() > drawn);
    CHECK(failed == v.freshFrame());
}

TEST_CASE("an edit updates the breakdown's bars in place", "[responsiveness]")
{
    ViewOfDocument v("fairwater-gb200-128.csession");
    BreakdownChart chart;
    chart.setEvaluation(v.doc.evaluation(), std::nullopt);
    const auto bars = [&] {
        auto* series =
            qobject_cast<QHorizontalStackedBarSeries*>(chart.stepChart()->series().value(0));
        REQUIRE(series);
        return series->barSets();
    };
    const QList<QBarSet*> before = bars();
    const qreal compute = before.front()->at(0);
    cs::ClusterDesc cluster = v.doc.cluster();
    cluster.gpu.peakTflopsBf16 *= 0.5;
    v.doc.setClusterRun(cluster, v.doc.run());
    chart.setEvaluation(v.doc.evaluation(), std::nullopt);
    CHECK(bars() == before);
    CHECK(bars().front()->at(0) > compute);
}

TEST_CASE("a dock behind a tab is brought up to date when it is shown, not on each edit",
          "[responsiveness][goodput]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("fairwater-gb200-128.csession")));
    window.resize(1920, 1080);
    window.show();
    QApplication::processEvents();
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("goodputDock"));
    auto* breakdown = window.findChild<QDockWidget*>(QStringLiteral("breakdownDock"));
    auto* panel = window.findChild<GoodputPanel*>();
    REQUIRE(dock);
    REQUIRE(breakdown);
    REQUIRE(panel);
    const auto current = [&] {
        GoodputPanel fresh;
        fresh.setEvaluation(window.document()->evaluation());
        return fresh.figures();
    };
    for (double gbps : {400.0, 800.0}) {
        breakdown->raise();
        QApplication::processEvents();
        REQUIRE_FALSE(onScreen(dock));
        const QString shown = panel->figures();
        window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), gbps);
        QApplication::processEvents();
        REQUIRE(current() != shown); // the edit changes what the dock would say
        CHECK(panel->figures() == shown);
        dock->raise();
        QApplication::processEvents();
        CHECK(onScreen(dock));
        CHECK(panel->figures() == current());
    }
}
