#include "jobsviews.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QTableWidget>
#include <QTimer>
#include <QUndoStack>
#include <algorithm>

#include "allocationtext.h"
#include "backgroundwork.h"
#include "document.h"
#include "documentio.h"
#include "editcommands.h"
#include "jobcolors.h"
#include "jobsedit.h"
#include "jobspanel.h"
#include "placejobdialog.h"
#include "placement.h"
#include "propertiespanel.h"
#include "text.h"
#include "topologyscene.h"
#include "topologyview.h"

namespace {

QString qtext(const std::string& s)
{
    return QString::fromStdString(cs::printable(s));
}

// "racks 0-3, 8-11", "the whole cluster": as the dock, the Properties panel and the CLI say it.
QString allocationWords(const std::optional<cs::Allocation>& allocation)
{
    return QString::fromStdString(cs::allocationText(allocation));
}

// The other job whose traffic costs job `j` most, and how much; "-" when none does.
QString slowedByText(const JobsResult& result, size_t j)
{
    const std::vector<double>& by = result.evaluation.jobs[j].slowedByS;
    const auto most = std::max_element(by.begin(), by.end());
    if (most == by.end() || *most <= 0)
        return QStringLiteral("-");
    return QObject::tr("+%1 by %2")
        .arg(QString::fromStdString(cs::stepTimeText(*most)),
             qtext(result.runs[size_t(most - by.begin())].name));
}

int firstIndexOf(const cs::RunDesc& run)
{
    if (!run.allocation || run.allocation->ranges.empty())
        return 0;
    int first = run.allocation->ranges.front().first;
    for (const auto& range : run.allocation->ranges)
        first = std::min(first, range.first);
    // Nodes and racks in one order: a rack's first node.
    return run.allocation->unit == cs::Allocation::Unit::Racks ? first * 1'000'000 : first;
}

class JobsViews : public QObject {
public:
    JobsViews(QMainWindow* window, Document* doc, TopologyView* view, QMenu* tools,
              std::function<void(const QString&)> report)
        : QObject(window)
        , m_window(window)
        , m_report(std::move(report))
        , m_doc(doc)
        , m_view(view)
        , m_panel(new JobsPanel(window))
        , m_properties(window->findChild<PropertiesPanel*>())
    {
        m_dock = new QDockWidget(tr("Jobs"), window);
        m_dock->setObjectName(QStringLiteral("jobsDock"));
        m_dock->setWidget(m_panel);
        window->addDockWidget(Qt::RightDockWidgetArea, m_dock);
        createActions(tools);
        view->addSceneHooks([this](TopologyScene& scene) {
            scene.addColorSource(jobColorSource(*m_doc));
            light(scene);
        });
        connect(doc, &Document::modelChanged, this, &JobsViews::refresh);
        connect(doc, &Document::jobsEvaluated, this, &JobsViews::showResult);
        connect(doc, &Document::sessionReplaced, this, [this] {
            if (m_doc->hasJobs())
                m_dock->raise();
        });
        connect(m_panel, &JobsPanel::jobChosen, this, &JobsViews::showJob);
        // Queued: the move refills the table, which must not happen inside its own signal.
        connect(m_panel, &JobsPanel::allocationEdited, this, &JobsViews::moveJobFromDock,
                Qt::QueuedConnection);
        if (m_properties)
            connect(m_properties, &PropertiesPanel::allocationEdited, this,
                    &JobsViews::moveJobFromProperties);
    }

private:
    void createActions(QMenu* tools)
    {
        QMenu* jobs = new QMenu(tr("&Jobs"), m_window);
        jobs->setObjectName(QStringLiteral("jobsMenu"));
        m_window->menuBar()->insertMenu(tools->menuAction(), jobs);
        QAction* copy = jobs->addAction(tr("Add &Copy of This Job"), this,
                                        [this] { addJob(m_doc->run(), tr("copy")); });
        copy->setObjectName(QStringLiteral("addJobCopy"));
        copy->setStatusTip(
            tr("The job shown in detail again, on the first free racks that fit it"));
        QAction* file = jobs->addAction(tr("Add Job from &File..."), this, [this] {
            const QString path = QFileDialog::getOpenFileName(
                m_window, tr("Add Job from a Run"), QString(),
                tr("Runs and sessions (*.json *.csession);;All files (*)"));
            if (!path.isEmpty())
                addJobFromFile(path);
        });
        file->setObjectName(QStringLiteral("addJobFile"));
        file->setStatusTip(tr("A run file's job on the first free racks that fit it"));
        m_remove = jobs->addAction(tr("&Remove This Job"), this, &JobsViews::removeJob);
        m_remove->setObjectName(QStringLiteral("removeJob"));
        m_remove->setStatusTip(tr("Take the job shown in detail off the cluster; the next one "
                                  "is shown"));
        QAction* place = tools->addAction(tr("&Place Job..."), this, &JobsViews::placeJob);
        place->setObjectName(QStringLiteral("placeJob"));
        place->setStatusTip(tr("Rank the free allocations for a new job by its step and by what "
                               "it costs the jobs running, and apply one"));
        jobs->addSeparator();
        jobs->addAction(place);
        m_panel->addButtons({copy, file, m_remove, place});
    }

