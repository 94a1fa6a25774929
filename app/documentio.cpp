#include <nlohmann/json.hpp>

#include "documentio.h"

#include <QCryptographicHash>
#include <QFileInfo>

#include "fileio.h"
#include "loader.h"
#include "writer.h"

cs::RunDesc defaultRunFor(const cs::ClusterDesc& cluster)
{
    cs::RunDesc run;
    run.name = "Data parallel only (no run loaded)";
    run.model.name = "GPT 1.3B";
    run.model.layers = 24;
    run.model.hidden = 2048;
    run.model.ffnHidden = 8192;
    run.model.heads = run.model.kvHeads = 16;
    run.model.vocab = 50304;
    run.model.seqLen = 2048;
    run.precision = cs::Precision::BF16;
    run.batch = {int(cluster.gpuCount()), 1};
    run.parallelism.dp = int(cluster.gpuCount());
    return run;
}

std::optional<cs::Session> loadSessionFromFile(const QString& path, QString* problems)
{
    cs::Diagnostics diags;
    auto loaded = cs::loadFile(path.toStdString(), diags);
    if (!loaded || !diags.empty()) {
        *problems = QString::fromStdString(diags.formatAll());
        return std::nullopt;
    }
    switch (loaded->kind) {
    case cs::FileKind::Session:
        return loaded->session;
    case cs::FileKind::Run:
        if (!loaded->cluster) {
            *problems = path + QStringLiteral(": /cluster: a run needs its cluster to be shown; "
                                              "give its path in \"cluster\"");
            return std::nullopt;
        }
        return cs::Session{*loaded->cluster, *loaded->run, {}, {}, {}, {}, {}};
    case cs::FileKind::Cluster:
        return cs::Session{*loaded->cluster, defaultRunFor(*loaded->cluster), {}, {}, {}, {}, {}};
    default:
        *problems = path + QStringLiteral(": not a cluster, run or session file");
        return std::nullopt;
    }
}

QString sessionPathFor(const QString& sourcePath)
{
    QString base = sourcePath;
    for (const char* suffix : {".run.json", ".cluster.json", ".json"}) {
        if (base.endsWith(QLatin1String(suffix))) {
            base.chop(int(qstrlen(suffix)));
            break;
        }
    }
    return base + QStringLiteral(".csession");
}

QByteArray sessionBytes(const cs::Session& session)
{
    return QByteArray::fromStdString(cs::toJson(session).dump(2) + "\n");
}

std::optional<QByteArray> sessionFileBytes(const cs::Session& session, const QString& path,
                                           QString* error)
{
    QByteArray bytes = sessionBytes(session);
    cs::Diagnostics diags;
    if (cs::checkReadsBack(std::string_view(bytes.data(), size_t(bytes.size())), path.toStdString(),
                           diags))
        return bytes;
    *error = QString::fromStdString(diags.formatAll()).trimmed();
    return std::nullopt;
}

bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error)
{
    cs::Diagnostics diags;
    if (cs::writeFileAtomically(path.toStdString(), std::string_view(bytes.data(), bytes.size()),
                                diags))
        return true;
    *error = QString::fromStdString(diags.formatAll()).trimmed();
    return false;
}

DiskState DiskState::of(const QByteArray& bytes)
{
    return {bytes.size(), QCryptographicHash::hash(bytes, QCryptographicHash::Sha256)};
}

std::optional<DiskState> DiskState::read(const QString& path)
{
    cs::Diagnostics diags;
    // A session may hold more than one file's bytes: it is read to its own limit.
    const std::string file = path.toStdString();
    const std::optional<std::string> text = cs::readFileText(file, diags, cs::byteLimitOf(file));
    if (!text)
        return std::nullopt;
    return of(QByteArray::fromStdString(*text));
}

bool changedOnDisk(const QString& path, const DiskState& known)
{
    const QFileInfo now(path);
    if (!now.exists())
        return false;
    if (now.size() != known.size)
        return true;
    const std::optional<DiskState> current = DiskState::read(path);
    return !current || *current != known;
}
