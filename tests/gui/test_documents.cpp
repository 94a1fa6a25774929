#include <catch2/catch.hpp>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QUndoStack>

#include "autosave.h"
#include "calibrate.h"
#include "calibration.h"
#include "document.h"
#include "documentio.h"
#include "guitestutil.h"
#include "loader.h"
#include "mainwindow.h"
#include "measuredrunsdialog.h"
#include "presentation.h"
#include "propertiespanel.h"

namespace {

struct TempDirWindow {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    TempDirWindow() { window.setQuiet(true); }
    QString path(const char* name) const { return dir.filePath(QLatin1String(name)); }
};

cs::Session readSession(const QString& path)
{
    cs::Diagnostics diags;
    auto loaded = cs::loadFile(path.toStdString(), diags);
    INFO(diags.formatAll());
    REQUIRE(loaded);
    REQUIRE(loaded->session);
    return *loaded->session;
}

} // namespace

TEST_CASE("open, edit, save and reopen gives the edited document", "[documents]")
{
    TempDirWindow f;
    REQUIRE(f.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    Document* doc = f.window.document();
    REQUIRE_FALSE(doc->isModified());
    REQUIRE(f.window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), 800.0));
    INFO(f.window.propertiesPanel()->problem().toStdString());
    CHECK(doc->cluster().scaleOut.GbpsPerGpu == 800.0);
    CHECK(doc->isModified());
    CHECK(f.window.isWindowModified());

    const QString saved = f.path("edited.csession");
    REQUIRE(f.window.saveTo(saved));
    CHECK_FALSE(doc->isModified());
    const cs::Session reread = readSession(saved);
    CHECK(reread.cluster == doc->cluster());
    CHECK(reread.run == doc->run());

    TempDirWindow g;
    REQUIRE(g.window.openFile(saved));
    CHECK(g.window.document()->cluster().scaleOut.GbpsPerGpu == 800.0);
    CHECK(g.window.document()->filePath() == saved);
}

