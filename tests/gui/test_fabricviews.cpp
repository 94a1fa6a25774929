// The fabric and failure views: link-load colouring, out-of-service drawing, the Links and
// Goodput docks, failing and repairing with undo, re-planning, and failures in saved sessions.

#include <catch2/catch.hpp>

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QAreaSeries>
#include <QBarSet>
#include <QChart>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QHorizontalStackedBarSeries>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScatterSeries>
#include <QSet>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QValueAxis>
#include <set>

#include "activitylinks.h"
#include "document.h"
#include "documentio.h"
#include "fabricviews.h"
#include "goodputpanel.h"
#include "guitestutil.h"
#include "linkloadink.h"
#include "linkspanel.h"
#include "mainwindow.h"
#include "propertiespanel.h"
#include "scenetestutil.h"
#include "text.h"
#include "topologyscene.h"
#include "topologyview.h"
#include "traffic.h"

namespace {

// ND H100 v5 (2 tiers, 16 spines) with spine 3 failed.
std::unique_ptr<Document> failedSpineDocument()
{
    cs::Session s = sampleSession("ndv5-h100-128-gpt3-175b.run.json");
    s.cluster.failures.switches = {"spine3"};
    auto doc = std::make_unique<Document>();
    doc->setSession(std::move(s), QString());
    return doc;
}

QPoint screenCenter(const TopologyScene& scene, const cs::ViewState& view, const QRectF& world)
{
    return scene.transform(view, QSizeF(kRenderSize)).toScreen(world).center().toPoint();
}

cs::ViewState viewColouredBy(const char* mode)
{
    cs::ViewState v;
    v.colorBy = *cs::colorModeFromString(mode);
    return v;
}

// A left click, press and release, at a point of the view.
void clickAt(TopologyView* view, QPointF at)
{
    for (QEvent::Type type : {QEvent::MouseButtonPress, QEvent::MouseButtonRelease}) {
        QMouseEvent event(type, at, view->mapToGlobal(at), Qt::LeftButton,
                          type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton,
                          Qt::NoModifier);
        QApplication::sendEvent(view, &event);
    }
}

int spine(const cs::Topology& topo, int index)
{
    return topo.firstSwitchOfTier(2) + index;
}

} // namespace

TEST_CASE("the link-load mode colours switches by their busiest link and goes when left",
          "[fabric][links]")
{
    auto doc = failedSpineDocument();
    TopologyScene scene(doc->topology(), doc->placement(), doc->evaluation());
    scene.setTrafficSource([&]() -> const cs::StepTraffic& { return doc->stepTraffic(); });
    const cs::ViewState links = viewColouredBy("links");
    const int leaf = doc->topology().firstSwitchOfTier(1);
    const QPoint at = screenCenter(scene, links, scene.layout().switchRect(leaf));

    QImage image = renderScene(scene, links, kRenderSize);
    const LinkInk& ink = scene.renderer().linkInk();
    REQUIRE_FALSE(ink.empty());
    // The busiest link anywhere sets the scale: its top is the next 1-2-5 value up, and no
    // link is inked hotter.
    const cs::StepTraffic& traffic = doc->stepTraffic();
    const int hottest = traffic.hottest(1).front();
    const double hottestLoad = traffic.links[size_t(hottest)].utilization;
    const double top = loadScaleTop(traffic);
    CHECK(top >= hottestLoad);
    CHECK(top <= 2.5 * hottestLoad);
    CHECK(ink.link[size_t(hottest)] ==
          1 + std::min(kLoadSteps - 1, int(hottestLoad / top * kLoadSteps)));
    CHECK(*std::max_element(ink.link.begin(), ink.link.end()) == ink.link[size_t(hottest)]);
    // The leaf is filled in the colour of its busiest link's step.
    double busiest = 0;
    for (size_t i = 0; i < doc->topology().links().size(); ++i) {
        const cs::Link& l = doc->topology().links()[i];
        if ((l.a.kind == cs::EndpointKind::Switch && l.a.index == leaf) ||
            (l.b.kind == cs::EndpointKind::Switch && l.b.index == leaf))
            busiest = std::max(busiest, traffic.links[i].utilization);
    }
    REQUIRE(busiest > 0);
    const int step = std::min(kLoadSteps - 1, int(busiest / top * kLoadSteps));
    CHECK(QColor(image.pixel(at)) == loadColor((step + 0.5) / kLoadSteps));
    CHECK(scene.legend().notes.join(QLatin1Char('\n')).contains(QStringLiteral("GB/s")));

    image = renderScene(scene, viewColouredBy("pp"), kRenderSize);
    CHECK(scene.renderer().linkInk().empty());
    CHECK(QColor(image.pixel(at)) == scene.renderer().ink().tierFill[1]);
}

