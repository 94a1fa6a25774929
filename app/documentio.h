#pragma once
// Loading any ClusterScope file into a session for the application, and writing files through
// the one atomic writer (cs::writeFileAtomically).

#include <QByteArray>
#include <QString>
#include <optional>

#include "description.h"

// A session file as it is; a run with its cluster; a cluster alone with a default run that
// fills it (one data-parallel replica per GPU). On failure, every problem, one per line.
std::optional<cs::Session> loadSessionFromFile(const QString& path, QString* problems);

// A cluster opened alone still needs a run to place: a small dense model with pure data
// parallelism shows the cluster without claiming anything about a real workload.
cs::RunDesc defaultRunFor(const cs::ClusterDesc& cluster);

// Where a session made from a run or cluster file goes by default: beside it, named after it
// ("a/b.run.json" -> "a/b.csession").
QString sessionPathFor(const QString& sourcePath);

// The bytes of a session file.
QByteArray sessionBytes(const cs::Session& session);
// The bytes of a session file to be written at `path`, checked as its own reader will read
// them (cs::checkReadsBack): nothing, with *error saying why, when the reader would refuse them,
// so that no save writes a session that cannot be opened again.
std::optional<QByteArray> sessionFileBytes(const cs::Session& session, const QString& path,
                                           QString* error);

// Writes the bytes atomically and verified; on any failure the old file is untouched and
// *error says why, with the system's reason.
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error);

// What a file held when it was opened or saved, to notice another program (or another
// ClusterScope) writing it since. By content: a modification time has the kernel's tick as its
// grain, so two writes within one tick look alike, and a session is quick to hash.
struct DiskState {
    qint64 size = 0;
    QByteArray sha256;

    // The state of a file holding these bytes.
    static DiskState of(const QByteArray& bytes);
    // The file as it is now; nothing when it cannot be read as a file.
    static std::optional<DiskState> read(const QString& path);
    bool operator==(const DiskState&) const = default;
};

// Whether the file no longer holds what `known` describes. A file that is gone has not
// changed: writing it loses nothing.
bool changedOnDisk(const QString& path, const DiskState& known);
