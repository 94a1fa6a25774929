// Frame time of the step animation: the whole 1920x1080 window (topology in activity colours
// with lit links, timeline with its cursor, playback bar, charts) rendered offscreen frame by
// frame while playing the 8,192-GPU Fairwater sample. Baselines in the same run: a frame that
// also rebuilds the charts (what the views avoid), and the blit of a cached window image.
// Usage: bench_playback [DIR] writes the first frame to DIR/playback.png to look at.

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <cstdio>
#include <cstdlib>

#include "benchutil.h"
#include "breakdownchart.h"
#include "document.h"
#include "mainwindow.h"
#include "playbackbar.h"
#include "scaling.h"
#include "scalingchart.h"

namespace {

constexpr int kFrames = 120;
constexpr double kFrameWallS = 1.0 / 60;
const QSize kSize(1920, 1080);

} // namespace

int main(int argc, char** argv)
{
    setenv("QT_QPA_PLATFORM", "offscreen", 0);
    QApplication app(argc, argv);
    MainWindow window(QDir::temp().filePath(QStringLiteral("bench_playback_recovery")));
    if (!window.openFile(QStringLiteral(CS_SAMPLES_DIR "/fairwater-gb200-128.csession")))
        return 1;
    Document* doc = window.document();
    window.resize(kSize);
    window.show();
    QApplication::processEvents();

    auto* bar = window.findChild<PlaybackBar*>();
    auto* breakdown = window.findChild<BreakdownChart*>();
    auto* scaling = window.findChild<ScalingChart*>();
    // Halfway through the step, where the backward pass reduces gradients over the fabric.
    cs::ViewState view = doc->view();
    view.timeS = 0.8 * doc->evaluation().stepTimeS;
    view.colorBy = {cs::ColorKind::Activity};
    view.playing = true;
    doc->setView(view);

    QImage image(window.size(), QImage::Format_ARGB32_Premultiplied);
    window.render(&image); // warms every cache
    if (argc > 1)
        image.save(QDir(QString::fromLocal8Bit(argv[1])).filePath(QStringLiteral("playback.png")));

    // As on screen: the event loop repaints what changed into the window's backing store.
    const double onScreen = csbench::medianMs(kFrames, [&](int) {
        bar->advance(kFrameWallS);
        QApplication::processEvents();
    });
    const double playing = csbench::medianMs(kFrames, [&](int) {
        bar->advance(kFrameWallS);
        window.render(&image);
    });
    const double rebuildingCharts = csbench::medianMs(kFrames / 4, [&](int frame) {
        bar->advance(kFrameWallS);
        // With and without the measured bar in turn: the breakdown cannot update in place.
        breakdown->setEvaluation(doc->evaluation(),
                                 frame % 2 ? std::optional<double>(1.0) : std::nullopt);
        scaling->setPoints(cs::weakScaling(doc->cluster(), doc->run()));
        window.render(&image);
    });
    const QImage cached = image.copy();
    const double blit = csbench::medianMs(kFrames, [&](int) {
        QPainter p(&image);
        p.drawImage(0, 0, cached);
    });

    std::printf("playback frame, 8,192 GPUs, whole %dx%d window rendered: %.2f ms median over "
                "%d frames\n",
                kSize.width(), kSize.height(), playing, kFrames);
    std::printf("playback frame as on screen (only what changed repainted): %.2f ms\n", onScreen);
    std::printf("baseline, also rebuilding the charts each frame: %.2f ms (%.1fx the frame)\n",
                rebuildingCharts, rebuildingCharts / playing);
    std::printf("floor, blit of a cached window image: %.3f ms (frame is %.1fx it)\n", blit,
                playing / blit);
    return 0;
}