TEST_CASE("a failed spine is crossed out and carries nothing, in every mode", "[fabric][failures]")
{
    auto doc = failedSpineDocument();
    const cs::Topology& topo = doc->topology();
    const int failed = spine(topo, 3), healthy = spine(topo, 2);
    REQUIRE(topo.switchFailed(failed));
    TopologyScene scene(doc->topology(), doc->placement(), doc->evaluation());
    scene.setTrafficSource([&]() -> const cs::StepTraffic& { return doc->stepTraffic(); });
    for (const char* mode : {"pp", "links"}) {
        INFO(mode);
        const cs::ViewState view = viewColouredBy(mode);
        const QImage image = renderScene(scene, view, kRenderSize);
        const QRect failedRect = scene.transform(view, QSizeF(kRenderSize))
                                     .toScreen(scene.layout().switchRect(failed))
                                     .toRect();
        int crossPixels = 0;
        for (int y = failedRect.top(); y <= failedRect.bottom(); ++y)
            for (int x = failedRect.left(); x <= failedRect.right(); ++x)
                crossPixels += QColor(image.pixel(x, y)) == TopologyRenderer::outOfServiceColor();
        CHECK(crossPixels > 4);
        const QPoint other = screenCenter(scene, view, scene.layout().switchRect(healthy));
        CHECK(QColor(image.pixel(other)) != TopologyRenderer::outOfServiceColor());
        CHECK(scene.legend()
                  .notes.join(QLatin1Char('\n'))
                  .contains(QStringLiteral("out of service")));
    }
    for (int k = 0; k < topo.uplinkCount(topo.firstSwitchOfTier(1)); ++k) {
        const int link = topo.firstUplink(topo.firstSwitchOfTier(1)) + k;
        if (topo.links()[size_t(link)].b.index == failed)
            CHECK(doc->stepTraffic().links[size_t(link)].bytes == 0);
    }
}

TEST_CASE("the Links dock lists the model's hottest links, a row marks its link and names its "
          "groups",
          "[fabric][links]")
{
    auto doc = failedSpineDocument();
    LinksPanel panel;
    const cs::StepTraffic& traffic = doc->stepTraffic();
    panel.setTraffic(doc->topology(), traffic);
    QTableWidget* table = panel.table();
    const std::vector<int> hottest = traffic.hottest(LinksPanel::kRows);
    REQUIRE(table->rowCount() == int(hottest.size()));
    // Sorted by utilization, busiest first: the model's order.
    const int first = panel.linkAt(0);
    CHECK(traffic.links[size_t(first)].utilization ==
          traffic.links[size_t(hottest.front())].utilization);
    CHECK(table->item(0, 0)->text().toStdString() == doc->topology().linkName(first));
    CHECK(table->item(0, 2)->text() == utilizationText(traffic.links[size_t(first)].utilization));
    CHECK(table->item(0, 3)->text() ==
          rateText(traffic.links[size_t(first)].bytes, traffic.stepTimeS));
    // Sorting by the name column reorders the rows, and linkAt follows.
    table->sortByColumn(0, Qt::AscendingOrder);
    CHECK(table->item(0, 0)->text().toStdString() == doc->topology().linkName(panel.linkAt(0)));
    table->sortByColumn(2, Qt::DescendingOrder);
    CHECK(traffic.links[size_t(panel.linkAt(0))].utilization ==
          traffic.links[size_t(hottest.front())].utilization);
}

