// The names in the topology view: rack numbers that never run into each other or over the
// racks, names in the view's type size, a presenting caption that leaves them clear, and
// figure titles that say each part of the names once.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QLabel>
#include <QTemporaryDir>

#include "document.h"
#include "documentio.h"
#include "exports.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "presentation.h"
#include "topologyscene.h"
#include "topologyview.h"

TEST_CASE("rack and tier names never overlap each other or a rack", "[topology][labels]")
{
    // {sample, view size, zoom}: the 336-rack ND H100 hall, Fairwater and a 16-rack cluster, in
    // the view of a 1280x720 and a 1920x1080 window and full screen, whole and zoomed in.
    const char* const samples[] = {"ndv5-h100-1344-gpt3-175b.csession",
                                   "fairwater-gb200-128.csession", "gb200-16-deepseek-v3.csession"};
    const QSize sizes[] = {{620, 380}, {1000, 560}, {1920, 1080}};
    const double zooms[] = {1, 1.6, 3, 8};
    for (const char* sample : samples) {
        auto doc = openSample(sample);
        TopologyScene scene(doc->topology(), doc->placement(), doc->evaluation());
        for (const QSize& size : sizes) {
            for (double zoom : zooms) {
                for (double textPx : {12.0, 18.0}) {
                    INFO(sample << " at " << size.width() << "x" << size.height() << ", zoom "
                                << zoom << ", " << textPx << " px type");
                    cs::ViewState view;
                    view.zoom = zoom;
                    const ViewTransform t = scene.transform(view, QSizeF(size));
                    scene.renderer().setTextPixels(textPx);
                    const auto racks = scene.renderer().rackLabels(t, t.visibleWorld());
                    const auto tiers = scene.renderer().tierLabels(t);
                    std::vector<QRectF> boxes;
                    for (const auto& label : racks)
                        boxes.push_back(label.box);
                    for (const auto& label : tiers)
                        boxes.push_back(label.box);
                    int overlaps = 0;
                    for (size_t i = 0; i < boxes.size(); ++i)
                        for (size_t j = i + 1; j < boxes.size(); ++j)
                            overlaps += boxes[i].intersects(boxes[j]);
                    CHECK(overlaps == 0);
                    // Rack names stay in the aisles, off every rack's GPUs.
                    int overRacks = 0;
                    for (const auto& label : racks)
                        for (size_t r = 0; r < doc->topology().racks().size(); ++r)
                            overRacks +=
                                label.box.intersects(t.toScreen(scene.layout().rackRect(int(r))));
                    CHECK(overRacks == 0);
                }
            }
        }
    }
}

TEST_CASE("the 336 racks of the ND H100 hall are numbered where their aisles hold the type",
          "[topology][labels]")
{
    auto doc = openSample("ndv5-h100-1344-gpt3-175b.csession");
    TopologyScene scene(doc->topology(), doc->placement(), doc->evaluation());
    scene.renderer().setTextPixels(12);
    // Full screen at 1080p, and the view of a 1920x1080 window a wheel notch or three in.
    const std::pair<QSize, double> views[] = {{{1920, 1080}, 1.0}, {{1000, 560}, 1.7}};
    for (const auto& [size, zoom] : views) {
        cs::ViewState view;
        view.zoom = zoom;
        const ViewTransform t = scene.transform(view, QSizeF(size));
        const auto racks = scene.renderer().rackLabels(t, t.visibleWorld());
        INFO(size.width() << "x" << size.height() << ", zoom " << zoom << ": " << t.scale
                          << " px a GPU");
        // Every column's number or every few columns', the first rack's when it is in view.
        REQUIRE(racks.size() >= 336 / 5);
        if (zoom == 1.0)
            CHECK(racks.front().text == QStringLiteral("0"));
        CHECK(racks.front().box.height() >= 7);
    }
}

