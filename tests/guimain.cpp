#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>
#include <QStandardPaths>
#include <cstdlib>

int main(int argc, char** argv)
{
    // Before QApplication exists: test discovery and CI have no display.
    setenv("QT_QPA_PLATFORM", "offscreen", 0);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("ClusterScopeTests"));
    // Settings and recovery files go to test locations, never the user's.
    QStandardPaths::setTestModeEnabled(true);
    return Catch::Session().run(argc, argv);
}
