// Nothing saved is lost: saves, autosaves and exports on a full disk, read-only and linked
// files, one recovery file per running window, files changed on disk or open in another window,
// values typed but not confirmed, and files that would block (FIFOs).

#include <catch2/catch.hpp>

#include <functional>

#include <QApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>

#include "../helpers/datasafety.h"
#include "autosave.h"
#include "document.h"
#include "documentio.h"
#include "exports.h"
#include "guitestutil.h"
#include "loader.h"
#include "mainwindow.h"
#include "propertiespanel.h"
#include "render.h"
#include "topologyview.h"

namespace {

void writeBytes(const QString& path, const QByteArray& bytes)
{
    QString error;
    REQUIRE(writeFileAtomically(path, bytes, &error));
}

cs::Session sessionIn(const QString& path)
{
    QString problems;
    const auto session = loadSessionFromFile(path, &problems);
    INFO(problems.toStdString());
    REQUIRE(session);
    return *session;
}

// A window whose recovery files and documents live in a directory of their own.
struct OwnDirectoryWindow {
    QTemporaryDir dir;
    QString recoveryDir = dir.filePath(QStringLiteral("recovery"));
    MainWindow window{recoveryDir};
    OwnDirectoryWindow() { window.setQuiet(true); }
    QString path(const char* name) const { return dir.filePath(QLatin1String(name)); }
    // A sample session copied here, opened.
    QString openSession()
    {
        const QString session = path("work.csession");
        REQUIRE(QFile::copy(sampleFile("fairwater-gb200-128.csession"), session));
        REQUIRE(QFile::setPermissions(session, QFile::ReadOwner | QFile::WriteOwner));
        REQUIRE(window.openFile(session));
        return session;
    }
    void edit(double nicGbps)
    {
        REQUIRE(window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), nicGbps));
        REQUIRE(window.document()->isModified());
    }
    // Whatever is in the directory besides the recovery directory.
    QStringList files() const
    {
        return QDir(dir.path()).entryList(QDir::Files | QDir::System | QDir::Hidden, QDir::Name);
    }
};

// Answers the question the window asks next, as a user would: its action, or Cancel.
void answerNextQuestion(bool accept)
{
    QTimer::singleShot(0, [accept] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        CHECK(box);
        if (!box)
            return;
        for (QAbstractButton* button : box->buttons())
            if (box->buttonRole(button) ==
                (accept ? QMessageBox::AcceptRole : QMessageBox::RejectRole))
                button->click();
    });
}

// What the code under test prints on stderr while the object lives, through a pipe (a full disk
// does not stop a pipe).
class StderrCapture {
public:
    StderrCapture()
    {
        REQUIRE(::pipe(m_pipe) == 0);
        std::fflush(stderr);
        m_saved = ::dup(2);
        ::dup2(m_pipe[1], 2);
    }
    ~StderrCapture() { restore(); }
    QString text()
    {
        restore();
        QByteArray out;
        char chunk[4096];
        for (ssize_t n; (n = ::read(m_pipe[0], chunk, sizeof chunk)) > 0;)
            out.append(chunk, n);
        ::close(m_pipe[0]);
        return QString::fromUtf8(out);
    }

private:
    void restore()
    {
        if (m_saved < 0)
            return;
        std::fflush(stderr);
        ::dup2(m_saved, 2);
        ::close(m_saved);
        ::close(m_pipe[1]);
        m_saved = -1;
    }
    int m_pipe[2] = {-1, -1};
    int m_saved = -1;
};

} // namespace

TEST_CASE("Save on a full disk says why and keeps the session file and the recovery file",
          "[datasafety][save]")
{
    OwnDirectoryWindow f;
    const QString session = f.openSession();
    f.edit(1000);
    REQUIRE(f.window.autosaver()->writeNow());
    const QString recovery = f.window.autosaver()->recoveryPath();
    const QByteArray sessionBefore = bytesOf(session), recoveryBefore = bytesOf(recovery);
    REQUIRE(recoveryBefore.size() > 16);
    {
        testing::FullDisk full;
        REQUIRE(full.active());
        CHECK_FALSE(f.window.save());
    }
    CHECK(f.window.lastProblem() == session + QStringLiteral(": cannot write: File too large"));
    CHECK(f.window.document()->isModified());
    CHECK(bytesOf(session) == sessionBefore);
    CHECK(bytesOf(recovery) == recoveryBefore);
    CHECK(f.files() == QStringList{QStringLiteral("work.csession")});

    // With room again the same save goes through; only then does the recovery file go.
    REQUIRE(f.window.save());
    CHECK_FALSE(QFile::exists(recovery));
    CHECK(sessionIn(session).cluster.scaleOut.GbpsPerGpu == 1000.0);
}