TEST_CASE("in the window, choosing a link marks it in the view and shows the groups using it",
          "[fabric][links]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("ndv5-h100-128-gpt3-175b.run.json")));
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("linksDock"));
    REQUIRE(dock);
    window.show();
    dock->show();
    dock->raise();
    auto* panel = qobject_cast<LinksPanel*>(dock->widget());
    REQUIRE(panel);
    REQUIRE(waitUntil([&] { return panel->table()->rowCount() > 0; }, 10000));
    panel->table()->selectRow(0);
    const int link = panel->linkAt(0);
    const Hit mark = window.topologyView()->scene()->renderer().mark();
    CHECK(mark == Hit{HitKind::Link, link});
    const QLabel* detail = panel->findChild<QLabel*>(QStringLiteral("linkDetail"));
    REQUIRE(detail);
    CHECK(detail->text().contains(
        QString::fromStdString(window.document()->topology().linkName(link))));
    CHECK(detail->text().contains(QStringLiteral("group")));
    // The tooltip of the link names its load while the Links dock shows.
    const QString tip = window.topologyView()->scene()->describe(mark);
    CHECK(tip.contains(
        utilizationText(window.document()->stepTraffic().links[size_t(link)].utilization)));

    // Clicking a link in the view, close in, marks it and chooses its row when it is listed.
    TopologyView* view = window.topologyView();
    const cs::Topology& topo = window.document()->topology();
    const int uplink = topo.firstUplink(topo.firstSwitchOfTier(1));
    const QPointF middle = view->scene()->layout().linkLine(uplink).center();
    cs::ViewState v = window.document()->view();
    v.zoom = 40;
    v.center = {middle.x(), middle.y()};
    window.document()->setView(v);
    QApplication::processEvents();
    const QPointF at = view->currentTransform().toScreen(middle);
    const Hit hit = view->hitAt(at);
    REQUIRE(hit.kind == HitKind::Link);
    clickAt(view, at);
    CHECK(view->scene()->renderer().mark() == hit);
    CHECK(detail->text().contains(QString::fromStdString(topo.linkName(hit.index))));
    const auto rows = panel->table()->selectionModel()->selectedRows();
    for (const QModelIndex& row : rows)
        CHECK(panel->linkAt(row.row()) == hit.index);
}

