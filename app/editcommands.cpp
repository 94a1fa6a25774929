#include "editcommands.h"

#include "document.h"

EditModelCommand::EditModelCommand(Document* doc, cs::ClusterDesc cluster, cs::RunDesc run,
                                   const QString& text, int mergeId)
    : QUndoCommand(text)
    , m_doc(doc)
    , m_before{doc->cluster(), doc->run()}
    , m_after{std::move(cluster), std::move(run)}
    , m_mergeId(mergeId)
{
}

void EditModelCommand::undo()
{
    m_doc->setClusterRun(m_before.cluster, m_before.run);
}

void EditModelCommand::redo()
{
    m_doc->setClusterRun(m_after.cluster, m_after.run);
}

bool EditModelCommand::mergeWith(const QUndoCommand* other)
{
    const auto* next = static_cast<const EditModelCommand*>(other);
    if (next->m_doc != m_doc)
        return false;
    m_after = next->m_after;
    setObsolete(m_after == m_before);
    return true;
}

SetCompareCommand::SetCompareCommand(Document* doc, std::optional<cs::ClusterRun> compare,
                                     const QString& text)
    : QUndoCommand(text)
    , m_doc(doc)
    , m_before(doc->session().compare)
    , m_after(std::move(compare))
{
}

void SetCompareCommand::undo()
{
    m_doc->setCompare(m_before);
}

void SetCompareCommand::redo()
{
    m_doc->setCompare(m_after);
}

SetBookmarksCommand::SetBookmarksCommand(Document* doc, std::vector<cs::Bookmark> bookmarks,
                                         const QString& text)
    : QUndoCommand(text)
    , m_doc(doc)
    , m_before(doc->bookmarks())
    , m_after(std::move(bookmarks))
{
}

void SetBookmarksCommand::undo()
{
    m_doc->setBookmarks(m_before);
}

void SetBookmarksCommand::redo()
{
    m_doc->setBookmarks(m_after);
}

EditJobsCommand::EditJobsCommand(Document* doc, cs::RunDesc run, std::vector<cs::RunDesc> jobs,
                                 const QString& text)
    : QUndoCommand(text)
    , m_doc(doc)
    , m_before{doc->run(), doc->jobs()}
    , m_after{std::move(run), std::move(jobs)}
{
}

void EditJobsCommand::undo()
{
    m_doc->setJobs(m_before.first, m_before.second);
}

void EditJobsCommand::redo()
{
    m_doc->setJobs(m_after.first, m_after.second);
}
