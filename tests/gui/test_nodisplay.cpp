// Started where there is no display (a server, SSH without X forwarding), the application says
// what is missing and what to do, and exits 1, instead of Qt's advice to reinstall; what needs
// no display still works there.

#include <catch2/catch.hpp>

#include <QProcess>
#include <QProcessEnvironment>

#include "guitestutil.h"

namespace {

struct Ended {
    int exitCode = -1;
    QString err;
    QString out;
};

// The application run with no display and no platform chosen.
Ended runWithoutDisplay(const QStringList& arguments)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(name));
    QProcess app;
    app.setProcessEnvironment(env);
    app.start(QStringLiteral(CS_APP_BINARY), arguments);
    REQUIRE(app.waitForStarted(10'000));
    REQUIRE(app.waitForFinished(30'000));
    REQUIRE(app.exitStatus() == QProcess::NormalExit);
    return {app.exitCode(), QString::fromUtf8(app.readAllStandardError()),
            QString::fromUtf8(app.readAllStandardOutput())};
}

} // namespace

TEST_CASE("with no display the application says what is missing and exits 1", "[nodisplay]")
{
    const QStringList arguments =
        GENERATE(QStringList(), QStringList{sampleFile("fairwater-gb200-128.csession")});
    const Ended ended = runWithoutDisplay(arguments);
    INFO(ended.err.toStdString());
    CHECK(ended.exitCode == 1);
    for (const char* said : {"no display", "DISPLAY", "WAYLAND_DISPLAY", "ssh -X",
                             "clusterscope --render OUT.png FILE"})
        CHECK(ended.err.contains(QString::fromLatin1(said)));
    CHECK_FALSE(ended.err.contains(QStringLiteral("Reinstalling")));
}

TEST_CASE("what needs no display still runs without one", "[nodisplay]")
{
    const Ended ended = runWithoutDisplay({QStringLiteral("--version")});
    INFO(ended.err.toStdString());
    CHECK(ended.exitCode == 0);
    CHECK(ended.out.contains(QStringLiteral(CLUSTERSCOPE_VERSION)));
}