TEST_CASE("the Goodput dock shows the evaluation's goodput, split and step-time histogram",
          "[goodput]")
{
    cs::Session s = sampleSession("ndv5-h100-128-gpt3-175b.run.json");
    // Without a number of steps, the bar splits one step's wall time; with one, the run's.
    const auto partsShown = [](const GoodputPanel& panel) {
        auto* bars =
            qobject_cast<QHorizontalStackedBarSeries*>(panel.splitChart()->series().front());
        REQUIRE(bars);
        std::vector<double> values;
        for (QBarSet* set : bars->barSets())
            values.push_back(set->at(0));
        return values;
    };
    s.run.trainingSteps.reset();
    Document perStep;
    perStep.setSession(s, QString());
    GoodputPanel panel;
    panel.setEvaluation(perStep.evaluation());
    REQUIRE(perStep.evaluation().goodput);
    const auto stepParts = perStep.evaluation().goodput->chosen.perStep.parts();
    const std::vector<double> shownPerStep = partsShown(panel);
    REQUIRE(shownPerStep.size() == stepParts.size());
    for (size_t i = 0; i < stepParts.size(); ++i)
        CHECK(shownPerStep[i] == Approx(stepParts[i].seconds));

    s.run.trainingSteps = 20000;
    Document doc;
    doc.setSession(s, QString());
    const cs::Evaluation& e = doc.evaluation();
    REQUIRE(e.goodput);
    REQUIRE(e.variance);
    panel.setEvaluation(e);
    CHECK(panel.figures().contains(QStringLiteral("%1 %").arg(
        QString::fromStdString(cs::fixed(e.goodput->goodput() * 100, 2)))));
    CHECK(panel.figures().contains(
        QString::fromStdString(cs::fixed(e.goodput->failures.perDay(), 2))));
    // The time to train the status bar and the CLI show, then the time with failures.
    REQUIRE(e.timeToTrainS);
    CHECK(panel.figures().contains(
        QStringLiteral("Time to train %1; with failures %2")
            .arg(QString::fromStdString(cs::trainingTimeText(*e.timeToTrainS)),
                 QString::fromStdString(cs::trainingTimeText(*e.goodput->timeToTrainS())))));
    // The stacked bar holds each part of the time to train, in the unit the total reads in.
    const auto split = e.goodput->timeToTrainSplit();
    REQUIRE(split);
    const auto parts = split->parts();
    const std::vector<double> shown = partsShown(panel);
    REQUIRE(shown.size() == parts.size());
    const cs::TrainingTimeUnit unit = cs::trainingTimeUnit(split->total());
    CHECK(panel.splitChart()->title() == QStringLiteral("Time to train (%1)").arg(unit.name));
    for (size_t i = 0; i < parts.size(); ++i)
        CHECK(shown[i] == Approx(parts[i].seconds / unit.seconds));
    // The optimum is marked where the model puts it.
    bool marked = false;
    for (QAbstractSeries* s : panel.curveChart()->series())
        if (auto* points = qobject_cast<QScatterSeries*>(s))
            marked |= points->count() == 1 &&
                      points->at(0).x() == double(e.goodput->optimalIntervalSteps);
    CHECK(marked);
    // The histogram holds every quantile once: its bins' shares sum to 100 %.
    auto* histogram = qobject_cast<QAreaSeries*>(panel.histogramChart()->series().front());
    REQUIRE(histogram);
    const QList<QPointF> outline = histogram->upperSeries()->points();
    double shares = 0;
    for (qsizetype i = 0; i < outline.size(); i += 2)
        shares += outline[i].y();
    CHECK(shares == Approx(100));
    CHECK(outline.front().x() == Approx(e.variance->quantilesS.front()));
}

TEST_CASE("a short run's time to train reads in minutes, each axis label its own", "[goodput]")
{
    cs::Session s = sampleSession("ndv5-h100-128-gpt3-175b.run.json");
    s.run.trainingSteps = 100;
    Document doc;
    doc.setSession(s, QString());
    REQUIRE(doc.evaluation().goodput);
    REQUIRE(*doc.evaluation().goodput->timeToTrainS() < 3600);
    GoodputPanel panel;
    panel.setEvaluation(doc.evaluation());
    CHECK(panel.splitChart()->title() == "Time to train (min)");
    const QList<QAbstractAxis*> axes = panel.splitChart()->axes(Qt::Horizontal);
    REQUIRE(axes.size() == 1);
    const auto* values = qobject_cast<QValueAxis*>(axes.front());
    REQUIRE(values);
    QStringList labels;
    const QByteArray format = values->labelFormat().toLatin1();
    for (int i = 0; i < values->tickCount(); ++i)
        labels << QString::asprintf(format.constData(),
                                    values->min() + (values->max() - values->min()) * i /
                                                        (values->tickCount() - 1));
    INFO(labels.join(QStringLiteral(", ")).toStdString());
    CHECK(labels.size() >= 2);
    CHECK(QSet<QString>(labels.begin(), labels.end()).size() == labels.size());
}

