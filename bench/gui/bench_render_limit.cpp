// Rendering the largest cluster accepted (131,072 GB200 in 2,048 NVL72 racks) once at
// 1920x1080 offscreen, as `clusterscope --render` does, against the 8,192-GPU Fairwater sample
// (the baseline): time to build the document (topology, placement, evaluation), the layout
// and the first frame, the median of later frames, and the peak RSS. Each size runs in its
// own child process, so that one peak does not hide the other.

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <sys/resource.h>

#include "benchutil.h"
#include "document.h"
#include "documentio.h"
#include "topologyscene.h"

namespace {

const QSize kSize(1920, 1080);

struct Result {
    int64_t gpus = 0;
    double documentMs = 0;
    double layoutMs = 0;
    double firstFrameMs = 0;
    double frameMs = 0;
    long peakKiB = 0;
};

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Result render(int argc, char** argv, int racks)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QString problems;
    auto session = loadSessionFromFile(
        QStringLiteral(CS_SAMPLES_DIR "/fairwater-gb200-128.csession"), &problems);
    if (!session) {
        std::fprintf(stderr, "%s\n", qPrintable(problems));
        std::exit(1);
    }
    // One Llama 3.1 405B replica (64 GPUs) a rack and 9 sequences per replica, as the sample.
    session->cluster.racks = racks;
    session->cluster.layoutRows = racks >= 1024 ? 32 : session->cluster.layoutRows;
    session->run.parallelism.dp = racks;
    session->run.batch.global = 9 * racks;
    session->compare.reset();
    session->view = cs::ViewState{};
    session->view->colorBy = {cs::ColorKind::Activity};
    session->view->timeS = 0.5;

    Result r;
    auto t0 = std::chrono::steady_clock::now();
    Document document;
    document.setSession(std::move(*session), QString());
    r.documentMs = msSince(t0);
    r.gpus = int64_t(document.topology().gpus().size());

    t0 = std::chrono::steady_clock::now();
    TopologyScene scene(document.topology(), document.placement(), document.evaluation(),
                        double(kSize.width()) / kSize.height());
    scene.applyView(document.view());
    r.layoutMs = msSince(t0);

    const ViewTransform view = scene.transform(document.view(), QSizeF(kSize));
    QImage image(kSize, QImage::Format_ARGB32_Premultiplied);
    t0 = std::chrono::steady_clock::now();
    {
        QPainter p(&image);
        scene.renderer().paint(p, view);
    }
    r.firstFrameMs = msSince(t0);
    r.frameMs = csbench::medianMs(15, [&](int) {
        QPainter p(&image);
        scene.renderer().paint(p, view);
    });
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    r.peakKiB = usage.ru_maxrss;
    return r;
}

Result inChild(int argc, char** argv, int racks)
{
    return csbench::inChildProcess([&] { return render(argc, argv, racks); });
}

void print(const char* label, const Result& r)
{
    std::printf("%-9s %6lld GPUs  document %7.1f ms  layout %7.1f ms  first frame %7.1f ms  "
                "frame %6.1f ms  peak RSS %6.1f MiB\n",
                label, static_cast<long long>(r.gpus), r.documentMs, r.layoutMs, r.firstFrameMs,
                r.frameMs, double(r.peakKiB) / 1024);
}

} // namespace

int main(int argc, char** argv)
{
    std::printf("rendering the Fairwater NVL72 cluster at %dx%d offscreen (activity colours)\n",
                kSize.width(), kSize.height());
    const Result base = inChild(argc, argv, 128);
    print("baseline", base);
    const Result limit = inChild(argc, argv, 2048);
    print("limit", limit);
    const double baseTotal = base.documentMs + base.layoutMs + base.firstFrameMs;
    const double limitTotal = limit.documentMs + limit.layoutMs + limit.firstFrameMs;
    std::printf("limit / baseline: to first frame x%.1f (%.0f ms), frame x%.1f, peak RSS x%.1f "
                "(GPUs x%.0f)\n",
                limitTotal / baseTotal, limitTotal, limit.frameMs / base.frameMs,
                double(limit.peakKiB) / double(base.peakKiB),
                double(limit.gpus) / double(base.gpus));
    return 0;
}