    std::vector<cs::RunDesc> runsWithAllocations() const
    {
        std::vector<cs::RunDesc> runs = m_doc->runs();
        runs.front() = withOwnRacks(runs.front(), m_doc->topology(), m_doc->placement());
        return runs;
    }

    // The run sized to give its dp (the job shown in detail's GPUs when it derives it).
    cs::RunDesc sized(cs::RunDesc run) const
    {
        cs::Parallelism& p = run.parallelism;
        if (p.dp <= 0)
            p.dp = std::max(1, int(m_doc->evaluation().gpusUsed / std::max(1, p.tp * p.cp * p.pp)));
        return run;
    }

    void addJob(cs::RunDesc run, const QString& what)
    {
        std::vector<cs::RunDesc> runs = runsWithAllocations();
        run = sized(std::move(run));
        run.name = freeName(run.name, runs);
        const auto racks =
            firstFreeRacks(m_doc->topology(), runs, gpusNeeded(run, m_doc->evaluation().gpusUsed));
        if (!racks) {
            refuse(tr("The free racks do not hold the %1 GPUs of %2. Remove a job or make one "
                      "smaller.")
                       .arg(gpusNeeded(run, 0))
                       .arg(qtext(run.name)));
            return;
        }
        run.allocation = racks;
        const QString name = qtext(run.name);
        runs.push_back(std::move(run));
        push(std::move(runs), tr("Add Job %1 (%2) on %3").arg(name, what, allocationWords(racks)));
    }

    void addJobFromFile(const QString& path)
    {
        QString problems;
        const auto session = loadSessionFromFile(path, &problems);
        if (!session) {
            refuse(tr("%1 cannot be read:\n%2").arg(path, problems));
            return;
        }
        addJob(session->run, tr("from %1").arg(QFileInfo(path).fileName()));
    }

    void removeJob()
    {
        if (!m_doc->hasJobs())
            return;
        std::vector<cs::RunDesc> runs = m_doc->runs();
        const QString name = qtext(runs.front().name);
        runs.erase(runs.begin());
        push(std::move(runs), tr("Remove Job %1").arg(name));
    }

    void showJob(int job)
    {
        const std::vector<cs::RunDesc> runs = m_doc->runs();
        if (job <= 0 || job >= int(runs.size()))
            return;
        JobsEdit edit = showInDetail(runs, job);
        const QString text = tr("Show Job %1 in Detail").arg(qtext(edit.run.name));
        m_doc->undoStack()->push(new EditJobsCommand(m_doc, edit.run, edit.jobs, text));
    }