TEST_CASE("failing and repairing a switch, link or rack is one undo step each", "[failures]")
{
    auto doc = failedSpineDocument();
    const cs::Topology* topo = &doc->topology();
    const int leaf = topo->firstSwitchOfTier(1);
    const std::string leafName = topo->switchName(leaf);

    auto edits = failureEdits(doc->cluster(), *topo, {HitKind::Switch, leaf});
    REQUIRE(edits.size() == 1);
    CHECK(edits[0].text.startsWith(QStringLiteral("Fail")));
    const int before = doc->undoStack()->count();
    REQUIRE(applyFailureEdit(nullptr, doc.get(), edits[0]).isEmpty());
    CHECK(doc->undoStack()->count() == before + 1);
    CHECK(doc->topology().switchFailed(leaf));

    // The failed leaf offers its repair.
    edits = failureEdits(doc->cluster(), doc->topology(), {HitKind::Switch, leaf});
    CHECK(edits[0].text.startsWith(QStringLiteral("Repair")));
    doc->undoStack()->undo();
    CHECK_FALSE(doc->topology().switchFailed(leaf));
    CHECK(doc->cluster().failures.switches == std::vector<std::string>{"spine3"});
    doc->undoStack()->redo();
    CHECK(doc->topology().switchFailed(leaf));
    doc->undoStack()->undo();

    // The failed spine repaired.
    const int failedSpine = spine(doc->topology(), 3);
    edits = failureEdits(doc->cluster(), doc->topology(), {HitKind::Switch, failedSpine});
    REQUIRE(applyFailureEdit(nullptr, doc.get(), edits[0]).isEmpty());
    CHECK(doc->cluster().failures.switches.empty());
    doc->undoStack()->undo();
    CHECK(doc->topology().switchFailed(failedSpine));

    // A link by its name; a GPU offers itself, its node, its rack and its NIC link.
    const int link = doc->topology().firstUplink(leaf);
    edits = failureEdits(doc->cluster(), doc->topology(), {HitKind::Link, link});
    REQUIRE(applyFailureEdit(nullptr, doc.get(), edits[0]).isEmpty());
    CHECK_FALSE(doc->topology().linkUsable(link));
    doc->undoStack()->undo();
    CHECK(doc->topology().linkUsable(link));
    CHECK(failureEdits(doc->cluster(), doc->topology(), {HitKind::Gpu, 9}).size() == 4);
    CHECK(failureEdits(doc->cluster(), doc->topology(), {HitKind::Bundle, 0}).empty());
}

TEST_CASE("a rack out of service that leaves the run too big re-plans it in the same undo step",
          "[failures][replan]")
{
    cs::Session s = sampleSession("ndv5-h200-64-gpt3-175b.run.json");
    Document doc;
    doc.setSession(s, QString());
    const cs::RunDesc runBefore = doc.run();
    const auto edits = failureEdits(doc.cluster(), doc.topology(), {HitKind::Rack, 0});
    REQUIRE(edits.size() == 1);
    // dp 16 needs every GPU: without rack 0 the run does not fit.
    REQUIRE_FALSE(problemsOf(edits[0].cluster, runBefore).isEmpty());
    REQUIRE(applyFailureEdit(nullptr, &doc, edits[0]).isEmpty());
    CHECK(doc.undoStack()->count() == 1);
    CHECK(doc.cluster().failures.racks == std::vector<int>{0});
    CHECK(problemsOf(doc.cluster(), doc.run()).isEmpty());
    CHECK(doc.run().worldSizeFor(doc.cluster().healthyGpuCount()) <=
          doc.cluster().healthyGpuCount());
    CHECK(doc.run().batch.global == runBefore.batch.global);
    CHECK(doc.evaluation().gpusFailed > 0);
    doc.undoStack()->undo();
    CHECK(doc.run() == runBefore);
    CHECK(doc.cluster().failures.empty());
}

TEST_CASE("Re-plan on Healthy GPUs applies the search's best layout as one undo step",
          "[failures][replan]")
{
    cs::Session s = sampleSession("ndv5-h200-64-gpt3-175b.run.json");
    s.cluster.failures.racks = {0, 1, 2, 3, 4, 5, 6, 7};
    s.run.parallelism.dp = 0; // follows the healthy GPUs (8 replicas), so the session is valid
    Document doc;
    doc.setSession(s, QString());
    REQUIRE(problemsOf(doc.cluster(), doc.run()).isEmpty());
    const double before = doc.evaluation().stepTimeS;
    const auto best = replanOnHealthy(doc.cluster(), doc.run());
    REQUIRE(best);
    REQUIRE(replanDocument(nullptr, &doc));
    CHECK(doc.run() == *best);
    CHECK(doc.undoStack()->count() == (*best == s.run ? 0 : 1));
    CHECK(doc.evaluation().stepTimeS <= before * (1 + 1e-9));
}

