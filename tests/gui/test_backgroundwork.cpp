// Long work runs off the GUI thread: the window keeps answering (a timer fires while the work
// runs) and Cancel in the progress dialog stops it, for the work itself, opening measured
// runs, File > Import, opening a large file and the step trace export.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMouseEvent>
#include <QProgressDialog>
#include <QPushButton>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <fstream>

#include <nlohmann/json.hpp>

#include "backgroundwork.h"
#include "document.h"
#include "guitestutil.h"
#include "importdialog.h"
#include "mainwindow.h"
#include "measuredrunsdialog.h"

namespace {

// Presses Cancel on the window's progress dialog as soon as it exists, from the GUI thread:
// which can only happen while the work runs if the work does not hold that thread.
void cancelSoon(QWidget* window, bool* pressed)
{
    auto* timer = new QTimer(window);
    QObject::connect(timer, &QTimer::timeout, window, [window, timer, pressed] {
        auto* dialog = window->findChild<QProgressDialog*>();
        if (auto* cancel = dialog ? dialog->findChild<QPushButton*>() : nullptr) {
            cancel->click();
            *pressed = true;
            timer->deleteLater();
        }
    });
    timer->start(20);
}

// Presses Cancel on the progress dialog at the first turn of the event loop, which runs while
// the work does only if the work is off the GUI thread.
void cancelAtOnce(QWidget* window, bool* pressed)
{
    QTimer::singleShot(0, window, [window, pressed] {
        auto* dialog = window->findChild<QProgressDialog*>();
        if (auto* cancel = dialog ? dialog->findChild<QPushButton*>() : nullptr) {
            cancel->click();
            *pressed = true;
        }
    });
}

// Rows that each take a while to predict: 512 pipeline stages that never fill.
std::string slowRows(int rows)
{
    std::string text;
    for (int i = 0; i < rows; ++i) {
        nlohmann::json r = nlohmann::json::parse(
            R"({"cluster":{"gpu":"A100","gpus":512,"gpus_per_node":8,"nvlink_domain_gpus":8,
            "gpus_used_per_nvlink_domain":8,"nvlink_GBps_bidir":600,"scale_out_Gbps_per_gpu":200},
            "model":{"name":"m","layers":512,"hidden":4096,"ffn_hidden":16384,"heads":32,
            "vocab":32000,"seq_len":2048},"precision":"bf16",
            "parallelism":{"tp":1,"cp":1,"pp":512,"dp":1},"batch":{"micro":1,"global":256},
            "measured":{"step_time_s":100}})");
        r["id"] = "row " + std::to_string(i);
        text += r.dump() + "\n";
    }
    return text;
}

// A Slurm topology.conf of `leaves` leaf switches of 16 one-GPU nodes under one spine: an import
// that takes a while (it builds and checks a cluster of leaves * 16 GPUs).
std::string wideTopology(int leaves)
{
    std::string text;
    for (int i = 0; i < leaves; ++i)
        text +=
            "SwitchName=leaf" + std::to_string(i) + " Nodes=n" + std::to_string(i) + "-[0-15]\n";
    text += "SwitchName=spine Switches=leaf[0-" + std::to_string(leaves - 1) + "]\n";
    return text;
}

// Counts the ticks of a timer of the window's event loop while the object lives.
class Heartbeat {
public:
    explicit Heartbeat(QObject* owner)
        : m_timer(owner)
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this] { ++m_ticks; });
        m_timer.start(10);
    }
    int ticks() const { return m_ticks; }

private:
    QTimer m_timer;
    int m_ticks = 0;
};

} // namespace

TEST_CASE("work with progress runs off the GUI thread and stops on Cancel", "[background]")
{
    QWidget window;
    bool pressed = false;
    cancelSoon(&window, &pressed);
    std::atomic<bool> sawCancel{false};
    const bool finished = runWithProgress(&window, QStringLiteral("Working"), [&](TaskProgress& p) {
        for (int64_t i = 0; !p.cancelled; ++i) {
            p.report(i % 100, 100);
            QThread::msleep(1);
        }
        sawCancel = true;
    });
    CHECK(pressed);
    CHECK_FALSE(finished);
    CHECK(sawCancel);
    CHECK(runWithProgress(&window, QStringLiteral("Quick"), [](TaskProgress&) {}));
}

TEST_CASE("while work runs, the window takes no keys or clicks, it does again after",
          "[background]")
{
    QWidget window;
    auto* edit = new QLineEdit(&window);
    auto* button = new QPushButton(QStringLiteral("Edit"), &window);
    int clicks = 0;
    QObject::connect(button, &QPushButton::clicked, [&clicks] { ++clicks; });
    window.show();
    const auto typeAndClick = [&] {
        QKeyEvent press(QEvent::KeyPress, Qt::Key_A, Qt::NoModifier, QStringLiteral("a"));
        QApplication::sendEvent(edit, &press);
        const QPointF at = QRectF(button->rect()).center();
        for (QEvent::Type type : {QEvent::MouseButtonPress, QEvent::MouseButtonRelease}) {
            QMouseEvent mouse(type, at, button->mapToGlobal(at), Qt::LeftButton,
                              type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton,
                              Qt::NoModifier);
            QApplication::sendEvent(button, &mouse);
        }
    };
    std::atomic<bool> tried{false};
    QTimer::singleShot(0, &window, [&] {
        typeAndClick();
        tried = true;
    });
    CHECK(runWithProgress(&window, QStringLiteral("Working"), [&](TaskProgress&) {
        while (!tried)
            QThread::msleep(1);
    }));
    CHECK(edit->text().isEmpty());
    CHECK(clicks == 0);
    typeAndClick();
    CHECK(edit->text() == QStringLiteral("a"));
    CHECK(clicks == 1);
}

