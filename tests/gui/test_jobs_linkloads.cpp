// Link loads with several jobs (issue 38): the link-load colours and their tooltips are every
// job's traffic together, as the Links dock lists it, also when the jobs' evaluation arrives
// after the view is drawn; exported figures draw the same.

#include <catch2/catch.hpp>

#include <QAction>
#include <QTemporaryDir>
#include <QUndoStack>

#include "document.h"
#include "guitestutil.h"
#include "jobsviews.h"
#include "linkloadink.h"
#include "mainwindow.h"
#include "topologyscene.h"
#include "topologyview.h"

TEST_CASE("link loads with several jobs colour every job's traffic, as the Links dock lists it",
          "[jobs][gui]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("ndv5-h100-128-three-jobs-placed-badly.csession")));
    Document* doc = window.document();
    const auto evaluated = [doc] {
        return waitUntil([doc] { return doc->jobsResult() != nullptr; });
    };
    REQUIRE(evaluated());
    cs::ViewState view = doc->view();
    view.colorBy = {cs::ColorKind::LinkLoad};
    doc->setView(view);
    // A link that another job crosses and the job shown does not.
    const JobsResult* jobs = doc->jobsResult();
    const cs::StepTraffic& own = doc->stepTraffic();
    int link = -1;
    for (size_t l = 0; l < own.links.size() && link < 0; ++l)
        if (own.links[l].bytes == 0 && jobs->traffic.total.links[l].bytes > 0 &&
            !jobs->traffic.carries(l, 0))
            link = int(l);
    REQUIRE(link >= 0);
    const auto lit = [&window, link] {
        TopologyScene* scene = window.topologyView()->scene();
        REQUIRE(scene);
        const LinkInk& ink = scene->renderer().linkInk();
        REQUIRE(size_t(link) < ink.link.size());
        return ink.link[size_t(link)] != 0; // 0: idle
    };
    CHECK(lit());
    const QString tip = window.topologyView()->scene()->describe({HitKind::Link, link});
    CHECK(tip.contains(
        utilizationText(doc->jobsResult()->traffic.total.links[size_t(link)].utilization) +
        QStringLiteral(" busy")));
    CHECK_FALSE(tip.contains(QStringLiteral("0.0 % busy")));

    // An edit draws the view before the jobs are evaluated anew; their traffic recolours it.
    auto* remove = window.findChild<QAction*>(QStringLiteral("removeJob"));
    REQUIRE(remove);
    remove->trigger();
    doc->undoStack()->undo();
    REQUIRE(doc->runs().size() == 3);
    REQUIRE(evaluated());
    CHECK(lit());
}

TEST_CASE("exported figures and the window draw link loads from the same traffic", "[jobs][gui]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("ndv5-h100-128-three-jobs-placed-badly.csession")));
    const Document& doc = *window.document();
    // Before the jobs are evaluated, and for the activity mode's routes: the run's own.
    CHECK(&sceneTraffic(doc, {cs::ColorKind::LinkLoad}) == &doc.stepTraffic());
    REQUIRE(waitUntil([&doc] { return doc.jobsResult() != nullptr; }));
    CHECK(&sceneTraffic(doc, {cs::ColorKind::LinkLoad}) == &doc.jobsResult()->traffic.total);
    CHECK(&linkLoadTraffic(doc) == &doc.jobsResult()->traffic.total);
    CHECK(&sceneTraffic(doc, {cs::ColorKind::Activity}) == &doc.stepTraffic());
}
