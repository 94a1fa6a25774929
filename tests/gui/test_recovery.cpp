// After a crash or kill -9: the recovery restores the file it belongs to from any working
// directory (the path kept is absolute), a recovery file that cannot be read is reported with
// its reason and kept, and the lock and open-file note the dead instance left are removed.

#include <catch2/catch.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include "autosave.h"
#include "document.h"
#include "documentio.h"
#include "guitestutil.h"
#include "mainwindow.h"

namespace {

// The working directory of this process while the object lives.
class WorkingDirectory {
public:
    explicit WorkingDirectory(const QString& path)
        : m_saved(QDir::currentPath())
    {
        REQUIRE(QDir::setCurrent(path));
    }
    ~WorkingDirectory() { QDir::setCurrent(m_saved); }
    WorkingDirectory(const WorkingDirectory&) = delete;
    WorkingDirectory& operator=(const WorkingDirectory&) = delete;

private:
    QString m_saved;
};

// A copy of the sample session at dir/full/f.csession.
QString sessionFileIn(const QTemporaryDir& dir)
{
    REQUIRE(QDir(dir.path()).mkpath(QStringLiteral("full")));
    const QString path = dir.filePath(QStringLiteral("full/f.csession"));
    REQUIRE(QFile::copy(sampleFile("fairwater-gb200-128.csession"), path));
    REQUIRE(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
    return path;
}

// Runs the autosave victim in `workingDir` on `file` (as typed there), sets 118 layers and kills
// it with SIGKILL once the change is autosaved.
void killAfterAutosave(const QString& recoveryDir, const QString& workingDir, const QString& file)
{
    QProcess victim;
    victim.setWorkingDirectory(workingDir);
    victim.start(QStringLiteral(CS_AUTOSAVE_VICTIM), {recoveryDir, file, QStringLiteral("118")});
    REQUIRE(victim.waitForStarted(10'000));
    REQUIRE(victim.waitForReadyRead(30'000));
    REQUIRE(victim.readLine().trimmed() == "autosaved");
    victim.kill();
    REQUIRE(victim.waitForFinished(10'000));
}

QStringList filesIn(const QString& dir, const QString& pattern)
{
    return QDir(dir).entryList({pattern}, QDir::Files | QDir::Hidden, QDir::Name);
}

} // namespace

TEST_CASE("a recovery restored from another working directory saves to the file it came from",
          "[recovery]")
{
    QTemporaryDir recovery, first, second;
    const QString original = sessionFileIn(first);
    const QString unrelated = sessionFileIn(second); // the same relative path, another file
    const QByteArray unrelatedBefore = bytesOf(unrelated);
    killAfterAutosave(recovery.path(), first.path(), QStringLiteral("full/f.csession"));

    WorkingDirectory elsewhere(second.path());
    MainWindow next(recovery.path());
    next.setQuiet(true);
    REQUIRE(next.offerRecovery());
    CHECK(next.document()->filePath() == QFileInfo(original).canonicalFilePath());
    CHECK(next.document()->run().model.layers == 118);
    REQUIRE(next.save());
    CHECK(next.lastProblem().isEmpty());
    QString problems;
    const auto saved = loadSessionFromFile(original, &problems);
    REQUIRE(saved);
    CHECK(saved->run.model.layers == 118);
    CHECK(bytesOf(unrelated) == unrelatedBefore);
}

TEST_CASE("the lock and open-file note of a killed instance are removed at the next start",
          "[recovery]")
{
    QTemporaryDir recovery, files;
    const QString file = sessionFileIn(files);
    killAfterAutosave(recovery.path(), files.path(), file);
    const QStringList recoveries = filesIn(recovery.path(), QStringLiteral("recovery-*.csession"));
    REQUIRE(recoveries.size() == 1);
    REQUIRE(filesIn(recovery.path(), QStringLiteral("*.lock")).size() == 1);
    REQUIRE(filesIn(recovery.path(), QStringLiteral("*.open")).size() == 1);

    const bool unsaved = GENERATE(true, false);
    INFO("the killed instance had unsaved changes: " << unsaved);
    if (!unsaved) // as if it was killed with nothing to recover
        REQUIRE(QFile::remove(QDir(recovery.path()).filePath(recoveries.front())));
    MainWindow next(recovery.path());
    next.setQuiet(true);
    CHECK(next.offerRecovery() == unsaved);
    // What is left is this window's own: its lock and its note (and its recovery file).
    const QString own = QFileInfo(next.autosaver()->recoveryPath()).completeBaseName();
    CHECK(filesIn(recovery.path(), QStringLiteral("*.lock")) == QStringList{own + ".lock"});
    CHECK(filesIn(recovery.path(), QStringLiteral("*.open")) == QStringList{own + ".open"});
    CHECK(filesIn(recovery.path(), QStringLiteral("*.csession")) ==
          (unsaved ? QStringList{own + ".csession"} : QStringList{}));
}

TEST_CASE("a recovery file that cannot be read is reported with its reason and kept", "[recovery]")
{
    struct Case {
        const char* content;
        const char* reason;
    };
    const Case c = GENERATE(values<Case>({
        {"{\"format\": \"clusterscope/session@1\",", "unexpected end of input"},
        {"", "empty"},
        {R"({"format":"clusterscope/session@1","cluster":{}})", "/cluster"},
        {"[1, 2, 3]", "must be a JSON object"},
    }));
    INFO(c.content);
    QTemporaryDir recovery;
    const QString dead = recovery.filePath(QStringLiteral("recovery-dead.csession"));
    {
        QFile out(dead);
        REQUIRE(out.open(QIODevice::WriteOnly));
        out.write(c.content);
    }
    MainWindow next(recovery.path());
    next.setQuiet(true);
    CHECK_FALSE(next.offerRecovery());
    const QString aside = recovery.filePath(QStringLiteral("unreadable-recovery-dead.csession"));
    CHECK_THAT(next.lastProblem().toStdString(), Catch::Contains(dead.toStdString()) &&
                                                     Catch::Contains(c.reason) &&
                                                     Catch::Contains(aside.toStdString()));
    CHECK_FALSE(QFile::exists(dead));
    CHECK(bytesOf(aside) == QByteArray(c.content));
    CHECK_FALSE(next.document()->isModified());

    // Told once: the next start neither offers nor reports it again.
    MainWindow later(recovery.path());
    later.setQuiet(true);
    CHECK_FALSE(later.offerRecovery());
    CHECK(later.lastProblem().isEmpty());
    CHECK(QFile::exists(aside));
}

TEST_CASE("a recovery that names its file as typed, from before paths were absolute, restores "
          "untitled",
          "[recovery]")
{
    QTemporaryDir recovery, elsewhere;
    const QString unrelated = sessionFileIn(elsewhere);
    const QByteArray unrelatedBefore = bytesOf(unrelated);
    nlohmann::json session =
        nlohmann::json::parse(bytesOf(sampleFile("fairwater-gb200-128.csession")).toStdString());
    session["x-recovery-of"] = "full/f.csession";
    {
        QFile out(recovery.filePath(QStringLiteral("recovery-old.csession")));
        REQUIRE(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(session.dump(2)));
    }
    WorkingDirectory there(elsewhere.path()); // where that relative path names another file
    MainWindow next(recovery.path());
    next.setQuiet(true);
    REQUIRE(next.offerRecovery());
    CHECK(next.document()->filePath().isEmpty());
    CHECK(next.document()->isModified());
    CHECK(bytesOf(unrelated) == unrelatedBefore);
}
