// Every dock readable at 1280x720 and 1920x1080 (issue 40, item 3): the breakdown's legend
// holds every part of the step that takes time, and no chart text is cut to "...".

#include <catch2/catch.hpp>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QImage>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QTemporaryDir>

#include "barlegend.h"
#include "breakdownchart.h"
#include "comparepanel.h"
#include "document.h"
#include "guitestutil.h"
#include "legendwidget.h"
#include "mainwindow.h"
#include "propertiespanel.h"
#include "scalingchart.h"
#include "shownwindow.h"

namespace {

// The texts of a chart that Qt Charts cut to "..." for want of room.
QStringList cutTexts(const QChart* chart)
{
    QStringList cut;
    for (const QGraphicsItem* item : chart->scene()->items())
        if (const auto* text = qgraphicsitem_cast<const QGraphicsTextItem*>(item);
            text && text->isVisible() && text->toPlainText().endsWith(QStringLiteral("...")))
            cut << text->toPlainText();
    return cut;
}

} // namespace

TEST_CASE("the breakdown's legend holds every part of the step that takes time, and its charts "
          "cut no text, at 1280x720 and 1920x1080",
          "[layout][legend]")
{
    // A 1280x720 screen less its panel and the window's frame; a maximised 1920x1080 one.
    const QSize size = GENERATE(QSize(1228, 676), QSize(1920, 1080));
    const char* sample = GENERATE("fairwater-gb200-128.csession", "gb200-16-deepseek-v3.csession",
                                  "ndv5-h100-1344-gpt3-175b.csession");
    INFO(sample << " at " << size.width() << "x" << size.height());
    ShownWindow shown(sample, size);
    MainWindow& window = shown.window;
    window.findChild<QDockWidget*>(QStringLiteral("breakdownDock"))->raise();
    QApplication::processEvents();

    auto* breakdown = window.findChild<BreakdownChart*>();
    REQUIRE(breakdown);
    REQUIRE(breakdown->isVisible());
    QStringList parts;
    for (const cs::Breakdown::Part& part : window.document()->evaluation().breakdown.parts())
        if (part.seconds > 0)
            parts << QString::fromStdString(part.label);
    const BarLegend* legend = breakdown->stepLegend();
    QStringList entries;
    for (const LegendEntry& entry : legend->entries())
        entries << entry.label;
    INFO("entries: " << entries.join(QStringLiteral(", ")).toStdString());
    REQUIRE(entries.size() == parts.size());
    for (int i = 0; i < parts.size(); ++i)
        CHECK(entries[i].startsWith(parts[i]));
    CHECK(legend->isVisible());
    CHECK(legend->showsEveryEntryWhole());
    INFO("step chart " << breakdown->stepChart()->size().height() << " px high");
    for (const QChart* chart : {breakdown->stepChart(), breakdown->communicationChart()}) {
        const QStringList cut = cutTexts(chart);
        INFO(chart->title().toStdString()
             << ": cut " << cut.join(QStringLiteral(" | ")).toStdString());
        CHECK(cut.isEmpty());
    }
}

TEST_CASE("a bar legend takes as many columns as fit, and rows for the rest", "[legend]")
{
    BarLegend legend;
    std::vector<LegendEntry> entries;
    for (const char* label : {"compute 1,016 ms", "recompute 12.0 ms", "TP exposed 165 ms",
                              "PP exposed 0.333 ms", "DP exposed 21.4 ms", "EP exposed 3.00 ms",
                              "bubble 93.6 ms", "optimizer 0.486 ms", "overhead 1.00 ms"})
        entries.push_back({Qt::red, QString::fromLatin1(label)});
    legend.setEntries(entries);
    const int narrow = legend.heightForWidth(200), wide = legend.heightForWidth(800);
    CHECK(legend.columnsAt(200) == 1);
    CHECK(legend.columnsAt(800) >= 4);
    CHECK(legend.rowsAt(800) * legend.columnsAt(800) >= 9);
    CHECK(narrow > 2 * wide);
    legend.resize(200, 10);
    legend.show();
    QApplication::processEvents();
    CHECK(legend.height() == narrow); // it asks for the height its entries need
    CHECK(legend.showsEveryEntryWhole());
}