TEST_CASE("an autosave on a full disk reports and keeps the last recovery file",
          "[datasafety][recovery]")
{
    OwnDirectoryWindow f;
    f.openSession();
    f.edit(1000);
    REQUIRE(f.window.autosaver()->writeNow());
    const QString recovery = f.window.autosaver()->recoveryPath();
    const QByteArray before = bytesOf(recovery);
    f.edit(1200);
    {
        testing::FullDisk full;
        REQUIRE(full.active());
        CHECK_FALSE(f.window.autosaver()->writeNow());
    }
    CHECK(f.window.lastProblem() == recovery + QStringLiteral(": cannot write: File too large"));
    CHECK(bytesOf(recovery) == before);
}

TEST_CASE("every export on a full disk says why and keeps the old file", "[datasafety][exports]")
{
    OwnDirectoryWindow f;
    f.openSession();
    Document* doc = f.window.document();
    const auto exports =
        std::vector<std::pair<const char*, std::function<bool(QString, QString*)>>>{
            {"v.png",
             [&](QString p, QString* e) {
                 return exportWidget(f.window.topologyView(), p, QStringLiteral("PNG"), e);
             }},
            {"v.svg",
             [&](QString p, QString* e) {
                 return exportWidget(f.window.topologyView(), p, QStringLiteral("SVG"), e);
             }},
            {"v.pdf",
             [&](QString p, QString* e) {
                 return exportWidget(&f.window, p, QStringLiteral("PDF"), e);
             }},
            {"b.csv",
             [&](QString p, QString* e) {
                 return exportBreakdownCsv(doc->evaluation(), doc->run(), p, e);
             }},
            {"t.json",
             [&](QString p, QString* e) {
                 return exportStepTrace(doc->cluster(), doc->run(), p, e);
             }},
        };
    for (const auto& [name, write] : exports) {
        INFO(name);
        const QString path = f.path(name);
        writeBytes(path, "old");
        QString error;
        {
            testing::FullDisk full;
            REQUIRE(full.active());
            CHECK_FALSE(write(path, &error));
        }
        CHECK(error == path + QStringLiteral(": cannot write: File too large"));
        CHECK(bytesOf(path) == "old");
        // The same export with room: the check above failed for want of space, nothing else.
        REQUIRE(write(path, &error));
        CHECK(bytesOf(path).size() > 16);
    }
    CHECK(f.files().size() == 6); // the session and the five exports, no temporary files
}

TEST_CASE("the PNG of --render on a full disk: the reason, and the old PNG whole",
          "[datasafety][render]")
{
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("view.png"));
    writeBytes(png, "an old PNG");
    RenderRequest request;
    request.input = sampleFile("ndv5-h200-64-gpt3-175b.run.json");
    request.output = png;
    request.size = QSize(320, 200);
    StderrCapture stderrText;
    int status = 0;
    {
        testing::FullDisk full;
        REQUIRE(full.active());
        status = renderToPng(request);
    }
    CHECK(status == 1);
    CHECK_THAT(
        stderrText.text().toStdString(),
        Catch::Contains((png + QStringLiteral(": cannot write: File too large\n")).toStdString()));
    CHECK(bytesOf(png) == "an old PNG");
    CHECK(QDir(dir.path()).entryList(QDir::Files) == QStringList{QStringLiteral("view.png")});
}

TEST_CASE("Save refuses a read-only session file and writes through a link", "[datasafety][save]")
{
    OwnDirectoryWindow f;
    const QString session = f.openSession();
    f.edit(1000);
    const QByteArray before = bytesOf(session);
    REQUIRE(QFile::setPermissions(session, QFile::ReadOwner | QFile::ReadGroup));
    CHECK_FALSE(f.window.save());
    CHECK(f.window.lastProblem().startsWith(session +
                                            QStringLiteral(": cannot write: Permission denied")));
    CHECK(bytesOf(session) == before);
    CHECK((testing::modeOf(session.toStdString()) & 07777) == 0440);
    CHECK(f.window.document()->isModified());

    REQUIRE(QFile::setPermissions(session, QFile::ReadOwner | QFile::WriteOwner));
    const QString link = f.path("link.csession");
    REQUIRE(QFile::link(session, link));
    REQUIRE(f.window.saveTo(link));
    CHECK(QFileInfo(link).isSymLink());
    CHECK(sessionIn(session).cluster.scaleOut.GbpsPerGpu == 1000.0);
}

