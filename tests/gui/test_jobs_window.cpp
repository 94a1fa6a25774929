// Several jobs on one cluster in the window (issue 38): the Jobs dock and its figures, adding,
// moving, removing and showing a job with undo, colour by job, the Links dock's jobs, Place
// Job, and sessions with jobs saved and opened again.

#include <catch2/catch.hpp>

#include <QAction>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <set>

#include "document.h"
#include "guitestutil.h"
#include "jobcolors.h"
#include "jobspanel.h"
#include "linkspanel.h"
#include "mainwindow.h"
#include "placejobdialog.h"
#include "render.h"
#include "text.h"
#include "topologyscene.h"
#include "topologyview.h"

namespace {

constexpr const char* kThreeJobs = "ndv5-h100-128-three-jobs-placed-badly.csession";

struct JobsWindow {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    Document* doc = window.document();
    JobsPanel* panel = nullptr;

    explicit JobsWindow(const char* file = kThreeJobs)
    {
        window.setQuiet(true);
        REQUIRE(window.openFile(sampleFile(file)));
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("jobsDock"));
        REQUIRE(dock);
        panel = qobject_cast<JobsPanel*>(dock->widget());
        REQUIRE(panel);
        REQUIRE(evaluated());
    }
    // Until the jobs' evaluation of the document as it is now has arrived.
    bool evaluated()
    {
        return waitUntil([this] { return !doc->hasJobs() || doc->jobsResult(); });
    }
    QAction* action(const char* name) const
    {
        auto* a = window.findChild<QAction*>(QLatin1String(name));
        REQUIRE(a);
        return a;
    }
    std::vector<std::string> names() const
    {
        std::vector<std::string> out;
        for (const cs::RunDesc& r : doc->runs())
            out.push_back(r.name);
        return out;
    }
};

} // namespace

TEST_CASE("the Jobs dock lists every job of the sample with the figures of one evaluation",
          "[jobs][gui]")
{
    JobsWindow f;
    const JobsResult* result = f.doc->jobsResult();
    REQUIRE(result);
    REQUIRE(f.doc->runs().size() == 3);
    QTableWidget* table = f.panel->table();
    REQUIRE(table->rowCount() == 3);
    for (int row = 0; row < 3; ++row) {
        const int job = f.panel->jobAt(row);
        REQUIRE(job >= 0);
        const cs::JobResult& r = result->evaluation.jobs[size_t(job)];
        CHECK(table->item(row, 0)->text().toStdString() == f.doc->runs()[size_t(job)].name);
        CHECK(table->item(row, 1)->text().toStdString() == cs::withThousands(r.alone.gpusUsed));
        CHECK(table->item(row, 2)->text() == stepText(r.alone.stepTimeS));
        CHECK(table->item(row, 3)->text() == stepText(r.shared.stepTimeS));
        CHECK(table->item(row, 0)->font().bold() == (job == 0));
    }
    // Rows in the order of the allocations: the job on rack 0 first.
    CHECK(f.panel->jobAt(0) == 0);
}

TEST_CASE("a document of one job says so in the Jobs dock and evaluates no jobs", "[jobs][gui]")
{
    JobsWindow f("ndv5-h100-128-gpt3-175b.run.json");
    CHECK_FALSE(f.doc->hasJobs());
    CHECK(f.panel->table()->isHidden());
    CHECK(f.panel->summary()->text().contains(QStringLiteral("One job")));
    CHECK(f.doc->jobsResult() == nullptr);
    CHECK_FALSE(f.action("removeJob")->isEnabled());
}

