// Mixture-of-experts in the views (EP colouring, the inspector's experts, the all-to-all on the
// timeline, the MoE sample session) and bringing runs in (File > Import, a folder of logs).

#include <catch2/catch.hpp>

#include <QChart>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QValueAxis>
#include <algorithm>
#include <set>

#include "comparepanel.h"
#include "comparison.h"
#include "costmodel.h"
#include "document.h"
#include "documentio.h"
#include "editcommands.h"
#include "gpucolors.h"
#include "guitestutil.h"
#include "importdialog.h"
#include "inspectorpanel.h"
#include "mainwindow.h"
#include "measuredruns.h"
#include "measuredrunsdialog.h"
#include "placement.h"
#include "timelineview.h"
#include "topologyscene.h"

namespace {

const char* const kMoeSession = "gb200-16-deepseek-v3.csession";

QString importFile(const char* name)
{
    return QStringLiteral(CS_TEST_DATA_DIR "/imports/") + QLatin1String(name);
}

struct Window {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    Window() { window.setQuiet(true); }
};

} // namespace

TEST_CASE("the MoE sample session loads with its bookmarks, each its own view", "[moe][samples]")
{
    QString problems;
    const auto session = loadSessionFromFile(sampleFile(kMoeSession), &problems);
    INFO(problems.toStdString());
    REQUIRE(session);
    REQUIRE(session->run.model.moe);
    REQUIRE(session->compare); // the same run with EP across racks
    CHECK(session->compare->run.parallelism.ep == session->run.parallelism.ep);
    CHECK(session->compare->run.placement != session->run.placement);
    REQUIRE(session->bookmarks.size() >= 4);
    std::set<std::string> titles;
    bool epColoured = false, atAllToAll = false;
    const cs::Evaluation e = cs::evaluate(session->cluster, session->run);
    for (const cs::Bookmark& b : session->bookmarks) {
        INFO(b.title);
        CHECK_FALSE(b.notes.empty());
        titles.insert(b.title);
        epColoured = epColoured || b.view.colorBy == *cs::colorModeFromString("ep");
        for (const cs::Event& ev : e.events)
            atAllToAll = atAllToAll || (ev.isComm() && ev.dim == cs::Dim::EP &&
                                        ev.start <= b.view.timeS && b.view.timeS <= ev.end);
    }
    CHECK(titles.size() == session->bookmarks.size());
    CHECK(epColoured);
    CHECK(atAllToAll); // one bookmark stops while the all-to-all runs
    // Every bookmark differs from the others in its view.
    for (size_t i = 0; i < session->bookmarks.size(); ++i)
        for (size_t j = i + 1; j < session->bookmarks.size(); ++j)
            CHECK_FALSE(session->bookmarks[i].view == session->bookmarks[j].view);
}

TEST_CASE("colour by EP gives each GPU its EP group's colour: one per rack in the sample",
          "[moe][colors]")
{
    auto doc = openSample(kMoeSession);
    const cs::Placement& pl = doc->placement();
    TopologyScene scene(doc->topology(), pl, doc->evaluation(), 1.6);
    cs::ViewState view;
    view.colorBy = *cs::colorModeFromString("ep");
    scene.applyView(view);
    const QSize size(1600, 1000);
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    scene.renderer().paint(painter, scene.transform(view, QSizeF(size)));
    painter.end();
    const ViewTransform t = scene.transform(view, QSizeF(size));
    auto pixel = [&](int gpu) {
        return image.pixel(t.toScreen(scene.layout().gpuRect(gpu).center()).toPoint());
    };
    for (int gpu : {0, 5, 63, 64, 200, 511, 1023}) {
        INFO("GPU " << gpu);
        const int rank = pl.rankOfGpu(gpu);
        REQUIRE(rank >= 0);
        CHECK(pixel(gpu) ==
              categoricalColor(pl.groupIndex(rank, cs::Dim::EP) % kCategoricalColors).rgb());
    }
    CHECK(pixel(0) == pixel(63)); // one EP group in the first rack
    CHECK(pixel(0) != pixel(64)); // and another in the next
    CHECK(scene.legend().title.contains("EP group"));
}

