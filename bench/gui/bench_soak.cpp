// Soak: the step animation of the 8,192-GPU Fairwater sample playing for N minutes (default
// 10; `bench_soak 2` for two) in the main window with the step views, every frame rendered
// offscreen. The resident set must not grow: it is printed at the start, every minute and at
// the end, with the frames the topology view painted.

#include <QApplication>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "document.h"
#include "mainwindow.h"
#include "paintcounter.h"
#include "playbackbar.h"
#include "stepviews.h"
#include "topologyview.h"

namespace {

double residentMiB()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmRSS:") {
            double kib = 0;
            status >> kib;
            return kib / 1024;
        }
        status.ignore(4096, '\n');
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const double minutes = argc > 1 ? std::atof(argv[1]) : 10.0;
    if (minutes <= 0) {
        std::fprintf(stderr, "usage: bench_soak [MINUTES]\n");
        return 2;
    }
    QTemporaryDir recovery; // keeps autosave away from the user's recovery file
    MainWindow window(recovery.path());
    window.setQuiet(true);
    window.resize(1920, 1080);
    if (!window.openFile(QStringLiteral(CS_SAMPLES_DIR "/fairwater-gb200-128.csession"))) {
        std::fprintf(stderr, "%s\n", qPrintable(window.lastProblem()));
        return 1;
    }
    if (!window.findChild<PlaybackBar*>())
        addStepViews(&window, window.document());
    auto* bar = window.findChild<PlaybackBar*>();
    window.show();

    PaintCounter counter;
    counter.watch(window.topologyView());
    if (!bar->looping())
        bar->loopAction()->trigger();
    bar->setSpeed(0.25); // a step of about 1.3 s every 5 s: every phase is seen many times
    if (!bar->playing())
        bar->togglePlaying();
    QApplication::processEvents();

    const double start = residentMiB();
    std::printf("playing %.1f min on %zu GPUs at 1920x1080\n", minutes,
                window.document()->topology().gpus().size());
    std::printf("start     RSS %7.1f MiB\n", start);
    int minute = 0;
    QTimer everyMinute;
    QObject::connect(&everyMinute, &QTimer::timeout, [&] {
        ++minute;
        std::printf("minute %2d RSS %7.1f MiB  %ld frames, t = %.3f s\n", minute, residentMiB(),
                    counter.paints(window.topologyView()), bar->time());
        std::fflush(stdout);
    });
    everyMinute.start(60 * 1000);
    QTimer::singleShot(int(minutes * 60 * 1000), &app, &QApplication::quit);
    app.exec();

    const double end = residentMiB();
    std::printf("end       RSS %7.1f MiB  %ld frames (%.1f per second)\n", end,
                counter.paints(window.topologyView()),
                double(counter.paints(window.topologyView())) / (minutes * 60));
    std::printf("end / start: x%.3f (%+.1f MiB)\n", end / start, end - start);
    return bar->playing() ? 0 : 1;
}
