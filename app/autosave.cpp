#include "autosave.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>
#include <QTimer>
#include <QUuid>

#include "document.h"
#include "fileio.h"
#include "loader.h"

namespace {

// Where the changes came from travels inside the recovery file, in extension keys the format
// allows.
constexpr const char* kOriginKey = "x-recovery-of";
constexpr const char* kOriginStateKey = "x-recovery-of-state";
// Also matches "recovery.csession", the one file all instances shared before.
const QString kRecoveryPattern = QStringLiteral("recovery*.csession");
const QString kOpenNotePattern = QStringLiteral("recovery*.open");
const QString kLockPattern = QStringLiteral("recovery*.lock");

// A recovery file's lock and the note of what its instance has open sit beside it.
QString besideRecovery(const QString& path, const char* suffix)
{
    return path.left(path.lastIndexOf(QLatin1Char('.'))) + QLatin1String(suffix);
}

// Tries to take a lock. Stale means its process is gone, however old the lock: a running
// instance keeps its lock for as long as it runs.
std::unique_ptr<QLockFile> attemptLock(const QString& lockPath)
{
    auto lock = std::make_unique<QLockFile>(lockPath);
    lock->setStaleLockTime(0);
    lock->tryLock(0);
    return lock;
}

bool heldByRunningInstance(const QLockFile& lock)
{
    return !lock.isLocked() && lock.error() == QLockFile::LockFailedError;
}

nlohmann::json stateJson(const DiskState& state)
{
    return {{"size", state.size}, {"sha256", state.sha256.toHex().toStdString()}};
}

std::optional<DiskState> stateFrom(const nlohmann::json& j)
{
    if (!j.is_object() || !j.value("size", nlohmann::json()).is_number_integer() ||
        !j.value("sha256", nlohmann::json()).is_string())
        return std::nullopt;
    return DiskState{j["size"].get<qint64>(),
                     QByteArray::fromHex(QByteArray::fromStdString(j["sha256"]))};
}

} // namespace

Autosaver::Autosaver(Document* doc, QString recoveryDir, int intervalMs, QObject* parent)
    : QObject(parent)
    , m_doc(doc)
    , m_dir(std::move(recoveryDir))
    , m_timer(new QTimer(this))
{
    QDir().mkpath(m_dir);
    removeStaleFiles();
    // A name of its own, so that no instance ever writes over another's recovery file.
    m_path = QDir(m_dir).absoluteFilePath(
        QStringLiteral("recovery-%1.csession").arg(QUuid::createUuid().toString(QUuid::Id128)));
    m_lock = attemptLock(besideRecovery(m_path, ".lock"));
    if (!m_lock->isLocked())
        qWarning("autosave: cannot lock %s", qPrintable(besideRecovery(m_path, ".lock")));
    publishOpenFile();
    connect(doc, &Document::filePathChanged, this, &Autosaver::publishOpenFile);
    m_timer->setInterval(intervalMs);
    connect(m_timer, &QTimer::timeout, this, &Autosaver::writeInBackground);
    m_timer->start();
    connect(doc, &Document::modifiedChanged, this, [this](bool modified) {
        if (!modified)
            discard();
    });
}

void Autosaver::removeStaleFiles() const
{
    const QDir dir(m_dir);
    // A stale lock is taken over and released, which removes it; a held one is left alone.
    for (const QString& name : dir.entryList({kLockPattern}, QDir::Files | QDir::Hidden))
        attemptLock(dir.absoluteFilePath(name));
    for (const QString& name : dir.entryList({kOpenNotePattern}, QDir::Files)) {
        const QString note = dir.absoluteFilePath(name);
        if (!heldByRunningInstance(*attemptLock(besideRecovery(note, ".lock"))))
            QFile::remove(note);
    }
}

Autosaver::~Autosaver()
{
    waitForWriter();
    QFile::remove(besideRecovery(m_path, ".open"));
}

void Autosaver::waitForWriter()
{
    if (m_writer.joinable())
        m_writer.join();
}

void Autosaver::publishOpenFile()
{
    const QString file = m_doc->filePath();
    QString error;
    if (!writeFileAtomically(
            besideRecovery(m_path, ".open"),
            file.isEmpty() ? QByteArray() : QFileInfo(file).absoluteFilePath().toUtf8(), &error))
        qWarning("autosave: %s", qPrintable(error));
}

cs::Session Autosaver::recoverySession() const
{
    cs::Session session = m_doc->sessionToSave();
    session.extensions.set(kOriginKey, m_doc->filePath().toStdString());
    if (m_originState)
        session.extensions.set(kOriginStateKey, stateJson(*m_originState));
    return session;
}

