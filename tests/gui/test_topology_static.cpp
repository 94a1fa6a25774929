// What an edit repaints: the topology's static layer only when what it shows changed (a
// colour mode or a rate does not), charts updated in place, and docks behind a tab only once
// they are shown. What it rebuilds: the topology and its layout only when the devices changed.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QDockWidget>
#include <QHorizontalStackedBarSeries>
#include <QUndoStack>
#include <functional>

#include "breakdownchart.h"
#include "document.h"
#include "documentio.h"
#include "goodputpanel.h"
#include "guitestutil.h"
#include "inspectorpanel.h"
#include "mainwindow.h"
#include "onscreen.h"
#include "propertiespanel.h"
#include "shownwindow.h"
#include "topology.h"
#include "topologylayout.h"
#include "topologyrenderer.h"
#include "topologyscene.h"
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

// Whether the window's topology and layout are what building them now from the document's
// cluster gives: every place, link rate and latency, bundle and the tooltip of a NIC link.
void checkAsBuiltAnew(const Document& doc, const TopologyView& view)
{
    const cs::Topology fresh(doc.cluster());
    const TopologyLayout freshLayout(fresh);
    const cs::Topology& topo = doc.topology();
    REQUIRE(view.scene());
    const TopologyLayout& layout = view.scene()->layout();
    CHECK(&layout.topology() == &topo);
    REQUIRE(topo.gpus().size() == fresh.gpus().size());
    REQUIRE(topo.racks().size() == fresh.racks().size());
    REQUIRE(topo.links().size() == fresh.links().size());
    int racksMoved = 0, linksOff = 0, bundlesOff = 0;
    for (size_t r = 0; r < topo.racks().size(); ++r)
        racksMoved += topo.racks()[r].row != fresh.racks()[r].row ||
                      topo.racks()[r].column != fresh.racks()[r].column ||
                      layout.rackRect(int(r)) != freshLayout.rackRect(int(r));
    for (size_t i = 0; i < topo.links().size(); ++i)
        linksOff += topo.links()[i].GBps != fresh.links()[i].GBps ||
                    topo.links()[i].latencyUs != fresh.links()[i].latencyUs;
    REQUIRE(layout.bundles().size() == freshLayout.bundles().size());
    for (size_t b = 0; b < layout.bundles().size(); ++b)
        bundlesOff += layout.bundles()[b].GBps != freshLayout.bundles()[b].GBps ||
                      layout.bundles()[b].line != freshLayout.bundles()[b].line;
    CHECK(racksMoved == 0);
    CHECK(linksOff == 0);
    CHECK(bundlesOff == 0);
    CHECK(layout.bounds() == freshLayout.bounds());
    // The first line: what follows is the load, from the window's link views.
    const TopologyScene freshScene(fresh, doc.placement(), doc.evaluation());
    for (const Hit hit :
         {Hit{HitKind::Link, topo.nicLinkOf(0)}, Hit{HitKind::Bundle, layout.bundleOfGpuLink(0)}})
        CHECK(view.scene()->describe(hit).section(QLatin1Char('\n'), 0, 0).toStdString() ==
              freshScene.describe(hit).section(QLatin1Char('\n'), 0, 0).toStdString());
}

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
    ShownWindow shown("fairwater-gb200-128.csession", QSize(1920, 1080));
    MainWindow& window = shown.window;
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

TEST_CASE("the inspector behind the legend's tab catches up with an edit when it is shown",
          "[responsiveness][inspector]")
{
    ShownWindow shown("fairwater-gb200-128.csession", QSize(1920, 1080));
    MainWindow& window = shown.window;
    Document& doc = *window.document();
    auto* legend = window.findChild<QDockWidget*>(QStringLiteral("legend"));
    auto* inspector = window.findChild<QDockWidget*>(QStringLiteral("inspector"));
    REQUIRE(legend);
    REQUIRE(inspector);
    const auto current = [&] {
        InspectorPanel fresh;
        fresh.showRank(doc.topology(), doc.placement(), doc.evaluation(), doc.run(),
                       doc.view().highlightRank);
        return fresh.text();
    };
    cs::ViewState view = doc.view();
    view.highlightRank = 5;
    doc.setView(view); // raises the inspector
    QApplication::processEvents();
    CHECK(window.inspector()->text() == current());
    for (double gbps : {400.0, 800.0}) {
        legend->raise();
        QApplication::processEvents();
        REQUIRE_FALSE(onScreen(window.inspector()));
        const QString shown = window.inspector()->text();
        REQUIRE(window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), gbps));
        QApplication::processEvents();
        REQUIRE(current() != shown); // the inspector gives the NIC's rate
        CHECK(window.inspector()->text() == shown);
        inspector->raise();
        QApplication::processEvents();
        CHECK(onScreen(window.inspector()));
        CHECK(window.inspector()->text() == current());
    }
}

TEST_CASE("an edit of a rate keeps the devices and their layout and shows the new rates, and an "
          "edit of the racks or rows builds them anew",
          "[topology][responsiveness]")
{
    ShownWindow shown("fairwater-gb200-128.csession", QSize(1920, 1080));
    MainWindow& window = shown.window;
    const Document& doc = *window.document();
    auto* view = window.findChild<TopologyView*>();
    REQUIRE(view);
    const auto edit = [&](const char* field, double value) {
        REQUIRE(window.propertiesPanel()->editField(QString::fromLatin1(field), value));
        QApplication::processEvents();
        INFO(field);
        checkAsBuiltAnew(doc, *view);
    };
    checkAsBuiltAnew(doc, *view);

    const cs::Topology* topology = &doc.topology();
    const uint64_t devices = topology->devicesId();
    CHECK(view->scene()->layout().devicesId() == devices);
    // 400 Gb/s: 50 GB/s a direction on each GPU's NIC link.
    edit("NIC Gb/s", 400);
    CHECK(&doc.topology() == topology);
    CHECK(doc.topology().devicesId() == devices);
    CHECK(view->scene()->layout().devicesId() == devices);
    CHECK(doc.topology().links()[size_t(doc.topology().nicLinkOf(0))].GBps == 50);
    edit("Fabric latency (us)", 7);
    edit("NVLink GB/s", 1200);
    CHECK(doc.topology().devicesId() == devices);
    CHECK(view->scene()->layout().devicesId() == devices);
    doc.undoStack()->undo(); // the NVLink rate back
    QApplication::processEvents();
    checkAsBuiltAnew(doc, *view);
    CHECK(doc.topology().devicesId() == devices);

    // The same racks in other rows: the places change, not the rates.
    edit("Rows", 4);
    const uint64_t rows = doc.topology().devicesId();
    CHECK(rows != devices);
    CHECK(view->scene()->layout().devicesId() == rows);
    edit("Racks", 64);
    CHECK(doc.topology().gpus().size() == 64 * 64);
    CHECK(doc.topology().devicesId() != rows);
    CHECK(view->scene()->layout().devicesId() == doc.topology().devicesId());
    // Back to 128 racks by undo: built anew too, at the rate edited before.
    doc.undoStack()->undo();
    QApplication::processEvents();
    checkAsBuiltAnew(doc, *view);
    CHECK(doc.topology().gpus().size() == 128 * 64);
    CHECK(doc.topology().links()[size_t(doc.topology().nicLinkOf(0))].GBps == 50);
}
