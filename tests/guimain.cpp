#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>
#include <cstdlib>

int main(int argc, char** argv)
{
    // Before QApplication exists: test discovery and CI have no display.
    setenv("QT_QPA_PLATFORM", "offscreen", 0);
    QApplication app(argc, argv);
    return Catch::Session().run(argc, argv);
}
