// Frame time of the topology view on the largest samples at 1920x1080, every GPU recoloured
// each frame as the step animation does, against one QGraphicsRectItem per GPU.

#include <QApplication>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <cstdio>
#include <cstdlib>

#include "benchutil.h"
#include "document.h"
#include "documentio.h"
#include "topologyscene.h"

namespace {

constexpr int kFrames = 60;
const QSize kSize(1920, 1080);

void recolor(GpuColors& colors, int frame)
{
    const size_t n = colors.palette.size();
    for (size_t g = 0; g < colors.index.size(); ++g)
        colors.index[g] = uint16_t((g / 4 + size_t(frame)) % n);
}

double productFrameMs(TopologyScene& scene, const ViewTransform& view, QImage& image)
{
    GpuColors colors;
    for (int i = 0; i < kCategoricalColors; ++i)
        colors.palette.push_back(categoricalColor(i).rgb());
    colors.index.resize(scene.layout().topology().gpus().size());
    {
        QPainter warm(&image);
        scene.renderer().paint(warm, view); // builds the static layer once
    }
    return csbench::medianMs(kFrames, [&](int frame) {
        recolor(colors, frame);
        scene.renderer().setGpuColors(colors);
        QPainter p(&image);
        scene.renderer().paint(p, view);
    });
}

// A drag: the static layer scrolls and only the uncovered strip is drawn.
double panFrameMs(TopologyScene& scene, const ViewTransform& view, QImage& image)
{
    return csbench::medianMs(kFrames, [&](int frame) {
        ViewTransform moved = view;
        moved.center += QPointF((frame % 2 ? 8 : -8) / view.scale, 0);
        QPainter p(&image);
        scene.renderer().paint(p, moved);
    });
}

// A wheel step: the whole static layer is redrawn at the new scale.
double zoomFrameMs(TopologyScene& scene, const ViewTransform& view, QImage& image)
{
    return csbench::medianMs(15, [&](int frame) {
        const ViewTransform zoomed = view.zoomedAt(QPointF(700, 400), frame % 2 ? 1.1 : 1.0 / 1.1);
        QPainter p(&image);
        scene.renderer().paint(p, zoomed);
    });
}

// A wheel turning: each step scales the last exact layer; the exact one follows when it rests.
double zoomPreviewFrameMs(TopologyScene& scene, const ViewTransform& view, QImage& image)
{
    {
        QPainter exact(&image);
        scene.renderer().paint(exact, view);
    }
    scene.renderer().setScalingPreview(true);
    const double ms = csbench::medianMs(kFrames, [&](int frame) {
        const ViewTransform zoomed = view.zoomedAt(QPointF(700, 400), 1.0 + 0.01 * (frame + 1));
        QPainter p(&image);
        scene.renderer().paint(p, zoomed);
    });
    scene.renderer().setScalingPreview(false);
    return ms;
}

double baselineFrameMs(const TopologyScene& scene, const ViewTransform& view, QImage& image)
{
    QGraphicsScene graphics;
    graphics.setItemIndexMethod(QGraphicsScene::NoIndex);
    graphics.setBackgroundBrush(TopologyRenderer::background());
    std::vector<QGraphicsRectItem*> items;
    const auto& layout = scene.layout();
    // The same picture as the product: racks, trays, switches and link bundles as items under
    // one item per GPU.
    const cs::Topology& topology = layout.topology();
    const QPen outline(QColor(120, 160, 60), 0);
    for (size_t r = 0; r < topology.racks().size(); ++r)
        graphics.addRect(layout.rackRect(int(r)), outline, QColor(40, 44, 50));
    for (size_t n = 0; n < topology.nodes().size(); ++n)
        graphics.addRect(layout.trayRect(int(n)), Qt::NoPen, QColor(50, 54, 60));
    for (size_t s = 0; s < topology.switches().size(); ++s)
        graphics.addRect(layout.switchRect(int(s)), Qt::NoPen, QColor(90, 140, 200));
    for (const LinkBundle& b : layout.bundles())
        graphics.addLine(b.line, QPen(QColor(70, 110, 150), 0));
    for (size_t g = 0; g < layout.topology().gpus().size(); ++g) {
        auto* item = graphics.addRect(layout.gpuRect(int(g)), Qt::NoPen);
        items.push_back(item);
    }
    const QRectF source = view.visibleWorld();
    return csbench::medianMs(kFrames / 3, [&](int frame) {
        for (size_t g = 0; g < items.size(); ++g)
            items[g]->setBrush(categoricalColor(int((g / 4 + size_t(frame)) % kCategoricalColors)));
        QPainter p(&image);
        graphics.render(&p, QRectF(QPointF(0, 0), QSizeF(kSize)), source);
    });
}

void benchSample(const char* file)
{
    const QString path = QStringLiteral(CS_SAMPLES_DIR "/") + QString::fromLatin1(file);
    QString problems;
    auto session = loadSessionFromFile(path, &problems);
    if (!session) {
        std::fprintf(stderr, "%s\n", qPrintable(problems));
        std::exit(1);
    }
    Document document;
    document.setSession(std::move(*session), path);
    TopologyScene scene(document.topology(), document.placement(), document.evaluation(),
                        double(kSize.width()) / kSize.height());
    QImage image(kSize, QImage::Format_ARGB32_Premultiplied);

    cs::ViewState fit;
    const ViewTransform full = scene.transform(fit, QSizeF(kSize));
    const QRectF rack = scene.layout().rackRect(0);
    const ViewTransform oneRack{fitScale(rack, QSizeF(kSize)), rack.center(), QSizeF(kSize)};

    const double fullMs = productFrameMs(scene, full, image);
    const double rackMs = productFrameMs(scene, oneRack, image);
    const double panMs = panFrameMs(scene, full, image);
    const double zoomMs = zoomFrameMs(scene, full, image);
    const double previewMs = zoomPreviewFrameMs(scene, full, image);
    const double baseMs = baselineFrameMs(scene, full, image);
    std::printf("%s: %zu GPUs at %dx%d\n", file, document.topology().gpus().size(), kSize.width(),
                kSize.height());
    std::printf("  full view, all GPUs recoloured:  %7.2f ms/frame\n", fullMs);
    std::printf("  one rack filling the view:       %7.2f ms/frame\n", rackMs);
    std::printf("  full view, panning (layer scrolls): %5.2f ms/frame\n", panMs);
    std::printf("  full view, zoom at rest (layer redrawn): %5.2f ms/frame\n", zoomMs);
    std::printf("  full view, wheel turning (layer scaled): %5.2f ms/frame\n", previewMs);
    std::printf("  baseline QGraphicsRectItem/GPU:  %7.2f ms/frame\n", baseMs);
    std::printf("  speed-up over baseline:          %7.1fx\n", baseMs / fullMs);
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchSample("fairwater-gb200-128.csession");
    benchSample("ndv5-h100-1344-gpt3-175b.csession");
    return 0;
}
