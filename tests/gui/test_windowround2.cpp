// The window as a new user meets it (issue 40): undo from a focused field, the prompt for an
// imported or new document, the timeline across documents and bookmarks, the names the
// shortcut list shows, the dark theme's check boxes.

#include <catch2/catch.hpp>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QRadioButton>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QWheelEvent>
#include <set>

#include "bookmarkslist.h"
#include "document.h"
#include "documentio.h"
#include "gpucolors.h"
#include "guitestutil.h"
#include "helppages.h"
#include "legendwidget.h"
#include "mainwindow.h"
#include "presentation.h"
#include "propertiespanel.h"
#include "theme.h"
#include "timelineview.h"

// What QTest's key clicks use: the shortcut map gets the key the focus widget does not take.
Q_GUI_EXPORT bool qt_sendShortcutOverrideEvent(QObject* o, ulong timestamp, int k,
                                               Qt::KeyboardModifiers mods,
                                               const QString& text = QString(),
                                               bool autorep = false, ushort count = 1);

namespace {

struct SampleWindow {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    explicit SampleWindow(const char* sample = "ndv5-h200-64-gpt3-175b.run.json")
    {
        window.setQuiet(true);
        REQUIRE(window.openFile(sampleFile(sample)));
    }
    ~SampleWindow() { applyTheme(false); }
    void activate()
    {
        window.resize(1280, 720);
        window.show();
        window.activateWindow();
        QApplication::setActiveWindow(&window);
        REQUIRE(waitUntil([this] { return window.isActiveWindow(); }, 10000));
    }
};

// A key press as a user makes it: the window's shortcuts first, unless the focus takes it.
bool pressShortcut(QWidget* focus, int key, Qt::KeyboardModifiers mods)
{
    return qt_sendShortcutOverrideEvent(focus, 0, key, mods);
}

void zoomIn(TimelineView* timeline, int notches)
{
    const QPointF at(timeline->mapping().left + 5, timeline->height() / 2.0);
    for (int i = 0; i < notches; ++i) {
        QWheelEvent wheel(at, timeline->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(timeline, &wheel);
    }
}

bool wholeStepShown(const TimelineView* timeline)
{
    const TimelineMapping& m = timeline->mapping();
    return m.startS == 0 && m.spanS == Approx(m.totalS);
}

} // namespace

TEST_CASE("Ctrl+Z and Ctrl+Shift+Z undo and redo the document while a Properties field has "
          "the focus",
          "[undo][window]")
{
    SampleWindow f;
    f.activate();
    Document* doc = f.window.document();
    auto* nic = f.window.propertiesPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("NIC Gb/s"));
    REQUIRE(nic);
    QStringList redoKeys;
    for (const QKeySequence& k : QKeySequence::keyBindings(QKeySequence::Redo))
        redoKeys << k.toString();
    INFO("Redo: " << redoKeys.join(QStringLiteral(", ")).toStdString());
    const double original = doc->cluster().scaleOut.GbpsPerGpu;
    REQUIRE(original != 800.0);

    SECTION("an edit confirmed earlier")
    {
        REQUIRE(f.window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), 800.0));
        REQUIRE(doc->cluster().scaleOut.GbpsPerGpu == 800.0);
        nic->setFocus();
        REQUIRE(waitUntil([nic] { return nic->hasFocus(); }, 10000));
        CHECK(pressShortcut(nic, Qt::Key_Z, Qt::ControlModifier));
        CHECK(doc->cluster().scaleOut.GbpsPerGpu == original);
        CHECK(nic->value() == original);
        CHECK(pressShortcut(nic, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier));
        CHECK(doc->cluster().scaleOut.GbpsPerGpu == 800.0);
    }
    SECTION("a value typed and not confirmed is committed, then taken back")
    {
        nic->setFocus();
        REQUIRE(waitUntil([nic] { return nic->hasFocus(); }, 10000));
        typeInto(nic, QStringLiteral("1000"));
        REQUIRE_FALSE(doc->isModified());
        CHECK(pressShortcut(nic, Qt::Key_Z, Qt::ControlModifier));
        CHECK(doc->cluster().scaleOut.GbpsPerGpu == original);
        CHECK(nic->value() == original);
        // The typed value is the step redone.
        CHECK(pressShortcut(nic, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier));
        CHECK(doc->cluster().scaleOut.GbpsPerGpu == 1000.0);
    }
}