bool Autosaver::writeRecovery(const cs::Session& session, const QString& path, QString* error)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    const std::optional<QByteArray> bytes = sessionFileBytes(session, path, error);
    return bytes && writeFileAtomically(path, *bytes, error);
}

bool Autosaver::writeNow()
{
    waitForWriter(); // one writer of the recovery file at a time
    if (!m_doc->isModified())
        return true;
    QString error;
    if (!writeRecovery(recoverySession(), m_path, &error)) {
        emit writeFailed(error);
        return false;
    }
    return true;
}

void Autosaver::writeInBackground()
{
    if (!m_doc->isModified() || !m_writerDone)
        return; // nothing to write, or the last write still runs: the next tick writes
    waitForWriter();
    m_writerDone = false;
    m_writer = std::thread([this, session = recoverySession()] {
        QString error;
        if (!writeRecovery(session, m_path, &error))
            QMetaObject::invokeMethod(
                this, [this, error] { emit writeFailed(error); }, Qt::QueuedConnection);
        m_writerDone = true;
    });
}

void Autosaver::discard()
{
    waitForWriter(); // a write under way would bring the file back
    QFile::remove(m_path);
}

QString Autosaver::defaultRecoveryDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

Autosaver::Recovery::~Recovery() = default;

void Autosaver::Recovery::discard()
{
    QFile::remove(path);
    QFile::remove(besideRecovery(path, ".open"));
}

QString Autosaver::Recovery::setAside()
{
    const QFileInfo file(path);
    const QString aside =
        file.dir().absoluteFilePath(QStringLiteral("unreadable-") + file.fileName());
    return QFile::rename(path, aside) ? aside : QString();
}

std::vector<std::unique_ptr<Autosaver::Recovery>> Autosaver::staleRecoveries() const
{
    std::vector<std::unique_ptr<Recovery>> found;
    const QFileInfoList files =
        QDir(m_dir).entryInfoList({kRecoveryPattern}, QDir::Files, QDir::Time);
    for (const QFileInfo& file : files) {
        const QString path = file.absoluteFilePath();
        if (path == m_path)
            continue;
        std::unique_ptr<QLockFile> lock = attemptLock(besideRecovery(path, ".lock"));
        if (!lock->isLocked())
            continue; // its instance still runs (or the lock cannot be taken)
        auto recovery = std::make_unique<Recovery>();
        recovery->path = path;
        recovery->autosavedAt = file.lastModified();
        recovery->m_lock = std::move(lock);
        cs::Diagnostics diags;
        auto loaded = cs::loadFile(path.toStdString(), diags);
        if (!loaded || !loaded->session || !diags.empty()) {
            recovery->problem = diags.empty() ? path + QStringLiteral(": not a session file")
                                              : QString::fromStdString(diags.formatAll()).trimmed();
            found.push_back(std::move(recovery));
            continue;
        }
        recovery->session = std::move(*loaded->session);
        auto& ext = recovery->session.extensions;
        if (ext.contains(kOriginKey) && ext.value()[kOriginKey].is_string())
            recovery->originalPath =
                QString::fromStdString(ext.value()[kOriginKey].get<std::string>());
        // Written before paths were kept absolute: relative to a folder it does not record, it
        // could name an unrelated file here. Restored untitled, Save asks where.
        if (QFileInfo(recovery->originalPath).isRelative()) {
            recovery->relativeOrigin = recovery->originalPath;
            recovery->originalPath.clear();
        }
        if (ext.contains(kOriginStateKey))
            recovery->originState = stateFrom(ext.value()[kOriginStateKey]);
        ext.erase(kOriginKey);
        ext.erase(kOriginStateKey);
        found.push_back(std::move(recovery));
    }
    return found;
}

bool Autosaver::isOpenElsewhere(const QString& path) const
{
    const QString wanted = QFileInfo(path).canonicalFilePath();
    if (wanted.isEmpty())
        return false;
    const QString ownNote = besideRecovery(m_path, ".open");
    for (const QFileInfo& note : QDir(m_dir).entryInfoList({kOpenNotePattern}, QDir::Files)) {
        if (note.absoluteFilePath() == ownNote)
            continue;
        cs::Diagnostics diags;
        const auto open = cs::readFileText(note.absoluteFilePath().toStdString(), diags);
        if (!open || QFileInfo(QString::fromStdString(*open)).canonicalFilePath() != wanted)
            continue;
        const auto lock = attemptLock(besideRecovery(note.absoluteFilePath(), ".lock"));
        if (heldByRunningInstance(*lock))
            return true;
        if (lock->isLocked())
            QFile::remove(note.absoluteFilePath()); // left by an instance that is gone
    }
    return false;
}
