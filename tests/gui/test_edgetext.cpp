// Text at the edges of the window is never cut (issue 40, items 3 and 9), at 1280x720 and
// 1920x1080: the topology's tier names end inside the view, shortened with the whole name in
// the tooltip; the timeline's last ruler name ends inside the ruler; the status bar's step
// figure is whole inside the window.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QFile>
#include <QFontMetrics>
#include <QLabel>
#include <QTemporaryDir>

#include "document.h"
#include "elidedlabel.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "shownwindow.h"
#include "timelineview.h"
#include "topologyscene.h"
#include "topologyview.h"

TEST_CASE("the tier names end inside the topology view, shortened ones whole in the tooltip",
          "[topology][labels][layout]")
{
    // A 1280x720 screen less its panel and the window's frame; a maximised 1920x1080 one.
    const QSize size = GENERATE(QSize(1228, 676), QSize(1920, 1080));
    const char* sample =
        GENERATE("ndv5-h100-1344-gpt3-175b.csession",
                 "ndv5-h100-128-three-jobs-placed-badly.csession", "fairwater-gb200-128.csession");
    INFO(sample << " at " << size.width() << "x" << size.height());
    ShownWindow shown(sample, size);
    TopologyView* view = shown.window.topologyView();
    REQUIRE(view);
    const ViewTransform t = view->currentTransform();
    const QRectF inView(QPointF(0, 0), t.viewport);
    const auto tiers = view->scene()->renderer().tierLabels(t);
    REQUIRE_FALSE(tiers.empty());
    for (const auto& label : tiers) {
        INFO(label.text.toStdString());
        CHECK(inView.contains(label.box));
        if (label.whole.isEmpty())
            continue;
        // Shortened at the end, and the tooltip over it gives the whole name.
        CHECK(label.text.endsWith(QChar(0x2026)));
        CHECK(label.whole.startsWith(label.text.chopped(1)));
        CHECK(view->scene()->renderer().tierLabelAt(t, label.box.center()) == label.whole);
    }
    // Away from the names, no name.
    CHECK(view->scene()->renderer().tierLabelAt(t, QPointF(-10, -10)).isEmpty());
}

TEST_CASE("a tier name is shortened to the view's width and to the picture's right end",
          "[topology][labels]")
{
    const cs::Session session = sampleSession("ndv5-h100-1344-gpt3-175b.csession");
    Document doc;
    doc.setSession(session, QString());
    TopologyScene scene(doc.topology(), doc.placement(), doc.evaluation());
    TopologyRenderer& renderer = scene.renderer();
    renderer.setTextPixels(12);
    // Wide, the leaf tier's name (with its fabric) is whole; narrow, it is shortened.
    const auto leafName = [&](const ViewTransform& t) {
        const auto names = renderer.tierLabels(t);
        REQUIRE_FALSE(names.empty());
        return names.front();
    };
    cs::ViewState whole;
    CHECK(leafName(scene.transform(whole, QSizeF(1920, 1080))).whole.isEmpty());
    const ViewTransform narrow = scene.transform(whole, QSizeF(420, 300));
    const auto shortened = leafName(narrow);
    CHECK_FALSE(shortened.whole.isEmpty());
    CHECK(shortened.box.right() <= narrow.viewport.width());
    // Zoomed out, the picture is smaller than the view: the names end at its right end.
    cs::ViewState out;
    out.zoom = 0.5;
    const ViewTransform small = scene.transform(out, QSizeF(1000, 560));
    const double pictureRight = small.toScreen(scene.layout().bounds()).right();
    for (const auto& label : renderer.tierLabels(small))
        CHECK(label.box.right() <= pictureRight + 1e-6);
    // Zoomed in, a name is as long as the view is wide, wherever the pan puts it.
    cs::ViewState in;
    in.zoom = 4;
    const ViewTransform near = scene.transform(in, QSizeF(600, 400));
    for (const auto& label : renderer.tierLabels(near))
        CHECK(label.box.width() <= near.viewport.width());
}

