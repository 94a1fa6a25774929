#include <catch2/catch.hpp>

#include <QFile>
#include <QFontMetricsF>
#include <QImage>
#include <QLabel>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include "costmodel.h"
#include "document.h"
#include "documentio.h"
#include "exports.h"
#include "gpucolors.h"
#include "guitestutil.h"
#include "loader.h"

TEST_CASE("a widget exports as PNG, SVG and PDF, an unknown format is refused", "[exports]")
{
    QTemporaryDir dir;
    QLabel widget(QStringLiteral("ClusterScope"));
    widget.resize(320, 200);
    QString error;
    REQUIRE(exportWidget(&widget, dir.filePath("v.png"), QStringLiteral("PNG"), &error));
    CHECK(QImage(dir.filePath("v.png")).size() == widget.grab().size());
    REQUIRE(exportWidget(&widget, dir.filePath("v.svg"), QStringLiteral("svg"), &error));
    QFile svg(dir.filePath("v.svg"));
    REQUIRE(svg.open(QIODevice::ReadOnly));
    CHECK(svg.readAll().contains("<svg"));
    REQUIRE(exportWidget(&widget, dir.filePath("v.pdf"), QStringLiteral("PDF"), &error));
    QFile pdf(dir.filePath("v.pdf"));
    REQUIRE(pdf.open(QIODevice::ReadOnly));
    CHECK(pdf.read(5) == "%PDF-");
    CHECK_FALSE(exportWidget(&widget, dir.filePath("v.bmp"), QStringLiteral("BMP"), &error));
    CHECK_THAT(error.toStdString(), Catch::Contains("unknown format"));
    CHECK_FALSE(QFile::exists(dir.filePath("v.bmp")));
    CHECK_FALSE(exportWidget(&widget, dir.filePath("no/dir/v.png"), QStringLiteral("PNG"), &error));
}

TEST_CASE("the breakdown CSV is one table whose parts add up to the step", "[exports]")
{
    cs::Diagnostics diags;
    const auto loaded =
        cs::loadFile(sampleFile("fairwater-gb200-128-llama405b.run.json").toStdString(), diags);
    REQUIRE(loaded);
    const cs::Evaluation e = cs::evaluate(*loaded->cluster, *loaded->run);
    QStringList lines = breakdownCsv(e, *loaded->run).split(QLatin1Char('\n'));
    REQUIRE(lines.back().isEmpty());
    lines.removeLast();
    REQUIRE(lines.front() == "kind,key,label,seconds,share_of_step");
    double sum = 0, step = 0;
    int parts = 0;
    for (const QString& line : lines.mid(1)) {
        const QStringList cells = line.split(QLatin1Char(','));
        REQUIRE(cells.size() == 5); // one table: every row has every column
        if (cells[0] == "breakdown") {
            sum += cells[3].toDouble();
            ++parts;
        } else if (cells[0] == "step") {
            step = cells[3].toDouble();
        }
    }
    CHECK(parts == 9);
    CHECK(step == Approx(e.stepTimeS).epsilon(1e-6));
    CHECK(sum == Approx(e.stepTimeS).epsilon(1e-6));
    CHECK(lines.contains(QStringLiteral("comm_exposed,dp,DP exposed,%1,%2")
                             .arg(e.commExposedS[cs::Dim::DP], 0, 'g', 9)
                             .arg(e.commExposedS[cs::Dim::DP] / e.stepTimeS, 0, 'f', 6)));
}

TEST_CASE("a view exports at the asked size with its title and legend", "[exports]")
{
    Document doc;
    QString problems;
    auto session = loadSessionFromFile(sampleFile("fairwater-gb200-128.csession"), &problems);
    REQUIRE(session);
    doc.setSession(std::move(*session), QString());
    cs::ViewState view = doc.view();
    view.colorBy = *cs::colorModeFromString("pp");
    for (const QSize size : {QSize(1920, 1080), QSize(3840, 2160)}) {
        const auto png = figureBytes(doc, view, QStringLiteral("Fairwater"), size, "png");
        REQUIRE(png);
        const QImage image = QImage::fromData(*png, "PNG");
        CHECK(image.size() == size); // not the widget's size
        // The legend's swatches (stage colours) sit in the strip below the view.
        const Legend legend = legendFor(view.colorBy, doc.topology(), doc.placement());
        bool swatch = false;
        for (int y = size.height() * 3 / 4; y < size.height() && !swatch; ++y)
            for (int x = 0; x < size.width() / 4 && !swatch; ++x)
                swatch = QColor(image.pixel(x, y)) == legend.entries[1].color;
        CHECK(swatch);
    }
    for (const char* format : {"svg", "pdf"}) {
        const auto bytes =
            figureBytes(doc, view, QStringLiteral("Fairwater"), {1920, 1080}, format);
        REQUIRE(bytes);
        CHECK(bytes->size() > 1000);
    }
    CHECK_FALSE(figureBytes(doc, view, QString(), {100, 100}, "bmp"));
}

TEST_CASE("the bookmarks handout has a page per bookmark and keeps notes in their box", "[exports]")
{
    Document doc;
    QString problems;
    auto session = loadSessionFromFile(sampleFile("fairwater-gb200-128.csession"), &problems);
    REQUIRE(session);
    doc.setSession(std::move(*session), QString());
    const QByteArray pdf = bookmarksHandoutPdf(doc);
    const auto pages = pdf.count("/Type /Page\n") + pdf.count("/Type /Page ") +
                       pdf.count("/Type /Page/") + pdf.count("/Type/Page\n");
    CHECK(pages == qsizetype(doc.bookmarks().size()));

    // Long notes shrink until they fit; the text never leaves its box.
    const QRectF box(0, 0, 600, 120);
    const QString longNotes = QString(QStringLiteral("DP traffic crosses racks. ")).repeated(30);
    const int px = fittingPixelSize(longNotes, box, 30, 6);
    CHECK(px < 30);
    QFont font;
    font.setPixelSize(px);
    const QRectF needed = QFontMetricsF(font).boundingRect(
        box, int(Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap), longNotes);
    CHECK(needed.height() <= box.height());
    CHECK(fittingPixelSize(QStringLiteral("short"), box, 30, 6) == 30);
}

TEST_CASE("the step trace export is the CLI's Chrome trace", "[exports]")
{
    cs::Diagnostics diags;
    const auto loaded =
        cs::loadFile(sampleFile("ndv5-h200-64-gpt3-175b.run.json").toStdString(), diags);
    REQUIRE(loaded);
    const QString trace = stepTraceJson(*loaded->cluster, *loaded->run);
    const auto json = nlohmann::json::parse(trace.toStdString());
    REQUIRE(json.contains("traceEvents"));
    const auto& events = json["traceEvents"];
    const auto complete =
        std::count_if(events.begin(), events.end(), [](const auto& ev) { return ev["ph"] == "X"; });
    CHECK(size_t(complete) == cs::evaluate(*loaded->cluster, *loaded->run).events.size());
}
