#include <nlohmann/json.hpp>

#include "documentio.h"

#include <QSaveFile>

#include "loader.h"
#include "writer.h"

namespace {

// A cluster opened alone still needs a run to place; a small dense model with pure data
// parallelism shows the cluster without claiming anything about a real workload.
cs::RunDesc defaultRunFor(const cs::ClusterDesc& cluster)
{
    cs::RunDesc run;
    run.name = "Data parallel only (no run loaded)";
    run.model = {"GPT 1.3B", 24, 2048, 8192, 16, 16, 50304, 2048, false};
    run.precision = cs::Precision::BF16;
    run.batch = {int(cluster.gpuCount()), 1};
    run.parallelism.dp = int(cluster.gpuCount());
    return run;
}

} // namespace

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
        return cs::Session{*loaded->cluster, *loaded->run, {}, {}, {}, {}};
    case cs::FileKind::Cluster:
        return cs::Session{*loaded->cluster, defaultRunFor(*loaded->cluster), {}, {}, {}, {}};
    default:
        *problems = path + QStringLiteral(": not a cluster, run or session file");
        return std::nullopt;
    }
}

bool saveSessionToFile(const cs::Session& session, const QString& path, QString* error)
{
    const QByteArray text = QByteArray::fromStdString(cs::toJson(session).dump(2) + "\n");
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
        return false;
    }
    if (file.write(text) != text.size() || !file.commit()) {
        *error = QStringLiteral("%1: cannot save: %2").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    return true;
}
