#pragma once
// Every change to a document is one undo command.

#include <QUndoCommand>

#include "description.h"

class Document;

// Replaces the cluster and run. Consecutive edits of the same field (typing in a spin box)
// merge into one command.
class EditModelCommand : public QUndoCommand {
public:
    EditModelCommand(Document* doc, cs::ClusterDesc cluster, cs::RunDesc run, const QString& text,
                     int mergeId = -1);
    void undo() override;
    void redo() override;
    int id() const override { return m_mergeId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    Document* m_doc;
    cs::ClusterRun m_before;
    cs::ClusterRun m_after;
    int m_mergeId;
};

class SetCompareCommand : public QUndoCommand {
public:
    SetCompareCommand(Document* doc, std::optional<cs::ClusterRun> compare, const QString& text);
    void undo() override;
    void redo() override;

private:
    Document* m_doc;
    std::optional<cs::ClusterRun> m_before;
    std::optional<cs::ClusterRun> m_after;
};

class SetBookmarksCommand : public QUndoCommand {
public:
    SetBookmarksCommand(Document* doc, std::vector<cs::Bookmark> bookmarks, const QString& text);
    void undo() override;
    void redo() override;

private:
    Document* m_doc;
    std::vector<cs::Bookmark> m_before;
    std::vector<cs::Bookmark> m_after;
};

// Replaces the run and the other jobs on the cluster (add, remove or move a job, or show
// another job in detail).
class EditJobsCommand : public QUndoCommand {
public:
    EditJobsCommand(Document* doc, cs::RunDesc run, std::vector<cs::RunDesc> jobs,
                    const QString& text);
    void undo() override;
    void redo() override;

private:
    Document* m_doc;
    std::pair<cs::RunDesc, std::vector<cs::RunDesc>> m_before;
    std::pair<cs::RunDesc, std::vector<cs::RunDesc>> m_after;
};