TEST_CASE("names follow the view's type: the screen's DPI and presenting's larger type",
          "[topology][labels]")
{
    auto doc = openSample("fairwater-gb200-128.csession");
    TopologyView view([&]() -> const cs::ViewState& { return doc->view(); },
                      [&](const cs::ViewState& v) { doc->setView(v); });
    view.resize(1000, 560);
    view.setModel(doc->topology(), doc->placement(), doc->evaluation());
    for (int px : {11, 16, 22}) {
        QFont font = view.font();
        font.setPixelSize(px);
        view.setFont(font);
        CHECK(view.scene()->renderer().textPixels() == px);
        const auto tiers = view.scene()->renderer().tierLabels(view.currentTransform());
        REQUIRE_FALSE(tiers.empty());
        CHECK(tiers.front().box.height() >= px);
    }
}

TEST_CASE("presenting, the caption keeps clear of the names of tiers and racks",
          "[topology][labels][presenting]")
{
    QTemporaryDir dir;
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("fairwater-gb200-128.csession")));
    window.resize(1920, 1080);
    window.show();
    QApplication::processEvents();
    Document* doc = window.document();
    cs::ViewState whole = doc->view();
    whole.zoom = 1;
    whole.center = {0, 0};
    doc->setView(whole);
    Presentation* p = window.presentation();
    p->addBookmark(QStringLiteral("The whole hall, every tier of the fabric above it"), QString());
    p->enter();
    p->goTo(int(doc->bookmarks().size()) - 1, false);
    QApplication::processEvents();
    auto* view = window.findChild<TopologyView*>();
    QLabel* caption = nullptr;
    for (QLabel* label : window.findChildren<QLabel*>())
        if (label->isVisible() && label->text().contains(QStringLiteral("The whole hall")))
            caption = label;
    REQUIRE(caption);
    const QRect onView(view->mapFrom(&window, caption->geometry().topLeft()), caption->size());
    CHECK(view->reservedTop() >= onView.bottom());
    const ViewTransform t = view->currentTransform();
    std::vector<QRectF> names;
    for (const auto& label : view->scene()->renderer().tierLabels(t))
        names.push_back(label.box);
    for (const auto& label : view->scene()->renderer().rackLabels(t, t.visibleWorld()))
        names.push_back(label.box);
    REQUIRE_FALSE(names.empty());
    for (const QRectF& name : names)
        CHECK_FALSE(name.translated(0, view->reservedTop()).intersects(onView));
    // Presenting's type is larger, and so are the names.
    CHECK(view->scene()->renderer().textPixels() >= 16);
    p->leave();
    CHECK(view->reservedTop() == 0);
}

TEST_CASE("a figure's title says each part of the run's and cluster's names once", "[exports]")
{
    const std::tuple<const char*, const char*, const char*> cases[] = {
        {"Llama 3.1 405B, MLPerf Training v6.0, 128 racks", "Fairwater GB200 NVL72, 128 racks",
         "Llama 3.1 405B, MLPerf Training v6.0 on Fairwater GB200 NVL72, 128 racks"},
        {"DeepSeek-V3 671B, expert parallel inside each rack", "GB200 NVL72, 16 racks",
         "DeepSeek-V3 671B, expert parallel inside each rack on GB200 NVL72, 16 racks"},
        {"GPT-3 175B on 1,024 H100 (MLPerf Training 4.0 scale)", "ND H100 v5, 128 VMs (1,024 H100)",
         "GPT-3 175B on 1,024 H100 (MLPerf Training 4.0 scale) \u2014 ND H100 v5, 128 VMs "
         "(1,024 H100)"},
        {"", "Fairwater GB200 NVL72, 128 racks", "Fairwater GB200 NVL72, 128 racks"},
    };
    for (const auto& [run, cluster, title] : cases)
        CHECK(figureTitle(QString::fromUtf8(run), QString::fromUtf8(cluster)) ==
              QString::fromUtf8(title));
}