TEST_CASE("a running window's recovery file is neither offered nor deleted by another",
          "[datasafety][recovery]")
{
    QTemporaryDir dir;
    MainWindow first(dir.path());
    first.setQuiet(true);
    REQUIRE(first.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    REQUIRE(first.propertiesPanel()->editField(QStringLiteral("Micro-batch"), 1));
    REQUIRE(first.autosaver()->writeNow());
    const QString firstRecovery = first.autosaver()->recoveryPath();
    const QByteArray firstBytes = bytesOf(firstRecovery);
    {
        MainWindow second(dir.path());
        second.setQuiet(true); // quiet restores whatever is offered
        CHECK_FALSE(second.offerRecovery());
        CHECK(second.autosaver()->recoveryPath() != firstRecovery);
        CHECK_FALSE(second.document()->isModified());
    }
    CHECK(bytesOf(firstRecovery) == firstBytes);
}

TEST_CASE("a crashed window's recovery becomes the restoring window's own",
          "[datasafety][recovery]")
{
    QTemporaryDir dir;
    QString crashedRecovery;
    {
        MainWindow crashed(dir.path());
        crashed.setQuiet(true);
        REQUIRE(crashed.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
        REQUIRE(crashed.propertiesPanel()->editField(QStringLiteral("Layers"), 48));
        REQUIRE(crashed.autosaver()->writeNow());
        crashedRecovery = crashed.autosaver()->recoveryPath();
        // Destroyed without closeEvent, as a crash leaves it: the lock goes, the file stays.
    }
    MainWindow next(dir.path());
    next.setQuiet(true);
    REQUIRE(next.offerRecovery());
    CHECK(next.document()->run().model.layers == 48);
    CHECK_FALSE(QFile::exists(crashedRecovery));
    CHECK(sessionIn(next.autosaver()->recoveryPath()).run.model.layers == 48);
    // The restored changes belong to a running window now: nobody else is offered them.
    MainWindow another(dir.path());
    another.setQuiet(true);
    CHECK_FALSE(another.offerRecovery());
}

TEST_CASE("the recovery file every instance shared before is still offered",
          "[datasafety][recovery]")
{
    QTemporaryDir dir;
    REQUIRE(QFile::copy(sampleFile("fairwater-gb200-128.csession"),
                        dir.filePath(QStringLiteral("recovery.csession"))));
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.offerRecovery());
    CHECK(window.document()->isModified());
    CHECK_FALSE(QFile::exists(dir.filePath(QStringLiteral("recovery.csession"))));
}

TEST_CASE("a session open in another window is flagged", "[datasafety][instances]")
{
    QTemporaryDir recovery;
    OwnDirectoryWindow files; // only for its directory and sample copy
    const QString session = files.openSession();
    {
        MainWindow first(recovery.path());
        first.setQuiet(true);
        REQUIRE(first.openFile(session));
        CHECK(first.lastProblem().isEmpty());
        MainWindow second(recovery.path());
        second.setQuiet(true);
        REQUIRE(second.openFile(session)); // quiet opens it anyway; a user is asked
        CHECK_THAT(second.lastProblem().toStdString(),
                   Catch::Contains("is open in another ClusterScope window"));
    }
    MainWindow later(recovery.path());
    later.setQuiet(true);
    REQUIRE(later.openFile(session));
    CHECK(later.lastProblem().isEmpty());
}

TEST_CASE("saving over a file changed on disk since it was opened asks first", "[datasafety][save]")
{
    OwnDirectoryWindow f;
    const QString session = f.openSession();
    f.edit(1000);
    cs::Session theirs = sessionIn(session);
    theirs.run.name = "Changed by someone else";
    const QByteArray theirBytes = sessionBytes(theirs);
    writeBytes(session, theirBytes);

    CHECK_FALSE(f.window.save()); // quiet answers Cancel
    CHECK_THAT(f.window.lastProblem().toStdString(), Catch::Contains("changed on disk"));
    CHECK(bytesOf(session) == theirBytes);
    CHECK(f.window.document()->isModified());

    // Asked in a window, the user chooses to save over it.
    f.window.setQuiet(false);
    answerNextQuestion(true);
    CHECK(f.window.save());
    f.window.setQuiet(true);
    CHECK(sessionIn(session).cluster.scaleOut.GbpsPerGpu == 1000.0);

    // What this window saved is what it compares with next time: no question.
    f.edit(1200);
    CHECK(f.window.save());
    // Rewritten with the same bytes (a touch, a copy back): nothing changed, no question.
    writeBytes(session, bytesOf(session));
    f.edit(1400);
    CHECK(f.window.save());
}

TEST_CASE("a restored session still notices its file changed on disk", "[datasafety][recovery]")
{
    QTemporaryDir recovery;
    OwnDirectoryWindow files;
    const QString session = files.openSession();
    {
        MainWindow crashed(recovery.path());
        crashed.setQuiet(true);
        REQUIRE(crashed.openFile(session));
        REQUIRE(crashed.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), 1000.0));
        REQUIRE(crashed.autosaver()->writeNow());
    }
    cs::Session theirs = sessionIn(session);
    theirs.run.name = "Changed while the window was down";
    writeBytes(session, sessionBytes(theirs));
    MainWindow next(recovery.path());
    next.setQuiet(true);
    REQUIRE(next.offerRecovery());
    CHECK_FALSE(next.save());
    CHECK_THAT(next.lastProblem().toStdString(), Catch::Contains("changed on disk"));
    CHECK(sessionIn(session).run.name == "Changed while the window was down");
}

