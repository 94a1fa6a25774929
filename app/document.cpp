#include "document.h"

#include <QFileInfo>
#include <QUndoStack>

#include "jobs.h"
#include "jobsedit.h"

QString storedPath(const QString& path)
{
    if (path.isEmpty())
        return path;
    const QFileInfo file(path);
    const QString canonical = file.canonicalFilePath();
    return canonical.isEmpty() ? file.absoluteFilePath() : canonical;
}

Document::Document(QObject* parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this,
            [this](bool clean) { emit modifiedChanged(!clean); });
}

Document::~Document() = default;

void Document::setSession(cs::Session session, const QString& filePath)
{
    m_session = std::move(session);
    m_view = m_session.view.value_or(cs::ViewState{});
    m_filePath = storedPath(filePath);
    m_sourcePath.clear();
    m_undo->clear();
    rebuild(false);
    emit filePathChanged();
    emit modelChanged();
    emit viewChanged();
    emit bookmarksChanged();
    emit extensionsChanged();
    emit sessionReplaced();
}

void Document::setClusterRun(const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    m_session.cluster = cluster;
    m_session.run = run;
    rebuild(true);
    emit modelChanged();
}

void Document::setJobs(const cs::RunDesc& run, const std::vector<cs::RunDesc>& jobs)
{
    m_session.run = run;
    m_session.jobs = jobs;
    rebuild(true);
    emit modelChanged();
}

void Document::setJobsResult(std::shared_ptr<const JobsResult> result)
{
    m_jobsResult = std::move(result);
    emit jobsEvaluated();
}

void Document::setView(const cs::ViewState& view)
{
    if (view == m_view)
        return;
    m_view = view;
    emit viewChanged();
}

void Document::setBookmarks(const std::vector<cs::Bookmark>& bookmarks)
{
    m_session.bookmarks = bookmarks;
    emit bookmarksChanged();
}

void Document::setExtensions(const cs::Extensions& extensions)
{
    m_session.extensions = extensions;
    emit extensionsChanged();
}

void Document::setCompare(const std::optional<cs::ClusterRun>& compare)
{
    m_session.compare = compare;
    emit modelChanged();
}

bool Document::isModified() const
{
    return !m_undo->isClean();
}

void Document::markSaved(const QString& filePath)
{
    m_undo->setClean();
    setFilePath(filePath);
}

void Document::setFilePath(const QString& path)
{
    m_filePath = storedPath(path);
    emit filePathChanged();
}

void Document::setSourcePath(const QString& path)
{
    m_sourcePath = storedPath(path);
    emit filePathChanged();
}

cs::Session Document::sessionToSave() const
{
    cs::Session s = m_session;
    s.view = m_view;
    return s;
}

const cs::StepTraffic& Document::stepTraffic() const
{
    if (!m_traffic)
        m_traffic = cs::stepTraffic(*m_topology, m_session.run, m_evaluation.stepTimeS);
    return *m_traffic;
}

const cs::Router& Document::router() const
{
    if (!m_router)
        m_router = std::make_unique<cs::Router>(*m_topology);
    return *m_router;
}

const cs::Uncertainty& Document::range() const
{
    if (!m_range)
        m_range = cs::uncertaintyOf(m_evaluation.stepTimeS,
                                    cs::likenessOf(m_session.cluster, m_session.run),
                                    cs::shippedReferenceRuns(cs::defaultCalibration()));
    return *m_range;
}

void Document::rebuild(bool keepDevices)
{
    m_range.reset();
    m_traffic.reset();
    m_router.reset();
    m_jobsResult.reset();
    // Most edits (a rate, the GPU's figures, the run) leave the racks, nodes, fabric and
    // failures as they were: building 8,192 GPUs' graph again was a large part of such an edit.
    if (!keepDevices || !m_topology || !m_topology->retime(m_session.cluster))
        m_topology = std::make_unique<cs::Topology>(m_session.cluster);
    m_placement = std::make_unique<cs::Placement>(cs::placeRun(m_session.run, m_session.cluster));
    m_evaluation = evaluateShown();
}

cs::Evaluation Document::evaluateShown() const
{
    // Jobs that do not fit together are evaluated alone; the Jobs dock says why.
    if (!hasJobs() || !jobsProblems(m_session.cluster, runs()).isEmpty())
        return cs::evaluate(m_session.cluster, m_session.run);
    return cs::evaluateJob(m_session.cluster, runs(), 0);
}