TEST_CASE("undo and redo restore exact states", "[documents][undo]")
{
    TempDirWindow f;
    REQUIRE(f.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    Document* doc = f.window.document();
    const cs::ClusterRun original{doc->cluster(), doc->run()};
    const double originalStep = doc->evaluation().stepTimeS;

    REQUIRE(f.window.propertiesPanel()->editField(QStringLiteral("TP"), 8));
    REQUIRE(f.window.propertiesPanel()->problem().isEmpty());
    const cs::ClusterRun afterTp{doc->cluster(), doc->run()};
    CHECK(afterTp.run.parallelism.tp == 8);
    CHECK(afterTp.run.parallelism.dp == 8); // 512 GPUs / (tp 8 x pp 8)
    REQUIRE(f.window.propertiesPanel()->editField(QStringLiteral("Racks"), 32));
    const cs::ClusterRun afterRacks{doc->cluster(), doc->run()};
    CHECK(afterRacks.cluster.racks == 32);
    CHECK(afterRacks.run.parallelism.dp == 16); // 1,024 GPUs / (tp 8 x pp 8)
    CHECK(afterRacks.run.batch.global == 4096); // each replica keeps its work

    QUndoStack* undo = doc->undoStack();
    REQUIRE(undo->count() == 2);
    undo->undo();
    CHECK(cs::ClusterRun{doc->cluster(), doc->run()} == afterTp);
    undo->undo();
    CHECK(cs::ClusterRun{doc->cluster(), doc->run()} == original);
    CHECK(doc->evaluation().stepTimeS == originalStep);
    CHECK_FALSE(doc->isModified());
    undo->redo();
    undo->redo();
    CHECK(cs::ClusterRun{doc->cluster(), doc->run()} == afterRacks);
}

TEST_CASE("an invalid edit is refused in place with the reason", "[documents]")
{
    TempDirWindow f;
    REQUIRE(f.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    Document* doc = f.window.document();
    const cs::RunDesc before = doc->run();
    REQUIRE(f.window.propertiesPanel()->editField(QStringLiteral("TP"), 5)); // 96 heads % 5
    // In the panel's words: the field, the rule, and the values that would work.
    const std::string problem = f.window.propertiesPanel()->problem().toStdString();
    CHECK_THAT(problem, Catch::StartsWith("TP cannot be 5. TP: tp = 5 must divide the model's 96 "
                                          "attention heads."));
    // tp x pp x dp may leave GPUs idle (dp is given): 3 works, 6 needs 768 GPUs.
    CHECK_THAT(problem, Catch::EndsWith("Values that work: 1, 2, 3, 4, 8, 16, 32."));
    CHECK(doc->run() == before);
    CHECK(doc->undoStack()->count() == 0);
}

TEST_CASE("a failed save reports and leaves the old file untouched", "[documents]")
{
    TempDirWindow f;
    REQUIRE(f.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    REQUIRE(f.window.propertiesPanel()->editField(QStringLiteral("Micro-batch"), 1));
    // A file on a read-only file system (even root cannot write /proc) behind a link.
    const QString link = f.path("readonly.csession");
    REQUIRE(QFile::link(QStringLiteral("/proc/version"), link));
    QFile original(QStringLiteral("/proc/version"));
    REQUIRE(original.open(QIODevice::ReadOnly));
    const QByteArray before = original.readAll();

    CHECK_FALSE(f.window.saveTo(link));
    CHECK_THAT(f.window.lastProblem().toStdString(), Catch::Contains("cannot"));
    CHECK(f.window.document()->isModified());
    QFile after(QStringLiteral("/proc/version"));
    REQUIRE(after.open(QIODevice::ReadOnly));
    CHECK(after.readAll() == before);

    CHECK_FALSE(f.window.saveTo(f.path("no/such/dir/x.csession")));
    CHECK(f.window.document()->isModified());
}

TEST_CASE("a bad file keeps the current document", "[documents]")
{
    TempDirWindow f;
    REQUIRE(f.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    const cs::Session before = f.window.document()->session();
    QFile bad(f.path("bad.cluster.json"));
    REQUIRE(bad.open(QIODevice::WriteOnly));
    bad.write("{\"format\": \"clusterscope/cluster@1\", \"racks\": }");
    bad.close();
    CHECK_FALSE(f.window.openFile(bad.fileName()));
    CHECK_THAT(f.window.lastProblem().toStdString(), Catch::Contains("bad.cluster.json:1:"));
    CHECK(f.window.document()->session() == before);
}

TEST_CASE("unsaved changes are autosaved and offered after a crash", "[documents][recovery]")
{
    QTemporaryDir dir;
    const QString recovery = dir.path();
    cs::ClusterRun edited;
    {
        MainWindow crashed(recovery);
        crashed.setQuiet(true);
        REQUIRE(crashed.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
        crashed.autosaver()->writeNow();
        CHECK_FALSE(QFile::exists(crashed.autosaver()->recoveryPath())); // nothing unsaved yet
        REQUIRE(crashed.propertiesPanel()->editField(QStringLiteral("Layers"), 48));
        crashed.autosaver()->writeNow();
        REQUIRE(QFile::exists(crashed.autosaver()->recoveryPath()));
        edited = {crashed.document()->cluster(), crashed.document()->run()};
        // The window is destroyed without closeEvent, as a crash would leave it.
    }
    MainWindow next(recovery);
    next.setQuiet(true);
    REQUIRE(next.offerRecovery());
    CHECK(next.document()->cluster() == edited.cluster);
    CHECK(next.document()->run() == edited.run);
    CHECK(next.document()->isModified());
}

TEST_CASE("a process killed with SIGKILL after an autosave loses nothing", "[documents][recovery]")
{
    static_assert(Autosaver::kIntervalMs <= 30'000, "at most 30 s of work may be lost");
    QTemporaryDir dir;
    const QString recovery = dir.path();
    const QString file = sampleFile("ndv5-h200-64-gpt3-175b.run.json");
    QProcess victim;
    victim.start(QStringLiteral(CS_AUTOSAVE_VICTIM), {recovery, file, QStringLiteral("48")});
    REQUIRE(victim.waitForStarted(10'000));
    REQUIRE(victim.waitForReadyRead(30'000));
    CHECK(victim.readLine().trimmed() == "autosaved");
    victim.kill(); // SIGKILL: no handler, no destructor, no flush runs
    REQUIRE(victim.waitForFinished(10'000));
    CHECK(victim.exitStatus() == QProcess::CrashExit);

    MainWindow next(recovery);
    next.setQuiet(true);
    REQUIRE(next.offerRecovery());
    CHECK(next.document()->run().model.layers == 48);
    CHECK(next.document()->isModified());
    QString problems;
    const auto onDisk = loadSessionFromFile(file, &problems);
    REQUIRE(onDisk);
    CHECK(onDisk->run.model.layers != 48); // the file itself was never written
}

TEST_CASE("bookmarks survive a session round trip", "[documents][bookmarks]")
{
    TempDirWindow f;
    REQUIRE(f.window.openFile(sampleFile("fairwater-gb200-128.csession")));
    Document* doc = f.window.document();
    const size_t count = doc->bookmarks().size();
    cs::ViewState v = doc->view();
    v.colorBy = *cs::colorModeFromString("tp");
    v.zoom = 3.5;
    v.center = {120.0, 40.0};
    v.highlightRank = 77;
    v.timeS = 0.61;
    doc->setView(v);
    f.window.presentation()->addBookmark();
    REQUIRE(doc->bookmarks().size() == count + 1);
    CHECK(doc->bookmarks().back().view == v);

    const QString saved = f.path("marks.csession");
    REQUIRE(f.window.saveTo(saved));
    const cs::Session reread = readSession(saved);
    CHECK(reread.bookmarks == doc->bookmarks());
    doc->undoStack()->undo();
    CHECK(doc->bookmarks().size() == count);
}

TEST_CASE("bookmark transitions interpolate zoom geometrically", "[bookmarks]")
{
    cs::ViewState a, b;
    a.zoom = 1;
    b.zoom = 16;
    a.center = {0, 0};
    b.center = {100, -50};
    a.timeS = 0;
    b.timeS = 1;
    b.playing = true;
    struct Case {
        double t, zoom, cx, time;
        bool playing;
    };
    for (const Case& c : {Case{0, 1, 0, 0, false}, Case{0.5, 4, 50, 0.5, false},
                          Case{0.25, 2, 25, 0.25, false}, Case{1, 16, 100, 1, true}}) {
        const cs::ViewState v = Presentation::interpolate(a, b, c.t);
        CHECK(v.zoom == Approx(c.zoom));
        CHECK(v.center[0] == Approx(c.cx));
        CHECK(v.timeS == Approx(c.time));
        CHECK(v.playing == c.playing);
    }
}

TEST_CASE("a measured-runs file opens as a table of predictions whose rows open as documents",
          "[documents][measured]")
{
    TempDirWindow f;
    REQUIRE(f.window.openFile(sampleFile("fairwater-gb200-128.csession")));
    const QString jsonl =
        QStringLiteral(CS_SAMPLES_DIR "/../../shared/reference/validation/public.jsonl");
    REQUIRE(f.window.openFile(jsonl));
    MeasuredRunsDialog* dialog = f.window.measuredRunsDialog();
    REQUIRE(dialog);
    CHECK(dialog->rowCount() == 56);
    // The MAPE validate-runs and calibrate give for the same file: one number per question.
    cs::Diagnostics diags;
    const double cliMape = cs::meanAbsoluteError(cs::predictRows(
        cs::readMeasuredRuns(jsonl.toStdString(), diags), cs::defaultCalibration()));
    CHECK(dialog->mape() > 0);
    CHECK(dialog->mape() == Approx(cliMape).epsilon(1e-12));
    const cs::MeasuredRun& row = dialog->runs().at(3);
    emit dialog->openRequested(row);
    CHECK(f.window.document()->cluster() == row.cluster);
    CHECK(f.window.document()->run() == row.run);
}

TEST_CASE("comparing with another run is one undoable change", "[documents][compare]")
{
    TempDirWindow f;
    REQUIRE(f.window.openFile(sampleFile("fairwater-gb200-128-llama405b.run.json")));
    Document* doc = f.window.document();
    REQUIRE_FALSE(doc->session().compare);
    REQUIRE(f.window.compareWith(sampleFile("fairwater-gb200-112-llama405b.run.json")));
    REQUIRE(doc->session().compare);
    CHECK(doc->session().compare->cluster.racks == 112);
    CHECK(doc->isModified());
    doc->undoStack()->undo();
    CHECK_FALSE(doc->session().compare);
    CHECK_FALSE(f.window.compareWith(f.path("missing.run.json")));
}