TEST_CASE("the inspector shows the rank's experts as the model places them, and its expert-DP "
          "group",
          "[moe][inspector]")
{
    auto doc = openSample(kMoeSession);
    for (int rank : {0, 70, 1023}) {
        INFO("rank " << rank);
        const QString text =
            inspectorHtml(doc->topology(), doc->placement(), doc->evaluation(), doc->run(), rank);
        const cs::ExpertRange experts = cs::expertsOfRank(doc->placement(), doc->run().model, rank);
        REQUIRE(experts.count == 4);
        CHECK(text.contains(QStringLiteral("experts %1 to %2 of 256 routed")
                                .arg(experts.first)
                                .arg(experts.last())));
        CHECK(text.contains(
            QStringLiteral("Expert DP group %1").arg(doc->placement().expertDataIndex(rank))));
        CHECK(text.contains(
            QStringLiteral("EP group %1").arg(doc->placement().groupIndex(rank, cs::Dim::EP))));
    }
    // A dense run has no experts row.
    auto dense = openSample("ndv5-h200-64-gpt3-175b.run.json");
    CHECK_FALSE(
        inspectorHtml(dense->topology(), dense->placement(), dense->evaluation(), dense->run(), 3)
            .contains("routed"));
}

TEST_CASE("the timeline names the all-to-all's dispatch and combine, forward and backward",
          "[moe][timeline]")
{
    auto doc = openSample(kMoeSession);
    const cs::Evaluation& e = doc->evaluation();
    TimelineView view;
    view.setSchedule(e.events, int(e.memoryGiBPerStage.size()), e.stepTimeS);
    int forward = 0, backward = 0;
    for (size_t i = 0; i < e.events.size(); ++i) {
        if (!e.events[i].isComm() || e.events[i].dim != cs::Dim::EP)
            continue;
        const QString text = view.describeEvent(int(i));
        forward += text.contains("forward: tokens dispatched to their experts, then the results "
                                 "combined");
        backward += text.contains("backward: the gradients of the combine, then of the dispatch");
    }
    CHECK(forward > 0);
    CHECK(backward > 0);
}

