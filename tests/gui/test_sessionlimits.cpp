// What Save writes opens again: a session its own reader would refuse is not written (the old
// file, the recovery file and the unsaved changes stay, and the reason is said), and a session
// whose parts are each within their own limits, but together past one file's, saves and opens.

#include <catch2/catch.hpp>

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include "autosave.h"
#include "document.h"
#include "documentio.h"
#include "editcommands.h"
#include "fileio.h"
#include "guitestutil.h"
#include "loader.h"
#include "mainwindow.h"
#include "propertiespanel.h"

namespace {

nlohmann::json nestedArrays(int depth)
{
    nlohmann::json j = nlohmann::json::array();
    for (int i = 1; i < depth; ++i)
        j = nlohmann::json::array({j});
    return j;
}

// `count` small numbers: JSON values cheap to write and to read.
nlohmann::json zeros(int64_t count)
{
    return nlohmann::json(std::vector<int>(size_t(count), 0));
}

} // namespace

TEST_CASE("Save refuses a session its reader would refuse, keeping the file and the recovery",
          "[sessionlimits][save]")
{
    struct Case {
        const char* what;
        nlohmann::json value; // an extension of the run
        const char* reason;
    };
    const Case c = GENERATE(values<Case>({
        {"nesting", nestedArrays(cs::kMaxJsonDepth + 8), "nested deeper"},
        {"values", zeros(cs::kMaxJsonValues + 1), "JSON values"},
    }));
    INFO(c.what);
    QTemporaryDir dir;
    MainWindow window(dir.filePath(QStringLiteral("recovery")));
    window.setQuiet(true);
    const QString session = dir.filePath(QStringLiteral("work.csession"));
    REQUIRE(QFile::copy(sampleFile("fairwater-gb200-128.csession"), session));
    REQUIRE(QFile::setPermissions(session, QFile::ReadOwner | QFile::WriteOwner));
    REQUIRE(window.openFile(session));
    REQUIRE(window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), 1000.0));
    REQUIRE(window.autosaver()->writeNow());
    const QString recovery = window.autosaver()->recoveryPath();
    const QByteArray sessionBefore = bytesOf(session), recoveryBefore = bytesOf(recovery);

    Document* doc = window.document();
    cs::RunDesc run = doc->run();
    run.extensions.set("x-test", c.value);
    doc->undoStack()->push(
        new EditModelCommand(doc, doc->cluster(), run, QStringLiteral("Add an extension")));

    CHECK_FALSE(window.save());
    CHECK_THAT(window.lastProblem().toStdString(),
               Catch::Contains(session.toStdString()) && Catch::Contains(c.reason));
    CHECK(bytesOf(session) == sessionBefore);
    CHECK(bytesOf(recovery) == recoveryBefore);
    CHECK(doc->isModified());
    CHECK(doc->filePath() == session);

    // Save As elsewhere and the autosave refuse it alike.
    const QString elsewhere = dir.filePath(QStringLiteral("elsewhere.csession"));
    CHECK_FALSE(window.saveTo(elsewhere));
    CHECK_FALSE(QFile::exists(elsewhere));
    CHECK_FALSE(window.autosaver()->writeNow());
    CHECK(bytesOf(recovery) == recoveryBefore);
    CHECK(doc->filePath() == session);

    // Without the extension the same save goes through; only then does the recovery go.
    doc->undoStack()->undo();
    REQUIRE(window.save());
    CHECK_FALSE(QFile::exists(recovery));
}

TEST_CASE("a session whose parts are each within their limits saves and opens again",
          "[sessionlimits][save][slow]")
{
    // Past what one file may hold (64 MiB, 2^20 JSON values), the parts each within it: the
    // cases of issue 35 (notes of 35 MB in the cluster and in the run; two runs of 600,000
    // measured step times).
    const std::string what = GENERATE("bytes", "values");
    INFO(what);
    cs::Session session = sampleSession("fairwater-gb200-128.csession");
    if (what == "bytes") {
        const std::string notes(35'000'000, 'n');
        session.cluster.extensions.set("notes", notes);
        session.run.extensions.set("notes", notes);
    } else {
        session.run.extensions.set("x-step-times", zeros(600'000));
        cs::ClusterRun compare{session.cluster, session.run};
        session.compare = compare;
    }
    QTemporaryDir dir;
    MainWindow window(dir.filePath(QStringLiteral("recovery")));
    window.setQuiet(true);
    REQUIRE(window.openUnsaved(session));
    const QString path = dir.filePath(QStringLiteral("large.csession"));
    REQUIRE(window.saveTo(path));
    if (what == "bytes")
        CHECK(QFileInfo(path).size() > qint64(cs::kMaxFileBytes));

    MainWindow reopened(dir.filePath(QStringLiteral("recovery")));
    reopened.setQuiet(true);
    REQUIRE(reopened.openFile(path));
    INFO(reopened.lastProblem().toStdString());
    CHECK(reopened.document()->session().cluster == session.cluster);
    CHECK(reopened.document()->session().run == session.run);
    CHECK(reopened.document()->session().compare == session.compare);
    // Saved over again, the file is read to the session's own limit to tell whether another
    // program changed it: it did not, so no question stops the save.
    CHECK(reopened.saveTo(path));
    INFO(reopened.lastProblem().toStdString());
}