TEST_CASE("opening measured runs can be cancelled while the rows are predicted",
          "[background][measured]")
{
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    window.setQuiet(true);
    const QString file = dir.filePath(QStringLiteral("slow.jsonl"));
    std::ofstream(file.toStdString()) << slowRows(200);
    bool pressed = false;
    cancelSoon(&window, &pressed);
    CHECK_FALSE(window.openMeasuredRuns(file));
    CHECK(pressed);
    CHECK_FALSE(window.measuredRunsDialog());

    const QString few = dir.filePath(QStringLiteral("few.jsonl"));
    std::ofstream(few.toStdString()) << slowRows(2);
    REQUIRE(window.openMeasuredRuns(few));
    REQUIRE(window.measuredRunsDialog());
    CHECK(window.measuredRunsDialog()->rowCount() == 2);
}

TEST_CASE("the step trace export writes on a worker, and Cancel leaves the old file",
          "[background][exports]")
{
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("fairwater-gb200-128.csession")));
    const QString trace = dir.filePath(QStringLiteral("step.trace.json"));
    REQUIRE(window.exportTraceTo(trace));
    std::ifstream in(trace.toStdString());
    CHECK(nlohmann::json::parse(in).at("traceEvents").size() > 1000);

    std::ofstream(trace.toStdString(), std::ios::trunc) << "old trace";
    // Writing the trace takes longer than the timer's first tick only when the step has many
    // ops: 128 stages and 1,024 micro-batches make about 660,000 events (a second to write).
    std::ofstream(dir.filePath(QStringLiteral("deep.cluster.json")).toStdString())
        << R"({"format":"clusterscope/cluster@1","name":"deep","gpu":"H100","racks":16,
        "nodes_per_rack":1,"gpus_per_node":8,"scale_up":{"domain":"node","GBps_per_gpu":900},
        "scale_out":{"Gbps_per_gpu":400}})";
    const QString deep = dir.filePath(QStringLiteral("deep.run.json"));
    std::ofstream(deep.toStdString())
        << R"({"format":"clusterscope/run@1","name":"deep","cluster":"deep.cluster.json",
        "model":{"layers":128,"hidden":4096,"ffn_hidden":16384,"heads":32,"vocab":32000,
        "seq_len":2048},"precision":"bf16","batch":{"global":1024,"micro":1},
        "parallelism":{"tp":1,"pp":128}})";
    REQUIRE(window.openFile(deep));
    // Armed only now: opening reads on a worker too, and a Cancel pressed there (under a
    // sanitizer the read outlasts the timer's first tick) would cancel the open, not the export.
    bool pressed = false;
    cancelSoon(&window, &pressed);
    CHECK_FALSE(window.exportTraceTo(trace));
    CHECK(pressed);
    std::ifstream old(trace.toStdString());
    CHECK(std::string(std::istreambuf_iterator<char>(old), {}) == "old trace");
}

TEST_CASE("File > Import runs on a worker: the window answers, and Cancel changes nothing",
          "[background][import]")
{
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("fairwater-gb200-128.csession")));
    const cs::Session before = window.document()->session();
    const QString topology = dir.filePath(QStringLiteral("topology.conf"));
    std::ofstream(topology.toStdString()) << wideTopology(6000);
    ImportDialog* dialog = window.openImportDialog();
    REQUIRE(dialog);
    cs::ImportRequest request;
    request.kind = "slurm";
    request.files = {topology.toStdString()};
    request.gpu = "H100";
    request.gpusPerNode = 1;
    dialog->setRequest(request);

    SECTION("the window's event loop runs while the import does")
    {
        Heartbeat heartbeat(&window);
        REQUIRE(dialog->runImport());
        CHECK(heartbeat.ticks() > 0);
        INFO(dialog->reportText().toStdString());
        REQUIRE(dialog->result());
        CHECK(dialog->result()->cluster.gpuCount() == 6000 * 16);
    }
    SECTION("Cancel drops the import and leaves the document as it was")
    {
        bool pressed = false;
        cancelAtOnce(dialog, &pressed);
        CHECK_FALSE(dialog->runImport());
        CHECK(pressed);
        CHECK_FALSE(dialog->result());
        CHECK_THAT(dialog->reportText().toStdString(), Catch::Contains("cancelled"));
        CHECK(window.document()->session() == before);
        CHECK_FALSE(window.document()->isModified());
    }
    delete dialog;
}

TEST_CASE("Open and Compare With read on a worker, and Cancel keeps the document",
          "[background][open]")
{
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("fairwater-gb200-128.csession")));
    const cs::Session before = window.document()->session();
    const QString pathBefore = window.document()->filePath();
    // Blank lines before a syntax error: 63 MB of them froze the window for 16 s in issue 35.
    // Enough of them that reading outlasts a turn of the event loop, so that Cancel comes first
    // even on a loaded machine (with 1 MB the work could end first, and Cancel never came).
    const QString blank = dir.filePath(QStringLiteral("blank.csession"));
    std::ofstream(blank.toStdString()) << "{" << std::string(16'000'000, '\n') << "x";
    {
        Heartbeat heartbeat(&window);
        CHECK_FALSE(window.openFile(blank));
        CHECK(heartbeat.ticks() > 0);
        CHECK_THAT(window.lastProblem().toStdString(), Catch::Contains(blank.toStdString()));
    }
    bool pressed = false;
    cancelAtOnce(&window, &pressed);
    CHECK_FALSE(window.compareWith(blank));
    CHECK(pressed);
    CHECK_THAT(window.statusBar()->currentMessage().toStdString(), Catch::Contains("Cancelled"));
    CHECK(window.document()->session() == before);
    CHECK(window.document()->filePath() == pathBefore);
}