TEST_CASE("no chart of any dock cuts its text at 1280x720 and 1920x1080", "[layout]")
{
    // A 1280x720 screen less its panel and the window's frame; a maximised 1920x1080 one.
    const QSize size = GENERATE(QSize(1228, 676), QSize(1920, 1080));
    const char* sample = GENERATE("fairwater-gb200-128.csession", "gb200-16-deepseek-v3.csession",
                                  "ndv5-h100-1344-gpt3-175b.csession");
    INFO(sample << " at " << size.width() << "x" << size.height());
    ShownWindow shown(sample, size);
    MainWindow& window = shown.window;
    QApplication::processEvents();
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        dock->raise();
        QApplication::processEvents();
        // Weak scaling is worked out on a worker thread once its dock shows.
        if (const auto* scaling = dock->findChild<ScalingChart*>())
            REQUIRE(waitUntil([scaling] { return !scaling->chart()->series().isEmpty(); }));
        for (const QChartView* view : dock->findChildren<QChartView*>()) {
            if (!view->isVisible())
                continue;
            const QStringList cut = cutTexts(view->chart());
            INFO(dock->objectName().toStdString()
                 << " " << view->size().width() << "x" << view->size().height() << ": "
                 << view->chart()->title().toStdString() << ": cut "
                 << cut.join(QStringLiteral(" | ")).toStdString());
            CHECK(cut.isEmpty());
        }
    }
}

TEST_CASE("a colour scale's legend keeps its overflow label inside a narrow box", "[legend]")
{
    Legend legend;
    legend.title = QStringLiteral("Memory per GPU");
    legend.gradient = true;
    for (int i = 0; i < 16; ++i)
        legend.entries.push_back({QColor::fromHsv(i * 15, 200, 200),
                                  i % 5 == 0 ? QStringLiteral("%1 GiB").arg(i * 12) : QString()});
    legend.entries.push_back({Qt::red, QStringLiteral("over HBM")});
    const int boxWidth = GENERATE(200, 260, 400);
    INFO("box " << boxWidth << " px wide");
    QImage image(boxWidth + 200, 200, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        paintLegendIn(painter, legend, QRectF(0, 0, boxWidth, 200),
                      LegendStyle::of(QApplication::palette()));
    }
    int inkBeyond = 0; // what was drawn right of the box
    for (int y = 0; y < image.height(); ++y)
        for (int x = boxWidth; x < image.width(); ++x)
            inkBeyond += image.pixel(x, y) != qRgb(255, 255, 255);
    CHECK(inkBeyond == 0);
}

TEST_CASE("every choice of Properties shows its entry whole at 1280x720", "[layout][properties]")
{
    // A 1280x720 screen less its panel and the window's frame.
    ShownWindow shown("fairwater-gb200-128.csession", QSize(1228, 676));
    MainWindow& window = shown.window;
    auto* panel = window.findChild<PropertiesPanel*>();
    REQUIRE(panel);
    const auto* viewport = panel->findChild<QScrollArea*>()->viewport();
    const QList<QComboBox*> choices = panel->findChildren<QComboBox*>();
    REQUIRE(choices.size() >= 4);
    for (const QComboBox* choice : choices) {
        INFO(choice->objectName().toStdString()
             << ": " << choice->currentText().toStdString() << " in " << choice->width() << " px");
        CHECK(choice->width() >= choice->sizeHint().width());
        CHECK(choice->mapTo(viewport, QPoint(choice->width(), 0)).x() <= viewport->width());
    }
}

TEST_CASE("the compare dock's tables show every column and every name whole at 1280x720",
          "[layout][compare]")
{
    ShownWindow shown("fairwater-gb200-128.csession", QSize(1228, 676));
    auto* dock = shown.window.findChild<QDockWidget*>(QStringLiteral("compareDock"));
    REQUIRE(dock);
    dock->raise();
    for (int i = 0; i < 3; ++i)
        QApplication::processEvents();
    const auto* panel = dock->findChild<ComparePanel*>();
    REQUIRE(panel);
    for (const QTableWidget* table : {panel->figuresTable(), panel->inputsTable(),
                                      panel->breakdownTable(), panel->breakdownPerTokenTable()}) {
        INFO(table->horizontalHeaderItem(0)->text().toStdString()
             << " table, " << table->width() << " px");
        REQUIRE(table->rowCount() > 0);
        CHECK_FALSE(table->horizontalScrollBar()->isVisible());
        for (int r = 0; r < table->rowCount(); ++r) {
            const QTableWidgetItem* name = table->item(r, 0);
            INFO(name->text().toStdString());
            CHECK(table->fontMetrics().horizontalAdvance(name->text()) + 12 <=
                  table->columnWidth(0));
        }
    }
}
