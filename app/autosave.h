#pragma once
// Writes unsaved changes to a recovery file on a timer, so a crash or kill loses at most one
// interval of work; the next start offers the recovery file back.
//
// Every running ClusterScope has its own recovery file, locked (QLockFile) while it runs, and
// says beside it which file it has open. Only recovery files whose lock is stale (their owner
// died) are offered, so one instance never restores or discards another's live work; the locks
// and notes such an instance left are removed at the next start.

#include <QDateTime>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "description.h"
#include "documentio.h"

class Document;
class QLockFile;
class QTimer;

class Autosaver : public QObject {
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 30'000;

    // Removes the locks and notes of instances that are gone, and claims a recovery file of its
    // own in recoveryDir.
    Autosaver(Document* doc, QString recoveryDir, int intervalMs = kIntervalMs,
              QObject* parent = nullptr);
    // Releases the lock and keeps the recovery file: only discard() or a save removes it.
    ~Autosaver() override;

    QString recoveryPath() const { return m_path; }
    // Writes the recovery file when the document has unsaved changes. False, with writeFailed,
    // when it could not be written or would not load again: the previous recovery file then
    // stays as it was. The timer writes the same on a worker (writeInBackground): a session
    // near the size limits takes a second to write and check, and the window keeps answering.
    bool writeNow();
    // Removes the recovery file: its changes are saved, or were given up.
    void discard();
    // What the document's file held when it was opened or saved; kept in the recovery file, so
    // that a restored session still notices the file changing on disk.
    void setOriginState(const std::optional<DiskState>& state) { m_originState = state; }

    // The default place: the application's data directory.
    static QString defaultRecoveryDir();

    // A recovery file left by an instance that is no longer running, claimed (locked) by this
    // one while the object lives.
    class Recovery {
    public:
        // Why the file cannot be read (then the session is empty): the user is told, and the
        // file is kept for them under another name (setAside).
        QString problem;
        cs::Session session;
        QString originalPath; // the file the changes belong to; empty for an untitled one
        // An origin kept as typed (by versions before paths were absolute): not trusted.
        QString relativeOrigin;
        std::optional<DiskState> originState;
        QString path;
        QDateTime autosavedAt;
        ~Recovery();
        // Deletes the recovery file.
        void discard();
        // Renames an unreadable recovery file so that it is neither offered nor reported again;
        // returns its new path (empty when it could not be renamed, and stays).
        QString setAside();

    private:
        friend class Autosaver;
        std::unique_ptr<QLockFile> m_lock;
    };
    // Recovery files of instances that are no longer running, newest first; an unreadable one
    // comes with its problem.
    std::vector<std::unique_ptr<Recovery>> staleRecoveries() const;
    // Whether another running instance has this file open.
    bool isOpenElsewhere(const QString& path) const;

signals:
    void writeFailed(const QString& reason);

private:
    cs::Session recoverySession() const;
    static bool writeRecovery(const cs::Session& session, const QString& path, QString* error);
    void writeInBackground();
    void waitForWriter();
    void removeStaleFiles() const;
    void publishOpenFile();

    Document* m_doc;
    QString m_dir;
    QString m_path;
    std::unique_ptr<QLockFile> m_lock;
    std::optional<DiskState> m_originState;
    QTimer* m_timer;
    std::thread m_writer;
    std::atomic<bool> m_writerDone{true};
};
