#pragma once
// The open document: a session (cluster, run, view, bookmarks) and what the model derives
// from it (topology, placement, evaluation). Views read it and listen to its signals.

#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "costmodel.h"
#include "description.h"
#include "jobs.h"
#include "linkloads.h"
#include "placement.h"
#include "routing.h"
#include "topology.h"
#include "uncertainty.h"

class QUndoStack;

// Every job of a document evaluated together (cs::evaluateJobs) and the links each one's
// traffic crosses (cs::jobsTraffic), for the runs as they were when it was worked out.
struct JobsResult {
    std::vector<cs::RunDesc> runs; // the document's run first, then its other jobs
    cs::JobsEvaluation evaluation;
    cs::JobsTraffic traffic;
};

// The path a document keeps for `path`: canonical (links and ".." resolved) when the file
// exists, else absolute; empty stays empty.
QString storedPath(const QString& path);

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    // Replaces everything; clears undo history. The session must be valid. Every path the
    // document keeps is absolute and canonical (storedPath): a path as typed would name another
    // file once the working directory changes (a recovery restored elsewhere).
    void setSession(cs::Session session, const QString& filePath);
    // Replaces cluster and run (an edit): derived data is rebuilt and modelChanged emitted.
    void setClusterRun(const cs::ClusterDesc& cluster, const cs::RunDesc& run);
    // Replaces the run and the other jobs on the cluster (an edit): as setClusterRun.
    void setJobs(const cs::RunDesc& run, const std::vector<cs::RunDesc>& jobs);
    void setView(const cs::ViewState& view);
    void setBookmarks(const std::vector<cs::Bookmark>& bookmarks);
    // The run shown beside this one (charts); nothing clears it.
    void setCompare(const std::optional<cs::ClusterRun>& compare);
    const std::vector<cs::Bookmark>& bookmarks() const { return m_session.bookmarks; }
    // The session's `notes` and `x-*` members (a measured profile's figures are kept there).
    void setExtensions(const cs::Extensions& extensions);
    // Unsaved changes: edits on the undo stack since the last save or load.
    bool isModified() const;
    void markSaved(const QString& filePath);

    const cs::Session& session() const { return m_session; }
    const cs::ClusterDesc& cluster() const { return m_session.cluster; }
    const cs::RunDesc& run() const { return m_session.run; }
    // The other jobs beside the run (formats.md "Several jobs on one cluster").
    const std::vector<cs::RunDesc>& jobs() const { return m_session.jobs; }
    bool hasJobs() const { return !m_session.jobs.empty(); }
    // Every job: the run first, then the others.
    std::vector<cs::RunDesc> runs() const { return cs::sessionRuns(m_session); }
    // The jobs evaluated together: worked out off the GUI thread after each change (the Jobs
    // views), null until then and in a document of one job.
    const JobsResult* jobsResult() const { return m_jobsResult.get(); }
    void setJobsResult(std::shared_ptr<const JobsResult> result);
    const cs::ViewState& view() const { return m_view; }
    // False until the first session: topology, placement and evaluation do not exist yet.
    bool hasModel() const { return m_topology != nullptr; }
    const cs::Topology& topology() const { return *m_topology; }
    const cs::Placement& placement() const { return *m_placement; }
    const cs::Evaluation& evaluation() const { return m_evaluation; }
    // Where the measured step should lie, from the same evaluation (the first call evaluates the
    // measured runs that ship, once for the process).
    const cs::Uncertainty& range() const;
    // The step's traffic on every link and the routes it takes: computed when first asked for
    // (only the link views need them), kept until the model changes.
    const cs::StepTraffic& stepTraffic() const;
    const cs::Router& router() const;

    QString filePath() const { return m_filePath; }
    void setFilePath(const QString& path);
    // The run or cluster file the document was opened from, when it is not a session file
    // (the title names it; Save As offers a session beside it). A new session clears it.
    QString sourcePath() const { return m_sourcePath; }
    void setSourcePath(const QString& path);
    QUndoStack* undoStack() const { return m_undo; }
    // The session as it would be saved now (the current view included).
    cs::Session sessionToSave() const;

signals:
    // Cluster or run changed: placement and evaluation are new, and so is the topology unless
    // the devices stayed (then it is the same object with the new rates, Topology::retime).
    void modelChanged();
    void jobsEvaluated(); // jobsResult is new
    void viewChanged();
    void filePathChanged();
    void bookmarksChanged();
    void extensionsChanged(); // setExtensions, or a new session
    void modifiedChanged(bool modified);
    // Another session took this one's place (setSession), after the signals above: what a
    // view keeps of the last document (the timeline's zoom) starts over.
    void sessionReplaced();

private:
    // `keepDevices`: an edit, whose topology is kept when the devices are (cs::sameDevices)
    // and only its rates taken anew; a new session builds everything.
    void rebuild(bool keepDevices);
    // The run shown in detail, with the other jobs running when the session has any: the
    // evaluation every view of the document reads.
    cs::Evaluation evaluateShown() const;

    cs::Session m_session;
    cs::ViewState m_view;
    std::unique_ptr<cs::Topology> m_topology;
    std::unique_ptr<cs::Placement> m_placement;
    cs::Evaluation m_evaluation;
    mutable std::optional<cs::StepTraffic> m_traffic;
    mutable std::optional<cs::Uncertainty> m_range;
    mutable std::unique_ptr<cs::Router> m_router;
    std::shared_ptr<const JobsResult> m_jobsResult;
    QString m_filePath;
    QString m_sourcePath;
    QUndoStack* m_undo = nullptr;
};