TEST_CASE("an imported or new document is unsaved until saved: closing or opening asks",
          "[documents][window]")
{
    SampleWindow f;
    Document* doc = f.window.document();
    REQUIRE_FALSE(doc->isModified());
    // Opened from a file: the recent files list it.

    const auto recentAction = [&f] {
        for (QAction* a : f.window.findChildren<QAction*>())
            if (a->statusTip().endsWith(QStringLiteral("ndv5-h200-64-gpt3-175b.run.json")))
                return a;
        return static_cast<QAction*>(nullptr);
    };
    // What File > Import and a measured run's row open.
    cs::Session imported = sampleSession("gb200-16-deepseek-v3.run.json");
    imported.run.name = "Imported run";
    REQUIRE(f.window.openUnsaved(imported));
    CHECK(doc->isModified());
    CHECK(f.window.isWindowModified());
    CHECK(doc->filePath().isEmpty());

    // Quiet, the question keeps what would be lost: nothing replaces the imported run.
    REQUIRE(recentAction());
    recentAction()->trigger();
    CHECK(doc->run().name == "Imported run");
    CHECK_THAT(f.window.lastProblem().toStdString(), Catch::Contains("unsaved changes"));
    CHECK_FALSE(f.window.close());

    // Saved, it opens another file without asking.
    REQUIRE(f.window.saveTo(f.dir.filePath(QStringLiteral("imported.csession"))));
    CHECK_FALSE(doc->isModified());
    REQUIRE(recentAction());
    recentAction()->trigger();
    CHECK(doc->run().name != "Imported run");
}

TEST_CASE("the timeline starts each document at the whole step and follows a bookmark's time",
          "[timeline][bookmarks][window]")
{
    SampleWindow f;
    auto* timeline = f.window.findChild<TimelineView*>();
    REQUIRE(timeline);
    timeline->resize(900, 240);
    REQUIRE(wholeStepShown(timeline));
    zoomIn(timeline, 10);
    const TimelineMapping zoomed = timeline->mapping();
    REQUIRE(zoomed.spanS < zoomed.totalS / 10);
    REQUIRE(zoomed.startS < zoomed.totalS / 10);

    SECTION("a bookmark's time off screen scrolls into the middle")
    {
        cs::Bookmark mark;
        mark.title = "late in the step";
        mark.view = f.window.document()->view();
        mark.view.timeS = zoomed.totalS * 0.8;
        f.window.document()->setBookmarks({mark});
        f.window.presentation()->goTo(0, false);
        const TimelineMapping& m = timeline->mapping();
        CHECK(m.spanS == Approx(zoomed.spanS)); // the zoom is kept
        CHECK(m.startS <= mark.view.timeS);
        CHECK(mark.view.timeS <= m.endS());
        CHECK(std::abs(m.startS + m.spanS / 2 - mark.view.timeS) < m.spanS * 0.01);
    }
    SECTION("one click on a bookmark goes there, and Enter too")
    {
        cs::Bookmark early, late;
        early.title = "early";
        early.view = f.window.document()->view();
        early.view.timeS = zoomed.totalS * 0.3;
        late = early;
        late.title = "late";
        late.view.timeS = zoomed.totalS * 0.7;
        f.window.document()->setBookmarks({early, late});
        auto* list = f.window.findChild<BookmarksList*>();
        REQUIRE(list);
        list->resize(300, 200);
        const QPoint at = list->visualItemRect(list->item(1)).center();
        for (QEvent::Type type : {QEvent::MouseButtonPress, QEvent::MouseButtonRelease}) {
            QMouseEvent click(type, at, list->viewport()->mapToGlobal(at), Qt::LeftButton,
                              type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton,
                              Qt::NoModifier);
            QApplication::sendEvent(list->viewport(), &click);
        }
        REQUIRE(waitUntil([&] { return f.window.document()->view().timeS == late.view.timeS; }));
        CHECK(timeline->mapping().startS <= late.view.timeS);
        CHECK(late.view.timeS <= timeline->mapping().endS());

        list->setCurrentRow(0);
        QKeyEvent enter(QEvent::KeyPress, Qt::Key_Return, Qt::NoModifier);
        QApplication::sendEvent(list, &enter);
        REQUIRE(waitUntil([&] { return f.window.document()->view().timeS == early.view.timeS; }));
    }
    SECTION("another document starts at the whole step")
    {
        REQUIRE(f.window.openFile(sampleFile("gb200-16-deepseek-v3.run.json")));
        CHECK(wholeStepShown(timeline));
    }
}

