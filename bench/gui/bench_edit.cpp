// Latency of an edit: from a value changed in the properties panel until every view that shows
// the model (topology, timeline, both breakdown charts) has repainted, on the 8,192-GPU
// Fairwater sample in a 1920x1080 window. Baseline in the same run: repainting the whole
// window with nothing changed.

#include <QApplication>
#include <QDir>
#include <cstdio>
#include <cstdlib>

#include "benchutil.h"
#include "breakdownchart.h"
#include "cachedchartview.h"
#include "document.h"
#include "mainwindow.h"
#include "paintcounter.h"
#include "propertiespanel.h"
#include "timelineview.h"
#include "topologyview.h"

int main(int argc, char** argv)
{
    setenv("QT_QPA_PLATFORM", "offscreen", 0);
    QApplication app(argc, argv);
    MainWindow window(QDir::temp().filePath(QStringLiteral("bench_edit_recovery")));
    window.setQuiet(true);
    if (!window.openFile(QStringLiteral(CS_SAMPLES_DIR "/fairwater-gb200-128.csession")))
        return 1;
    window.resize(1920, 1080);
    window.show();
    QApplication::processEvents();

    PaintCounter counter;
    counter.watch(window.findChild<TopologyView*>());
    counter.watch(window.findChild<TimelineView*>());
    for (CachedChartView* chart :
         window.findChild<BreakdownChart*>()->findChildren<CachedChartView*>())
        counter.watch(chart->viewport());
    if (counter.watched() != 4) {
        std::fprintf(stderr,
                     "expected the topology, the timeline and two charts on screen, "
                     "found %zu\n",
                     counter.watched());
        return 1;
    }

    constexpr int kEdits = 21;
    bool allRepainted = true;
    // Alternate the NIC rate so every edit changes the model and re-evaluates it.
    const csbench::Timing edit = csbench::medianTiming(kEdits, [&](int i) {
        counter.reset();
        window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), i % 2 ? 800.0 : 400.0);
        for (int round = 0; round < 100 && !counter.allPainted(); ++round)
            QApplication::processEvents();
        allRepainted = allRepainted && counter.allPainted();
    });
    const csbench::Timing repaint = csbench::medianTiming(kEdits, [&](int) { window.repaint(); });
    const double evaluate = csbench::medianMs(
        kEdits, [&](int) { cs::evaluate(window.document()->cluster(), window.document()->run()); });
    std::printf("edit until every view has repainted, 8,192 GPUs, 1920x1080: %.1f ms median of "
                "%d edits (CPU %.1f ms)\n",
                edit.wallMs, kEdits, edit.cpuMs);
    std::printf("  of which the cost model with its events: %.2f ms\n", evaluate);
    std::printf("baseline, repainting the window with nothing changed: %.1f ms (CPU %.1f ms); "
                "edit is %.1fx it (CPU %.1fx)\n",
                repaint.wallMs, repaint.cpuMs, edit.wallMs / repaint.wallMs,
                edit.cpuMs / repaint.cpuMs);
    if (!allRepainted)
        std::fprintf(stderr, "some views did not repaint after an edit\n");
    return allRepainted && window.propertiesPanel()->problem().isEmpty() ? 0 : 1;
}