TEST_CASE("a bookmark of a failure round-trips through a saved session", "[failures][bookmarks]")
{
    QTemporaryDir dir;
    auto doc = failedSpineDocument();
    cs::Bookmark mark;
    mark.title = "spine 3 out";
    mark.view = viewColouredBy("links");
    mark.view.zoom = 2.5;
    doc->setBookmarks({mark});
    const QString path = dir.filePath(QStringLiteral("failed.csession"));
    QString error;
    REQUIRE(writeFileAtomically(path, sessionBytes(doc->sessionToSave()), &error));
    QString problems;
    const auto loaded = loadSessionFromFile(path, &problems);
    INFO(problems.toStdString());
    REQUIRE(loaded);
    CHECK(loaded->cluster.failures == doc->cluster().failures);
    REQUIRE(loaded->bookmarks.size() == 1);
    CHECK(loaded->bookmarks[0] == mark);
    Document reopened;
    reopened.setSession(*loaded, path);
    CHECK(reopened.topology().switchFailed(spine(reopened.topology(), 3)));
}

TEST_CASE("the View menu's Colour By lists each mode once, link load among them", "[links]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("ndv5-h100-128-gpt3-175b.run.json")));
    auto* menu = window.findChild<QMenu*>(QStringLiteral("colorByMenu"));
    REQUIRE(menu);
    CHECK(menu->actions().size() == int(cs::colorModes().size()));
    QAction* links = nullptr;
    for (QAction* a : menu->actions())
        if (a->data().toString() == QLatin1String("links"))
            links = a;
    REQUIRE(links);
    links->trigger();
    CHECK(window.document()->view().colorBy.kind == cs::ColorKind::LinkLoad);
    CHECK_FALSE(window.topologyView()->scene()->renderer().linkInk().empty());
}

TEST_CASE("playback lights each dimension's routed paths: the links its groups' routes cross",
          "[fabric][activity]")
{
    auto doc = failedSpineDocument();
    TopologyLayout layout(doc->topology());
    const DimRoutes routes = dimRoutes(layout, doc->stepTraffic());
    const cs::Placement& placement = doc->placement();
    const bool interleaved = doc->run().parallelism.vp > 1;
    for (cs::Dim d : {cs::Dim::TP, cs::Dim::PP, cs::Dim::DP}) {
        INFO(cs::dimInfo(d).shortLabel);
        std::set<int> routed;
        for (int rank = 0; rank < placement.worldSize(); ++rank)
            if (cs::leadsGroup(placement, rank, d))
                for (const cs::GroupLink& g :
                     cs::groupLinks(doc->router(), placement, rank, d, interleaved))
                    routed.insert(g.link);
        REQUIRE_FALSE(routed.empty());
        CHECK(std::set<int>(routes.links[d].begin(), routes.links[d].end()) == routed);
        // Nothing routed over the failed spine.
        CHECK(std::all_of(routes.links[d].begin(), routes.links[d].end(),
                          [&](int link) { return doc->topology().linkUsable(link); }));
    }
    // TP stays in the 8-GPU boards: NVLink only, no bundle.
    CHECK(routes.nvLink[cs::Dim::TP]);
    CHECK(routes.bundles[cs::Dim::TP].empty());
    CHECK_FALSE(routes.bundles[cs::Dim::DP].empty());
}