TEST_CASE("showing another job in detail, removing, moving and adding a job: one undo step each",
          "[jobs][gui]")
{
    JobsWindow f;
    QUndoStack* undo = f.doc->undoStack();
    const std::vector<std::string> before = f.names();
    const auto original = f.doc->runs();

    SECTION("choosing a row shows that job in detail")
    {
        const int row = f.panel->rowOf(2);
        f.panel->table()->selectRow(row);
        CHECK(f.doc->run().name == before[2]);
        CHECK(undo->count() == 1);
        CHECK(f.evaluated());
        CHECK(f.panel->table()->item(f.panel->rowOf(0), 0)->font().bold());
        undo->undo();
        CHECK(f.doc->runs() == original);
    }
    SECTION("remove the job shown")
    {
        f.action("removeJob")->trigger();
        CHECK(f.doc->runs().size() == 2);
        CHECK(f.doc->run().name == before[1]);
        CHECK(undo->count() == 1);
        undo->undo();
        CHECK(f.doc->runs() == original);
    }
    SECTION("move a job by its allocation's cell; an overlap is refused and changes nothing")
    {
        const std::vector<int> jobOf = jobOfEachGpu(f.doc->topology(), f.doc->runs());
        std::vector<int> free;
        const auto& racks = f.doc->topology().racks();
        for (size_t r = 0; r < racks.size(); ++r)
            if (jobOf[size_t(racks[r].firstGpu)] < 0)
                free.push_back(int(r));
        const int job = 2;
        const int64_t racksNeeded = f.doc->jobsResult()->evaluation.jobs[job].alone.gpusUsed /
                                    (f.doc->cluster().nodesPerRack * f.doc->cluster().gpusPerNode);
        REQUIRE(int64_t(free.size()) >= racksNeeded);
        QStringList moveTo;
        for (int i = 0; i < racksNeeded; ++i)
            moveTo << QString::number(free[size_t(i)]);
        const int row = f.panel->rowOf(job);
        const int column = f.panel->table()->columnCount() - 1; // the allocation
        f.panel->table()
            ->item(row, column)
            ->setText(QStringLiteral("racks ") + moveTo.join(QStringLiteral(", ")));
        QCoreApplication::processEvents();
        REQUIRE(f.doc->runs()[job].allocation);
        CHECK(f.doc->runs()[job].allocation->ranges.front().first == free.front());
        CHECK(undo->count() == 1);
        CHECK(f.evaluated());

        f.panel->table()->item(f.panel->rowOf(job), column)->setText(QStringLiteral("racks 0-3"));
        QCoreApplication::processEvents();
        CHECK(undo->count() == 1);
        // The same racks typed again: no step.
        const QString same = f.panel->table()->item(f.panel->rowOf(job), column)->text();
        f.panel->table()->item(f.panel->rowOf(job), column)->setText(same + QStringLiteral(" "));
        QCoreApplication::processEvents();
        CHECK(undo->count() == 1);
        CHECK(f.window.lastProblem().contains(QStringLiteral("not applied")));
        undo->undo();
        CHECK(f.doc->runs() == original);
    }
    SECTION("add a copy of the job shown on the first free racks")
    {
        f.action("removeJob")->trigger(); // frees the first racks
        f.action("addJobCopy")->trigger();
        INFO(f.window.lastProblem().toStdString());
        REQUIRE(f.doc->runs().size() == 3);
        const cs::RunDesc added = f.doc->runs().back();
        CHECK(added.name == f.doc->run().name + " 2");
        REQUIRE(added.allocation);
        CHECK(added.allocation->ranges.front().first == 0);
        CHECK(added.allocation->ranges.size() > 1); // the first free racks, not in one row
        CHECK(undo->count() == 2);
        CHECK(f.window.isWindowModified());
        undo->undo();
        undo->undo();
        CHECK(f.doc->runs() == original);
        CHECK_FALSE(f.window.isWindowModified());
    }
}

TEST_CASE("colour by job: each allocation in its job's colour, GPUs of no job grey", "[jobs][gui]")
{
    JobsWindow f;
    cs::ViewState view = f.doc->view();
    view.colorBy = {cs::ColorKind::Job};
    f.doc->setView(view);
    TopologyScene* scene = f.window.topologyView()->scene();
    REQUIRE(scene);
    const GpuColors& colors = scene->renderer().gpuColors();
    const std::vector<int> jobOf = jobOfEachGpu(f.doc->topology(), f.doc->runs());
    std::set<int> seen;
    for (size_t g = 0; g < jobOf.size(); ++g) {
        const QRgb expected = jobOf[g] < 0 ? kIdleGrey : categoricalColor(jobOf[g]).rgb();
        if (colors.colorOf(int(g)) != expected)
            FAIL("GPU " << g << " of job " << jobOf[g] << " has the wrong colour");
        seen.insert(jobOf[g]);
    }
    CHECK(seen == std::set<int>{-1, 0, 1, 2});
    CHECK(scene->legend().entries.size() == 4); // three jobs and "no job"
    // The job shown in detail is lit: its allocation outlined, its links drawn.
    CHECK_FALSE(scene->renderer().jobLight().areas.empty());
    CHECK_FALSE(scene->renderer().jobLight().links.empty());
}

