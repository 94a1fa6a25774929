#include <catch2/catch.hpp>

#include <QCoreApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include "document.h"
#include "documentio.h"
#include "guitestutil.h"
#include "topologyscene.h"
#include "topologyview.h"

namespace {

struct ViewFixture {
    Document document;
    TopologyView view{[this]() -> const cs::ViewState& { return document.view(); },
                      [this](const cs::ViewState& v) { document.setView(v); }};

    explicit ViewFixture(const char* sample)
    {
        QString problems;
        auto session = loadSessionFromFile(sampleFile(sample), &problems);
        REQUIRE(session);
        document.setSession(std::move(*session), sampleFile(sample));
        view.resize(1200, 800);
        view.setModel(document.topology(), document.placement(), document.evaluation());
        QObject::connect(&document, &Document::viewChanged, &view, &TopologyView::viewStateChanged);
    }

    void click(QPointF pos)
    {
        QMouseEvent press(QEvent::MouseButtonPress, pos, view.mapToGlobal(pos), Qt::LeftButton,
                          Qt::LeftButton, Qt::NoModifier);
        QMouseEvent release(QEvent::MouseButtonRelease, pos, view.mapToGlobal(pos), Qt::LeftButton,
                            Qt::NoButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&view, &press);
        QCoreApplication::sendEvent(&view, &release);
    }

    void wheel(QPointF pos, int delta)
    {
        QWheelEvent event(pos, view.mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(&view, &event);
    }

    void key(int key)
    {
        QKeyEvent event(QEvent::KeyPress, key, Qt::NoModifier);
        QCoreApplication::sendEvent(&view, &event);
    }
};

} // namespace

TEST_CASE("wheel zoom keeps the point under the cursor, F fits, arrows pan")
{
    ViewFixture f("fairwater-gb200-128.csession");
    for (QPointF cursor : {QPointF(300, 500), QPointF(1000, 150)}) {
        const QPointF before = f.view.currentTransform().toWorld(cursor);
        const double zoom = f.document.view().zoom;
        f.wheel(cursor, 240);
        CHECK(f.document.view().zoom > zoom);
        const QPointF after = f.view.currentTransform().toWorld(cursor);
        CHECK(after.x() == Approx(before.x()));
        CHECK(after.y() == Approx(before.y()));
    }
    const double centerX = f.document.view().center[0];
    f.key(Qt::Key_Right);
    CHECK(f.document.view().center[0] > centerX);
    f.key(Qt::Key_F);
    CHECK(f.document.view().zoom == 1.0);
    CHECK(f.document.view().center == std::array<double, 2>{0, 0});
}

TEST_CASE("clicking a GPU selects its rank and clicking empty space clears the selection")
{
    ViewFixture f("ndv5-h100-128-gpt3-175b.run.json");
    const ViewTransform t = f.view.currentTransform();
    const TopologyLayout& layout = f.view.scene()->layout();
    for (int gpu : {0, 9, 517, 1023}) {
        f.click(t.toScreen(layout.gpuRect(gpu).center()));
        CHECK(f.document.view().highlightRank == gpu);
        CHECK(f.view.scene()->renderer().selection().rank == gpu);
    }
    f.click(QPointF(2, 2));
    CHECK(f.document.view().highlightRank == -1);
}

TEST_CASE("the layout does not depend on the window's shape, so bookmarks show the same racks")
{
    ViewFixture wide("fairwater-gb200-128.csession");
    ViewFixture tall("fairwater-gb200-128.csession");
    tall.view.resize(600, 1000);
    tall.view.setModel(tall.document.topology(), tall.document.placement(),
                       tall.document.evaluation());
    CHECK(wide.view.scene()->layout().bounds() == tall.view.scene()->layout().bounds());
    CHECK(wide.view.scene()->layout().rackRect(77) == tall.view.scene()->layout().rackRect(77));
}