TEST_CASE("Properties edit the fabric, reliability, storage and checkpoints, one undo step each",
          "[properties][goodput]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    Document* doc = window.document();
    PropertiesPanel* panel = window.propertiesPanel();
    const auto spin = [&](const char* name) {
        auto* s = panel->findChild<QDoubleSpinBox*>(QString::fromLatin1(name));
        REQUIRE(s);
        return s;
    };
    const cs::ClusterDesc before = doc->cluster();
    const double goodputBefore = doc->evaluation().goodput->goodput();
    // The sample gives no reliability: the fields show the defaults, and an edit writes them.
    REQUIRE_FALSE(before.reliability);
    const cs::Reliability assumed;
    CHECK(spin("GPU MTBF (h)")->value() == assumed.gpuMtbfH);

    // Halving every GPU's MTBF lowers goodput; undone, the cluster is as it was.
    spin("GPU MTBF (h)")->setValue(assumed.gpuMtbfH / 2);
    REQUIRE(doc->cluster().reliability);
    CHECK(doc->cluster().reliability->gpuMtbfH == Approx(assumed.gpuMtbfH / 2));
    CHECK(doc->cluster().reliability->nodeMtbfH == assumed.nodeMtbfH);
    CHECK(doc->evaluation().goodput->goodput() < goodputBefore);
    CHECK(doc->undoStack()->count() == 1);

    // Two tiers have no spine boundary: refused; with three it applies to the spines alone.
    REQUIRE(before.scaleOut.topology.tiers == 2);
    spin("Spine oversubscription")->setValue(2);
    CHECK(doc->undoStack()->count() == 1);
    CHECK(doc->cluster().scaleOut.topology.oversubscription ==
          before.scaleOut.topology.oversubscription);
    auto* tiers = panel->findChild<QSpinBox*>(QStringLiteral("Tiers"));
    REQUIRE(tiers);
    tiers->setValue(3);
    REQUIRE(doc->cluster().scaleOut.topology.tiers == 3);
    spin("Spine oversubscription")->setValue(2);
    CHECK(doc->cluster().scaleOut.topology.oversubscriptionAt(1) == 2);
    CHECK(doc->cluster().scaleOut.topology.oversubscriptionAt(0) ==
          before.scaleOut.topology.oversubscriptionAt(0));
    CHECK(doc->undoStack()->count() == 3);

    auto* routing = panel->findChild<QComboBox*>(QStringLiteral("Routing"));
    REQUIRE(routing);
    routing->textActivated(QStringLiteral("ecmp"));
    CHECK(doc->cluster().scaleOut.topology.routing == cs::Routing::Ecmp);

    spin("Write GB/s")->setValue(500);
    REQUIRE(doc->cluster().storage);
    CHECK(doc->cluster().storage->writeGBps == 500);

    auto* interval = panel->findChild<QSpinBox*>(QStringLiteral("Checkpoint every"));
    REQUIRE(interval);
    interval->setValue(40);
    REQUIRE(doc->run().checkpoint);
    CHECK(doc->run().checkpoint->intervalSteps == 40);
    CHECK(doc->evaluation().goodput->intervalSteps() == 40);
    CHECK(doc->undoStack()->count() == 6);

    // A value the rules refuse is not applied, and says why.
    spin("Switch MTBF (h)")->setValue(0);
    CHECK(doc->undoStack()->count() == 6);
    CHECK(doc->cluster().reliability->switchMtbfH == assumed.switchMtbfH);

    while (doc->undoStack()->canUndo())
        doc->undoStack()->undo();
    CHECK(doc->cluster() == before);
    CHECK_FALSE(doc->run().checkpoint.has_value());
}

TEST_CASE("with racks out of service, clicking a GPU selects the rank it holds, and a failed GPU "
          "none",
          "[failures][window]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    Document* doc = window.document();
    cs::ClusterDesc cluster = doc->cluster();
    cluster.failures.racks = {0, 1, 2, 3, 4, 5, 6, 7};
    cs::RunDesc run = doc->run();
    run.parallelism.dp = 8;
    REQUIRE(problemsOf(cluster, run).isEmpty());
    doc->setClusterRun(cluster, run);
    window.resize(1600, 900);
    window.show();
    QApplication::processEvents();
    TopologyView* view = window.topologyView();
    const auto click = [&](int gpu) {
        const QPointF at =
            view->currentTransform().toScreen(view->scene()->layout().gpuRect(gpu).center());
        clickAt(view, at);
        return doc->view().highlightRank;
    };
    const int firstHealthy = 8 * 32; // racks of 4 VMs of 8 GPUs
    REQUIRE(doc->placement().rankOfGpu(firstHealthy) == 0);
    CHECK(click(firstHealthy + 9) == 9);
    CHECK(click(5) == -1);
}