TEST_CASE("the Links dock lists every job's traffic and names the jobs on each link", "[jobs][gui]")
{
    JobsWindow f;
    auto* dock = f.window.findChild<QDockWidget*>(QStringLiteral("linksDock"));
    REQUIRE(dock);
    f.window.show();
    dock->show();
    dock->raise();
    auto* links = qobject_cast<LinksPanel*>(dock->widget());
    REQUIRE(links);
    REQUIRE(waitUntil([links] { return links->table()->rowCount() > 0; }));
    const int jobsColumn = links->table()->columnCount() - 1;
    CHECK_FALSE(links->table()->isColumnHidden(jobsColumn));
    // The busiest link carries some job's traffic, named as the job is.
    std::set<std::string> jobNames;
    for (const cs::RunDesc& r : f.doc->runs())
        jobNames.insert(r.name);
    const QString names = links->table()->item(0, jobsColumn)->text();
    REQUIRE(names != QStringLiteral("-"));
    for (const QString& name : names.split(QStringLiteral(", ")))
        CHECK(jobNames.count(name.toStdString()) == 1);
    // A link's tooltip names them too.
    const int link = links->linkAt(0);
    const QString tip = f.window.topologyView()->scene()->describe({HitKind::Link, link});
    CHECK(tip.contains(QStringLiteral("Jobs on it: ") + names));
    // The document's evaluation (status bar, breakdown, timeline) is the job shown with the
    // others running, the same figure as the dock's; the status bar adds the step alone.
    const cs::JobResult& shown = f.doc->jobsResult()->evaluation.jobs.front();
    CHECK(shown.shared.stepTimeS > shown.alone.stepTimeS); // the badly placed sample
    CHECK(f.doc->evaluation().stepTimeS == shown.shared.stepTimeS);
    auto* figure = f.window.findChild<QLabel*>(QStringLiteral("stepFigure"));
    REQUIRE(figure);
    CHECK(figure->text().startsWith(QStringLiteral("Step ") + stepText(shown.shared.stepTimeS)));
    CHECK(figure->text().contains(stepText(shown.alone.stepTimeS) + QStringLiteral(" alone")));
}

TEST_CASE("Place Job ranks the free allocations and Apply adds the job there as one undo step",
          "[jobs][gui]")
{
    JobsWindow f;
    f.action("removeJob")->trigger(); // frees the largest job's racks
    f.panel->table()->selectRow(f.panel->rowOf(int(f.doc->runs().size()) - 1)); // the smallest
    REQUIRE(f.evaluated());
    const size_t jobs = f.doc->runs().size();
    f.action("placeJob")->trigger();
    PlaceJobDialog* dialog = nullptr;
    REQUIRE(waitUntil(
        [&] {
            dialog = f.window.findChild<PlaceJobDialog*>();
            return dialog && dialog->table()->rowCount() > 0;
        },
        20000));
    const cs::Allocation best = dialog->result().placements.front().allocation;
    REQUIRE(dialog->applyButton()->isEnabled());
    dialog->applyButton()->click();
    REQUIRE(f.doc->runs().size() == jobs + 1);
    CHECK(f.doc->runs().back().allocation == best);
    CHECK(f.doc->undoStack()->undoText().startsWith(QStringLiteral("Place Job")));
    f.doc->undoStack()->undo();
    CHECK(f.doc->runs().size() == jobs);
}

TEST_CASE("a session with jobs saves and opens again with the same jobs", "[jobs][gui]")
{
    JobsWindow f;
    f.action("removeJob")->trigger();
    const auto runs = f.doc->runs();
    const QString path = f.dir.filePath(QStringLiteral("jobs.csession"));
    REQUIRE(f.window.saveTo(path));
    CHECK_FALSE(f.window.isWindowModified());
    MainWindow again(f.dir.path() + QStringLiteral("/again"));
    again.setQuiet(true);
    REQUIRE(again.openFile(path));
    CHECK(again.document()->runs() == runs);
}

TEST_CASE("a picture made with --render colours a session's jobs by job as the window does",
          "[jobs][gui]")
{
    QTemporaryDir dir;
    RenderRequest request;
    request.input = sampleFile(kThreeJobs);
    request.output = dir.filePath(QStringLiteral("jobs.png"));
    request.size = {800, 500};
    request.colorBy = QStringLiteral("job");
    REQUIRE(renderToPng(request) == 0);
    const QImage image(request.output);
    REQUIRE_FALSE(image.isNull());
    std::set<QRgb> jobColours;
    for (int j = 0; j < 3; ++j)
        jobColours.insert(categoricalColor(j).rgb());
    std::set<QRgb> seen;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (jobColours.count(image.pixel(x, y)))
                seen.insert(image.pixel(x, y));
    CHECK(seen == jobColours); // every job's GPUs, not the grey of a mode nobody coloured
}
