#include <catch2/catch.hpp>

#include <QFile>
#include <QImage>
#include <QLabel>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include "costmodel.h"
#include "exports.h"
#include "guitestutil.h"
#include "loader.h"

TEST_CASE("a widget exports as PNG, SVG and PDF; an unknown format is refused", "[exports]")
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

TEST_CASE("the breakdown CSV lists every item and they add up to the step", "[exports]")
{
    cs::Diagnostics diags;
    const auto loaded =
        cs::loadFile(sampleFile("fairwater-gb200-128-llama405b.run.json").toStdString(), diags);
    REQUIRE(loaded);
    const cs::Evaluation e = cs::evaluate(*loaded->cluster, *loaded->run);
    const QStringList lines = breakdownCsv(e, *loaded->run).split(QLatin1Char('\n'));
    double sum = 0;
    int items = 0;
    for (const cs::Breakdown::Part& part : e.breakdown.parts()) {
        if (part.dim && !cs::usesDim(*loaded->run, *part.dim))
            continue;
        const QString name = QString::fromLatin1(part.key.data(), int(part.key.size()));
        const auto line = std::find_if(lines.begin(), lines.end(), [&](const QString& l) {
            return l.startsWith(name + QLatin1Char(','));
        });
        REQUIRE(line != lines.end());
        sum += line->section(QLatin1Char(','), 1, 1).toDouble();
        ++items;
    }
    CHECK(items == 9);
    CHECK(sum == Approx(e.stepTimeS).epsilon(1e-6));
    CHECK(lines.contains(QStringLiteral("dimension,comm_total_s,comm_exposed_s")));
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
