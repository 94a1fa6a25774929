// Latency of an edit: from a value changed in the properties panel to every view (topology,
// timeline, charts, inspector) repainted, on the 8,192-GPU Fairwater sample in a 1920x1080
// window. Baseline in the same run: repainting the window with nothing changed.

#include <QApplication>
#include <QDir>
#include <QImage>
#include <cstdio>
#include <cstdlib>

#include "benchutil.h"
#include "document.h"
#include "mainwindow.h"
#include "propertiespanel.h"

int main(int argc, char** argv)
{
    setenv("QT_QPA_PLATFORM", "offscreen", 0);
    QApplication app(argc, argv);
    MainWindow window(QDir::temp().filePath(QStringLiteral("bench_edit_recovery.csession")));
    window.setQuiet(true);
    if (!window.openFile(QStringLiteral(CS_SAMPLES_DIR "/fairwater-gb200-128.csession")))
        return 1;
    window.resize(1920, 1080);
    window.show();
    QApplication::processEvents();
    QImage image(window.size(), QImage::Format_ARGB32_Premultiplied);
    window.render(&image);

    constexpr int kEdits = 21;
    // Alternate the NIC rate so every edit changes the model and re-evaluates it.
    const double edit = csbench::medianMs(kEdits, [&](int i) {
        window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), i % 2 ? 800.0 : 400.0);
        QApplication::processEvents();
        window.render(&image);
    });
    const double repaint = csbench::medianMs(kEdits, [&](int) { window.render(&image); });
    const double evaluate = csbench::medianMs(
        kEdits, [&](int) { cs::evaluate(window.document()->cluster(), window.document()->run()); });
    std::printf("edit to all views repainted, 8,192 GPUs, 1920x1080: %.1f ms median of %d edits\n",
                edit, kEdits);
    std::printf("  of which the cost model with its events: %.2f ms\n", evaluate);
    std::printf("baseline, repainting with nothing changed: %.1f ms (edit is %.1fx it)\n", repaint,
                edit / repaint);
    return window.propertiesPanel()->problem().isEmpty() ? 0 : 1;
}