TEST_CASE("File > Import opens a Megatron launch and log as a new document", "[imports][gui]")
{
    Window w;
    REQUIRE(w.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    ImportDialog* dialog = w.window.openImportDialog();
    REQUIRE(dialog);
    cs::ImportRequest request;
    request.kind = "megatron";
    request.files = {importFile("gpt3-175b-ndv5.sbatch").toStdString()};
    request.log = importFile("gpt3-175b-ndv5.log").toStdString();
    dialog->setRequest(request);
    dialog->setClusterFile(sampleFile("ndv5-h100-1344.cluster.json"));
    REQUIRE(dialog->runImport());
    INFO(dialog->reportText().toStdString());
    CHECK(dialog->reportText().contains("note: "));         // what it assumed, shown
    CHECK(dialog->reportText().contains("gpt3-175b-ndv5")); // at its file
    REQUIRE(w.window.openUnsaved(*dialog->result()));
    const Document* doc = w.window.document();
    CHECK(doc->cluster().gpuCount() == 10752);
    CHECK(doc->run().parallelism.tp == 4);
    REQUIRE(doc->run().measured);
    CHECK(doc->run().measured->stepTimeS == Approx(0.945));
    CHECK(doc->filePath().isEmpty()); // a new, unsaved document
}

TEST_CASE("File > Import shows a broken input's error at file:line:column and opens nothing",
          "[imports][gui]")
{
    Window w;
    REQUIRE(w.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    const cs::Session before = w.window.document()->session();
    const QString broken = w.dir.filePath(QStringLiteral("broken.sh"));
    QFile file(broken);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write("#!/bin/bash\n"
               "torchrun --nproc-per-node 8 pretrain_gpt.py \\\n"
               "  --num-layers 4 --num-attention-heads 16 --seq-length 2048 \\\n"
               "  --micro-batch-size 1 --global-batch-size 64 --vocab-size 32000\n");
    file.close();
    ImportDialog* dialog = w.window.openImportDialog();
    REQUIRE(dialog);
    cs::ImportRequest request;
    request.kind = "megatron";
    request.files = {broken.toStdString()};
    dialog->setRequest(request);
    CHECK_FALSE(dialog->runImport());
    CHECK_FALSE(dialog->result());
    const QString report = dialog->reportText();
    INFO(report.toStdString());
    CHECK(report.contains(QRegularExpression(QStringLiteral("error: .*broken\\.sh:\\d+:\\d+: .*"
                                                            "--hidden-size"))));
    CHECK(w.window.document()->session() == before);
}

TEST_CASE("an import does not replace a document with unsaved changes without asking",
          "[imports][gui]")
{
    Window w;
    REQUIRE(w.window.openFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json")));
    Document* doc = w.window.document();
    cs::ClusterDesc edited = doc->cluster();
    edited.scaleOut.GbpsPerGpu = 800;
    doc->undoStack()->push(new EditModelCommand(doc, edited, doc->run(), QStringLiteral("edit")));
    REQUIRE(doc->isModified());
    ImportDialog* dialog = w.window.openImportDialog();
    REQUIRE(dialog);
    cs::ImportRequest request;
    request.kind = "nemo";
    request.files = {importFile("gpt3-175b-nemo1.json").toStdString()};
    dialog->setRequest(request);
    dialog->setClusterFile(sampleFile("ndv5-h100-1344.cluster.json"));
    INFO(dialog->reportText().toStdString());
    REQUIRE(dialog->runImport());
    // Quiet, the question about unsaved changes takes the answer that loses nothing.
    CHECK_FALSE(w.window.openUnsaved(*dialog->result()));
    CHECK(doc->cluster().scaleOut.GbpsPerGpu == 800);
    CHECK(doc->isModified());
}

TEST_CASE("the measured-runs table names each row's scaling recipe and signs its error, the "
          "histogram counts steps in whole numbers",
          "[gui][measured]")
{
    cs::Diagnostics diags;
    std::vector<cs::MeasuredRun> rows = cs::readMeasuredRuns(
        CS_SAMPLES_DIR "/../../shared/reference/validation/moe-public.jsonl", diags);
    auto take = [&](const std::string& id) {
        const auto it = std::find_if(rows.begin(), rows.end(),
                                     [&](const cs::MeasuredRun& r) { return r.id == id; });
        REQUIRE(it != rows.end());
        return *it;
    };
    const std::vector<cs::MeasuredRun> runs{take("mbridge_2608_dsv3_gb300_256_mxfp8"),
                                            take("mbridge_2606_qwen3-30b_h100_16_fp8"),
                                            take("mbridge_2604_gptoss-120b_gb300_64_bf16")};
    // Predictions on either side of each measurement.
    const std::vector<MeasuredPrediction> predicted{
        {runs[0].run.measured->stepTimeS * 1.05}, {runs[1].run.measured->stepTimeS * 0.9}, {1}};
    MeasuredRunsDialog dialog(runs, predicted, QStringLiteral("moe-public.jsonl"));
    QTableWidget* table = dialog.table();
    auto cell = [&](int row, const QString& header) {
        for (int c = 0; c < table->columnCount(); ++c)
            if (table->horizontalHeaderItem(c)->text() == header)
                for (int r = 0; r < table->rowCount(); ++r)
                    if (table->item(r, 0)->data(Qt::UserRole).toInt() == row)
                        return table->item(r, c);
        FAIL("no cell " << header.toStdString());
        return static_cast<QTableWidgetItem*>(nullptr);
    };
    CHECK(cell(0, "Precision")->text() == "fp8 (mxfp8)");
    CHECK(cell(0, "Precision")->toolTip() == "mxfp8");
    // The recipe's own wording in the tooltip; the cell keeps what it adds to the precision.
    CHECK(cell(1, "Precision")->text() == "fp8");
    CHECK(cell(1, "Precision")->toolTip().startsWith("fp8 (recipe FP8_CS"));
    CHECK(cell(2, "Precision")->text() == "bf16");
    CHECK(cell(2, "Precision")->toolTip().isEmpty());
    CHECK(cell(0, "Error")->text() == "+5.0 %");
    CHECK(cell(1, "Error")->text() == "-10.0 %");

    dialog.selectRun(0);
    const QList<QAbstractAxis*> axes = dialog.histogram()->axes(Qt::Vertical);
    REQUIRE(axes.size() == 1);
    const auto* counts = qobject_cast<QValueAxis*>(axes.front());
    REQUIRE(counts);
    CHECK(counts->tickType() == QValueAxis::TicksDynamic);
    CHECK(counts->tickAnchor() == 0);
    CHECK(counts->tickInterval() == 1); // one published step: 0 and 1, no repeated label
}

TEST_CASE("a folder of logs opens as measured runs, refused files listed, with a histogram",
          "[imports][gui][measured]")
{
    Window w;
    REQUIRE(w.window.openFile(sampleFile("ndv5-h100-1344-gpt3-175b.run.json")));
    QTemporaryDir logs;
    REQUIRE(QFile::copy(importFile("gpt3-175b-ndv5.log"), logs.filePath("run1.log")));
    REQUIRE(QFile::copy(importFile("gpt3-175b-ndv5.log"), logs.filePath("run2.log")));
    QFile broken(logs.filePath("run3.log"));
    REQUIRE(broken.open(QIODevice::WriteOnly));
    broken.write("starting\n");
    broken.close();
    REQUIRE(w.window.openFile(logs.path()));
    MeasuredRunsDialog* dialog = w.window.measuredRunsDialog();
    REQUIRE(dialog);
    CHECK(dialog->rowCount() == 2);
    REQUIRE(dialog->problems().size() == 1);
    CHECK(dialog->problems().front().contains("run3.log"));
    dialog->selectRun(1);
    QChart* chart = dialog->histogram();
    CHECK(chart->title().contains("run2.log"));
    CHECK(chart->title().contains("measured 0.945 s"));
    QStringList names;
    for (QAbstractSeries* s : chart->series())
        names << s->name();
    INFO(names.join(" | ").toStdString());
    CHECK(names.filter("measured: 31 steps").size() == 1);
    CHECK(names.filter("predicted step").size() == 1);
    CHECK(names.filter("predicted spread").size() == 1);
}

TEST_CASE("the compare dock shows the error against a measured step", "[measured][compare]")
{
    auto doc = openSample("fairwater-gb200-128.csession");
    REQUIRE(doc->run().measured);
    const cs::ClusterRun a{doc->cluster(), doc->run()};
    cs::ClusterRun b = a;
    b.run.measured.reset();
    const cs::Comparison c = cs::compareRuns(a, doc->evaluation(), b, doc->evaluation());
    ComparePanel panel;
    panel.setComparison(c);
    QTableWidget* figures = panel.figuresTable();
    int errorRow = -1;
    for (int r = 0; r < figures->rowCount(); ++r)
        if (figures->item(r, 0) && figures->item(r, 0)->text() == "predicted vs measured")
            errorRow = r;
    REQUIRE(errorRow >= 0);
    const double error = doc->evaluation().stepTimeS / doc->run().measured->stepTimeS - 1;
    CHECK(figures->item(errorRow, 1)->text() ==
          QStringLiteral("%1%2 %").arg(error >= 0 ? "+" : "").arg(error * 100, 0, 'f', 1));
    CHECK(figures->item(errorRow, 2)->text() == "-"); // B has no measurement
}