TEST_CASE("the shortcut list names Undo and Redo, not the step they would undo", "[help][undo]")
{
    SampleWindow f;
    REQUIRE(f.window.propertiesPanel()->editField(QStringLiteral("NIC Gb/s"), 800.0));
    f.window.document()->undoStack()->undo();
    const QString html = shortcutsHtml(&f.window);
    CHECK(html.contains(QStringLiteral(">Undo<")));
    CHECK(html.contains(QStringLiteral(">Redo<")));
    CHECK_FALSE(html.contains(QStringLiteral("Set NIC")));
}

TEST_CASE("in the dark theme check boxes and radio buttons stand out from the window", "[theme]")
{
    SampleWindow f;
    applyTheme(true);
    QCheckBox check(QStringLiteral("Critical path"));
    QRadioButton radio(QStringLiteral("seconds per step"));
    for (QAbstractButton* button : std::initializer_list<QAbstractButton*>{&check, &radio}) {
        INFO(button->text().toStdString());
        button->setPalette(QApplication::palette());
        button->resize(button->sizeHint());
        const QImage image = button->grab().toImage();
        const QColor window = QApplication::palette().color(QPalette::Window);
        // The indicator sits at the left: its frame or fill must differ from the window by a
        // visible step somewhere in it.
        double most = 0;
        for (int x = 0; x < std::min(image.width(), 20); ++x)
            for (int y = 0; y < image.height(); ++y)
                most = std::max(most, double(std::abs(QColor(image.pixel(x, y)).lightnessF() -
                                                      window.lightnessF())));
        CHECK(most > 0.25);
    }
}

namespace {
QStringList* g_warnings = nullptr;
void keepWarning(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (g_warnings && type == QtWarningMsg)
        *g_warnings << message;
}
} // namespace

TEST_CASE("at 1280x720 every dock shows without a negative minimum size", "[layout][window]")
{
    QStringList warnings;
    g_warnings = &warnings;
    const QtMessageHandler before = qInstallMessageHandler(keepWarning);
    {
        SampleWindow f("fairwater-gb200-128.csession");
        f.window.resize(1228, 676);
        f.window.show();
        QApplication::processEvents();
        for (QDockWidget* dock : f.window.findChildren<QDockWidget*>()) {
            dock->raise();
            QApplication::processEvents();
        }
        for (const char* mode : {"activity", "ep", "pp", "memory"}) {
            cs::ViewState v = f.window.document()->view();
            v.colorBy = *cs::colorModeFromString(mode);
            f.window.document()->setView(v);
            QApplication::processEvents();
        }
    }
    qInstallMessageHandler(before);
    g_warnings = nullptr;
    INFO(warnings.join(QLatin1Char('\n')).toStdString());
    CHECK(warnings.filter(QStringLiteral("Negative sizes")).isEmpty());
}

TEST_CASE("colour by EP on a dense run is one colour under a legend that says there are no "
          "experts",
          "[legend][window]")
{
    SampleWindow f; // GPT-3 175B: dense
    cs::ViewState v = f.window.document()->view();
    v.colorBy = *cs::colorModeFromString("ep");
    f.window.document()->setView(v);
    const Legend& legend = f.window.legend()->legend();
    INFO(legend.title.toStdString());
    CHECK(legend.title.contains(QStringLiteral("no experts")));
    CHECK(legend.entries.empty());
    const GpuColors colors =
        colorGpus(v.colorBy, f.window.document()->topology(), f.window.document()->placement(),
                  f.window.document()->evaluation());
    std::set<uint16_t> used(colors.index.begin(), colors.index.end());
    CHECK(used.size() == 1);
}

TEST_CASE("a legend's title and notes wrap, and its entries take as many columns as fit",
          "[legend]")
{
    Legend legend;
    legend.title = QStringLiteral("PP stage: the pipeline stage each GPU runs");
    for (int i = 0; i < 8; ++i)
        legend.entries.push_back({Qt::red, QStringLiteral("stage %1").arg(i)});
    legend.notes << QStringLiteral("DP 64: crosses fabric (64 of 64 groups span up to 8 domains)");
    const double narrow = legendHeight(legend, 220);
    const double wide = legendHeight(legend, 600);
    // Narrow: the title and the note take two lines or more, the eight stages three columns at
    // most; every part is there, only taller.
    CHECK(narrow > wide);
    CHECK(narrow < 12 * 18); // not one entry a line
}