TEST_CASE("the time ruler's names end inside the ruler and never run into each other",
          "[timeline][layout]")
{
    // Widths that put a tick right at the end of the step, and others between.
    TimelineView view;
    cs::Event e;
    e.kind = cs::EventKind::Forward;
    e.start = 0;
    e.end = 7.0;
    view.setSchedule({e}, 1, 7.0);
    view.show();
    int lastNamed = 0;
    for (int width = 400; width <= 1900; width += 23) {
        view.resize(width, 220);
        QApplication::processEvents();
        view.showWholeStep();
        REQUIRE(view.mapping().left + view.mapping().width <= width);
        INFO("timeline " << width << " px wide");
        const auto ticks = view.rulerTicks();
        REQUIRE(ticks.size() >= 2);
        double previousRight = -1;
        for (const auto& tick : ticks) {
            if (tick.text.isEmpty())
                continue;
            INFO(tick.text.toStdString());
            CHECK(tick.box.left() >= 0);
            CHECK(tick.box.right() <= width);
            CHECK(tick.box.left() > previousRight);
            CHECK(tick.box.width() >=
                  QFontMetricsF(view.font()).horizontalAdvance(tick.text) * 0.8);
            previousRight = tick.box.right();
        }
        lastNamed += ticks.back().timeS == Approx(7.0) && !ticks.back().text.isEmpty();
    }
    // The step's end is named where the name before leaves room.
    CHECK(lastNamed > 0);
}

TEST_CASE("the status bar's step figure is whole inside the window", "[window][layout]")
{
    // A 1280x720 screen less its panel and the window's frame; a maximised 1920x1080 one.
    const QSize size = GENERATE(QSize(1228, 676), QSize(1920, 1080));
    const char* sample =
        GENERATE("ndv5-h100-1344-gpt3-175b.csession",
                 "ndv5-h100-128-three-jobs-placed-badly.csession", "fairwater-gb200-128.csession");
    INFO(sample << " at " << size.width() << "x" << size.height());
    ShownWindow shown(sample, size);
    auto* figure = shown.window.findChild<QLabel*>(QStringLiteral("stepFigure"));
    REQUIRE(figure);
    REQUIRE(figure->text().startsWith(QStringLiteral("Step ")));
    CHECK(shown.window.width() == size.width());
    const QRect onWindow(figure->mapTo(&shown.window, QPoint(0, 0)), figure->size());
    CHECK(shown.window.rect().contains(onWindow));
    // The whole line fits the label.
    CHECK(figure->fontMetrics().horizontalAdvance(figure->text()) <=
          figure->contentsRect().width());
}

TEST_CASE("a step figure longer than the window is cut with an ellipsis, whole in its tooltip",
          "[window][layout]")
{
    // Fairwater's session with a model of no measured family (another name and another shape:
    // a measured run of its very shape would be of its family): its range says so, and the
    // line no longer fits 1228 pixels.
    QFile in(sampleFile("fairwater-gb200-128.csession"));
    REQUIRE(in.open(QIODevice::ReadOnly));
    QString text = QString::fromUtf8(in.readAll());
    text.replace(QStringLiteral("\"name\": \"Llama 3.1 405B"),
                 QStringLiteral("\"name\": \"Falcon 405B"));
    text.replace(QStringLiteral("\"layers\": 126"), QStringLiteral("\"layers\": 120"));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("falcon.csession"));
    QFile out(path);
    REQUIRE(out.open(QIODevice::WriteOnly));
    out.write(text.toUtf8());
    out.close();

    ShownWindow shown(path, QSize(1228, 676));
    auto* figure = shown.window.findChild<ElidedLabel*>(QStringLiteral("stepFigure"));
    REQUIRE(figure);
    REQUIRE(figure->text().contains(QStringLiteral("none of its model family")));
    CHECK(shown.window.width() == 1228);
    const QRect onWindow(figure->mapTo(&shown.window, QPoint(0, 0)), figure->size());
    CHECK(shown.window.rect().contains(onWindow));
    CHECK(figure->elided());
    CHECK(figure->toolTip().startsWith(figure->text()));
    // The same line at 1920 pixels is whole.
    shown.window.resize(1920, 1080);
    QApplication::processEvents();
    CHECK_FALSE(figure->elided());
}
