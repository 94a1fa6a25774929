// Presenting: bookmarks that keep their view, captions and notes, the legend and large type,
// Space to play, and Escape putting everything back.

#include <catch2/catch.hpp>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QTemporaryDir>

#include "document.h"
#include "guitestutil.h"
#include "loader.h"
#include "mainwindow.h"
#include "presentation.h"
#include "speakernotes.h"
#include "topologyview.h"

namespace {

struct ShownFairwaterWindow {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    ShownFairwaterWindow()
    {
        window.setQuiet(true);
        REQUIRE(window.openFile(sampleFile("fairwater-gb200-128.csession")));
        window.resize(1600, 900);
        window.show();
        QApplication::processEvents();
    }
};

void press(QWidget* w, int key)
{
    QKeyEvent down(QEvent::KeyPress, key, Qt::NoModifier);
    QKeyEvent up(QEvent::KeyRelease, key, Qt::NoModifier);
    // As the window's shortcuts see a key: through the shortcut map first.
    QKeyEvent shortcut(QEvent::ShortcutOverride, key, Qt::NoModifier);
    QApplication::sendEvent(w, &shortcut);
    QApplication::sendEvent(w, &down);
    QApplication::sendEvent(w, &up);
}

} // namespace

TEST_CASE("the sample bookmarks each show their own part of the hall", "[presenting]")
{
    ShownFairwaterWindow f;
    const auto& marks = f.window.document()->bookmarks();
    REQUIRE(marks.size() == 5);
    // No two bookmarks with the same zoom and centre: each one is a different picture.
    for (size_t i = 0; i < marks.size(); ++i)
        for (size_t j = i + 1; j < marks.size(); ++j)
            CHECK_FALSE((marks[i].view.zoom == marks[j].view.zoom &&
                         marks[i].view.center == marks[j].view.center));
    for (const cs::Bookmark& b : marks)
        CHECK_FALSE(b.notes.empty());
}

TEST_CASE("a bookmark keeps its zoom, centre and selection, and its caption and notes",
          "[presenting]")
{
    ShownFairwaterWindow f;
    Document* doc = f.window.document();
    cs::ViewState view = doc->view();
    view.zoom = 6;
    view.center = {-100, -20};
    view.highlightRank = 70;
    view.colorBy = *cs::colorModeFromString("tp");
    doc->setView(view);
    Presentation* p = f.window.presentation();
    const size_t before = doc->bookmarks().size();
    p->addBookmark(QStringLiteral("Rank 70's groups"), QStringLiteral("Say where TP sits."));
    REQUIRE(doc->bookmarks().size() == before + 1);
    const cs::Bookmark& mark = doc->bookmarks().back();
    CHECK(mark.title == "Rank 70's groups");
    CHECK(mark.notes == "Say where TP sits.");

    doc->setView(cs::ViewState{});
    p->goTo(int(before), false);
    CHECK(doc->view().zoom == 6);
    CHECK(doc->view().center == std::array<double, 2>{-100, -20});
    CHECK(doc->view().highlightRank == 70);

    // Saved and read back: the notes are the bookmark's `notes` key.
    const QString path = f.dir.filePath(QStringLiteral("talk.csession"));
    REQUIRE(f.window.saveTo(path));
    cs::Diagnostics diags;
    const auto loaded = cs::loadFile(path.toStdString(), diags);
    REQUIRE(loaded);
    CHECK(loaded->session->bookmarks.back().notes == "Say where TP sits.");
}

TEST_CASE("presenting shows the legend and large captions, Escape puts everything back",
          "[presenting]")
{
    ShownFairwaterWindow f;
    Document* doc = f.window.document();
    cs::ViewState before = doc->view();
    before.highlightRank = 12;
    before.zoom = 3;
    doc->setView(before);
    auto* properties = f.window.findChild<QDockWidget*>(QStringLiteral("properties"));
    REQUIRE(properties->isVisible());
    Presentation* p = f.window.presentation();

    p->enter();
    QApplication::processEvents();
    CHECK_FALSE(properties->isVisible());
    CHECK_FALSE(f.window.menuBar()->isVisible());
    CHECK(f.window.topologyView()->overlayLegend() >= 18);
    CHECK(Presentation::legendPx(1080) >= 18);
    CHECK(Presentation::captionPx(1080) >= 24);
    p->goTo(2, false);
    auto* caption = f.window.findChildren<QLabel*>().back();
    for (QLabel* l : f.window.findChildren<QLabel*>())
        if (l->text().startsWith("3 / 5"))
            caption = l;
    REQUIRE(caption->text().startsWith("3 / 5"));
    CHECK(caption->font().pixelSize() >= 24);
    const QPoint first = caption->pos();
    p->goTo(3, false);
    CHECK(caption->pos() == first); // every caption in the same place
    CHECK(doc->view().highlightRank == 0);

    // Space plays and pauses with the menus and the playback bar hidden.
    REQUIRE_FALSE(doc->view().playing);
    press(&f.window, Qt::Key_Space);
    CHECK(doc->view().playing);
    press(&f.window, Qt::Key_Space);
    CHECK_FALSE(doc->view().playing);

    // The speaker notes of the current bookmark.
    p->notesAction()->trigger();
    CHECK(p->speakerNotes()->notesText().toStdString() == doc->bookmarks()[3].notes);

    press(&f.window, Qt::Key_Escape);
    QApplication::processEvents();
    CHECK_FALSE(p->isActive());
    CHECK(properties->isVisible());
    CHECK(f.window.menuBar()->isVisible());
    CHECK(f.window.topologyView()->overlayLegend() == 0);
    CHECK(doc->view() == before); // view and selection as they were
    CHECK_FALSE(p->speakerNotes()->isVisible());
}