    // Job `job` to the allocation typed, as one undo step (none when it is where it was): why
    // not, when the text is no allocation or the jobs would not fit together; else empty.
    QString moveJob(int job, const QString& text)
    {
        std::vector<cs::RunDesc> runs = m_doc->runs();
        if (job < 0 || job >= int(runs.size()))
            return {};
        std::string why;
        const auto allocation = cs::parseAllocation(text.toStdString(), &why);
        if (!allocation)
            return tr("\"%1\" is not an allocation: %2.")
                .arg(qtext(text.toStdString()), QString::fromStdString(why));
        if (runs[size_t(job)].allocation == allocation)
            return {};
        runs[size_t(job)].allocation = allocation;
        const QString name = qtext(runs[size_t(job)].name);
        return tryPush(std::move(runs),
                       tr("Move Job %1 to %2").arg(name, allocationWords(allocation)));
    }

    void moveJobFromDock(int job, const QString& text)
    {
        const std::vector<cs::RunDesc> before = m_doc->runs();
        if (const QString why = moveJob(job, text); !why.isEmpty())
            refuse(why);
        if (m_doc->runs() == before) // refused or where it was: the jobs' figures again
            fillRows(m_doc->jobsResult());
    }

    // The job shown in detail; a refusal is shown in the panel, beside the field.
    void moveJobFromProperties(const QString& text)
    {
        const QString why = moveJob(0, text);
        if (!why.isEmpty())
            m_window->statusBar()->showMessage(why.section(QLatin1Char('\n'), 0, 0), 15'000);
        m_properties->showAllocationRefused(why);
    }

    void placeJob()
    {
        auto* dialog = new PlaceJobDialog(m_doc->cluster(), sized(m_doc->run()),
                                          runsWithAllocations(), m_window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &PlaceJobDialog::placed, this, [this](const cs::RunDesc& placed) {
            std::vector<cs::RunDesc> runs = runsWithAllocations();
            cs::RunDesc run = placed;
            run.name = freeName(run.name, runs);
            const QString name = qtext(run.name);
            const QString where = allocationWords(run.allocation);
            runs.push_back(std::move(run));
            push(std::move(runs), tr("Place Job %1 on %2").arg(name, where));
        });
        dialog->open();
        // Once it shows: the ranking's progress dialog stands over it.
        QTimer::singleShot(0, dialog, [dialog, copy = sized(m_doc->run())] { dialog->rank(copy); });
    }

    // One undo step, when the jobs are valid together; else why not.
    QString tryPush(std::vector<cs::RunDesc> runs, const QString& text)
    {
        const QString problems = jobsProblems(m_doc->cluster(), runs);
        if (!problems.isEmpty())
            return tr("%1 is not applied:\n%2").arg(text, problems);
        JobsEdit edit = splitRuns(std::move(runs));
        m_doc->undoStack()->push(new EditJobsCommand(m_doc, edit.run, edit.jobs, text));
        return {};
    }
    void push(std::vector<cs::RunDesc> runs, const QString& text)
    {
        if (const QString why = tryPush(std::move(runs), text); !why.isEmpty())
            refuse(why);
    }

    void refuse(const QString& why)
    {
        m_window->statusBar()->showMessage(why.section(QLatin1Char('\n'), 0, 0), 15'000);
        m_report(why);
    }

    void refresh()
    {
        m_remove->setEnabled(m_doc->hasJobs());
        if (!m_doc->hasModel())
            return;
        if (m_properties)
            m_properties->showAllocation(m_doc->hasJobs() || m_doc->run().allocation);
        if (!m_doc->hasJobs()) {
            m_panel->setSingleJob(qtext(m_doc->run().name));
            return;
        }
        fillRows(nullptr);
        // An edit of the cluster or the run may leave the jobs at odds (a rack gone, a dp that
        // no longer fits an allocation): said, not evaluated.
        if (const QString problems = jobsProblems(m_doc->cluster(), m_doc->runs());
            !problems.isEmpty()) {
            m_panel->summary()->setText(
                tr("The jobs do not fit the cluster together: %1").arg(problems));
            return;
        }
        // Every job at once: one evaluation of all of them, off the GUI thread.
        m_work.start(this,
                     [cluster = m_doc->cluster(), runs = m_doc->runs(),
                      doc = m_doc](const std::atomic<bool>& cancelled) -> std::function<void()> {
                         auto result = std::make_shared<JobsResult>();
                         result->runs = runs;
                         result->evaluation = cs::evaluateJobs(cluster, runs);
                         if (cancelled)
                             return {};
                         const cs::Topology topology(cluster);
                         result->traffic = cs::jobsTraffic(topology, runs, result->evaluation);
                         return [doc, result = std::shared_ptr<const JobsResult>(result)] {
                             if (result->runs == doc->runs())
                                 doc->setJobsResult(result);
                         };
                     });
    }

    void fillRows(const JobsResult* result)
    {
        const std::vector<cs::RunDesc> runs = m_doc->runs();
        std::vector<JobsPanel::Row> rows;
        for (size_t j = 0; j < runs.size(); ++j) {
            JobsPanel::Row row;
            row.job = int(j);
            row.name = qtext(runs[j].name);
            row.allocation = allocationWords(runs[j].allocation);
            row.firstIndex = firstIndexOf(runs[j]);
            if (result) {
                const cs::JobResult& r = result->evaluation.jobs[j];
                row.gpus = r.alone.gpusUsed;
                row.aloneS = r.alone.stepTimeS;
                row.sharedS = r.shared.stepTimeS;
                row.slowedBy = slowedByText(*result, j);
            }
            rows.push_back(std::move(row));
        }
        m_panel->setRows(std::move(rows), result == nullptr);
    }

    void showResult()
    {
        const JobsResult* result = m_doc->jobsResult();
        if (!result)
            return;
        fillRows(result);
        if (TopologyScene* scene = m_view->scene()) {
            light(*scene);
            m_view->update();
        }
    }

    // The job shown in detail: its allocation and, once evaluated, its traffic.
    void light(TopologyScene& scene) const
    {
        if (!m_doc->hasJobs()) {
            scene.renderer().setJobLight({});
            return;
        }
        const std::vector<int> jobOf = jobOfEachGpu(m_doc->topology(), m_doc->runs());
        const JobsResult* result = m_doc->jobsResult();
        scene.renderer().setJobLight(
            jobLight(scene.layout(), jobOf, 0, result ? &result->traffic : nullptr));
    }

    QMainWindow* m_window;
    std::function<void(const QString&)> m_report;
    Document* m_doc;
    TopologyView* m_view;
    JobsPanel* m_panel;
    PropertiesPanel* m_properties; // its Allocation moves the job shown in detail
    QDockWidget* m_dock = nullptr;
    QAction* m_remove = nullptr;
    LatestWork m_work;
};

} // namespace

const cs::StepTraffic& linkLoadTraffic(const Document& doc)
{
    if (const JobsResult* jobs = doc.jobsResult(); jobs && doc.hasJobs())
        return jobs->traffic.total;
    return doc.stepTraffic();
}

const cs::StepTraffic& sceneTraffic(const Document& doc, const cs::ColorMode& mode)
{
    return mode.kind == cs::ColorKind::LinkLoad ? linkLoadTraffic(doc) : doc.stepTraffic();
}

TopologyScene::ColorSource jobColorSource(const Document& doc)
{
    return [&doc](const cs::ColorMode& mode) -> std::optional<GpuColoring> {
        if (mode.kind != cs::ColorKind::Job || !doc.hasModel())
            return std::nullopt;
        return jobColoring(doc.topology(), doc.runs());
    };
}

void addJobsViews(QMainWindow* window, Document* document, TopologyView* view, QMenu* toolsMenu,
                  std::function<void(const QString&)> report)
{
    new JobsViews(window, document, view, toolsMenu, std::move(report));
}