TEST_CASE("a value typed in Properties but not confirmed is saved, prompted for and compared",
          "[datasafety][pending]")
{
    OwnDirectoryWindow f;
    const QString session = f.openSession();
    Document* doc = f.window.document();
    auto* nic = f.window.propertiesPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("NIC Gb/s"));
    auto* model = f.window.propertiesPanel()->findChild<QLineEdit*>(QStringLiteral("Model"));
    REQUIRE(nic);
    REQUIRE(model);

    SECTION("Save")
    {
        typeInto(nic, QStringLiteral("1000"));
        typeInto(model, QStringLiteral("Typed, not confirmed"));
        REQUIRE_FALSE(doc->isModified()); // nothing confirmed yet
        REQUIRE(f.window.save());
        const cs::Session saved = sessionIn(session);
        CHECK(saved.cluster.scaleOut.GbpsPerGpu == 1000.0);
        CHECK(saved.run.model.name == "Typed, not confirmed");
        CHECK_FALSE(doc->isModified());
    }
    SECTION("Quit")
    {
        typeInto(nic, QStringLiteral("1000"));
        CHECK_FALSE(f.window.close()); // quiet: unsaved changes keep the window open
        CHECK_THAT(f.window.lastProblem().toStdString(), Catch::Contains("unsaved changes"));
        CHECK(doc->cluster().scaleOut.GbpsPerGpu == 1000.0);
    }
    SECTION("Compare")
    {
        typeInto(nic, QStringLiteral("1000"));
        REQUIRE(f.window.compareWith(sampleFile("fairwater-gb200-112.cluster.json")));
        REQUIRE(doc->undoStack()->count() == 2);
        CHECK(doc->undoStack()->text(0).contains(QStringLiteral("NIC Gb/s")));
        CHECK(doc->cluster().scaleOut.GbpsPerGpu == 1000.0);
        CHECK(doc->session().compare);
    }
    SECTION("a typed value that breaks a rule stops the save")
    {
        auto* tp = f.window.propertiesPanel()->findChild<QSpinBox*>(QStringLiteral("TP"));
        REQUIRE(tp);
        const QByteArray before = bytesOf(session);
        typeInto(tp, QStringLiteral("5"));
        CHECK_FALSE(f.window.save()); // quiet: Cancel, keep the typed value
        CHECK_THAT(f.window.lastProblem().toStdString(), Catch::Contains("TP cannot be 5"));
        CHECK(bytesOf(session) == before);
        CHECK(tp->value() == 5);
        // Asked in a window, the user goes on without it: saved as the document is, the field
        // shows the document's value again.
        f.window.setQuiet(false);
        answerNextQuestion(true);
        CHECK(f.window.save());
        f.window.setQuiet(true);
        CHECK(sessionIn(session).run.parallelism.tp == doc->run().parallelism.tp);
        CHECK(tp->value() == doc->run().parallelism.tp);
        CHECK(f.window.propertiesPanel()->problem().isEmpty());
    }
}

TEST_CASE("Compare With and Open of a FIFO fail at once, naming it", "[datasafety][fifo]")
{
    OwnDirectoryWindow f;
    f.openSession();
    const cs::Session before = f.window.document()->session();
    for (const char* name : {"pipe.run.json", "pipe.csession"}) {
        testing::WatchedFifo fifo(f.path(name).toStdString());
        REQUIRE(fifo.made());
        const QString path = QString::fromStdString(fifo.path());
        const QString refusal = path + QStringLiteral(": is a FIFO (named pipe), not a file");
        CHECK_FALSE(f.window.compareWith(path));
        CHECK(f.window.lastProblem().trimmed() == refusal);
        CHECK_FALSE(f.window.openFile(path));
        CHECK(f.window.lastProblem().trimmed() == refusal);
        CHECK_FALSE(fifo.opened());
    }
    CHECK(f.window.document()->session() == before);
}
