#include "autosave.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>

#include "document.h"
#include "documentio.h"
#include "loader.h"

namespace {
// Where the changes came from travels inside the recovery file, in an extension key the
// format allows.
constexpr const char* kOriginKey = "x-recovery-of";
} // namespace

Autosaver::Autosaver(Document* doc, QString recoveryPath, int intervalMs, QObject* parent)
    : QObject(parent)
    , m_doc(doc)
    , m_path(std::move(recoveryPath))
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(intervalMs);
    connect(m_timer, &QTimer::timeout, this, &Autosaver::writeNow);
    m_timer->start();
    connect(doc, &Document::modifiedChanged, this, [this](bool modified) {
        if (!modified)
            discard();
    });
}

void Autosaver::writeNow()
{
    if (!m_doc->isModified())
        return;
    cs::Session session = m_doc->sessionToSave();
    session.extensions.set(kOriginKey, m_doc->filePath().toStdString());
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QString error;
    if (!saveSessionToFile(session, m_path, &error))
        qWarning("autosave: %s", qPrintable(error));
}

void Autosaver::discard()
{
    QFile::remove(m_path);
}

QString Autosaver::defaultRecoveryPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/recovery.csession");
}

std::optional<Autosaver::Recovery> Autosaver::pending(const QString& recoveryPath)
{
    if (!QFileInfo::exists(recoveryPath))
        return std::nullopt;
    cs::Diagnostics diags;
    auto loaded = cs::loadFile(recoveryPath.toStdString(), diags);
    if (!loaded || !loaded->session || !diags.empty())
        return std::nullopt;
    Recovery r{*loaded->session, {}};
    auto& ext = r.session.extensions;
    if (ext.contains(kOriginKey) && ext.value()[kOriginKey].is_string())
        r.originalPath = QString::fromStdString(ext.value()[kOriginKey].get<std::string>());
    ext.erase(kOriginKey);
    return r;
}
