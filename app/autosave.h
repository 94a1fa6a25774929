#pragma once
// Writes unsaved changes to a recovery file on a timer, so a crash or kill loses at most one
// interval of work; the next start offers the recovery file back.

#include <QObject>
#include <QString>
#include <optional>

#include "description.h"

class Document;
class QTimer;

class Autosaver : public QObject {
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 30'000;

    Autosaver(Document* doc, QString recoveryPath, int intervalMs = kIntervalMs,
              QObject* parent = nullptr);

    QString recoveryPath() const { return m_path; }
    // Writes the recovery file when the document has unsaved changes; removes it when not.
    void writeNow();
    void discard();

    // The default place: the application's data directory.
    static QString defaultRecoveryPath();

    struct Recovery {
        cs::Session session;
        QString originalPath; // the file the changes belong to; empty for an untitled one
    };
    // The recovery file's content, or nothing when there is none (or it is unreadable).
    static std::optional<Recovery> pending(const QString& recoveryPath);

private:
    Document* m_doc;
    QString m_path;
    QTimer* m_timer;
};
