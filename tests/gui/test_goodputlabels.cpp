// The Goodput dock's numbers as people read them: each part of the time to train in a unit
// that shows its value, and axes that step in round numbers.

#include <catch2/catch.hpp>

#include <QChart>
#include <QLabel>
#include <QRegularExpression>
#include <QValueAxis>
#include <cmath>

#include "cachedchartview.h"
#include "document.h"
#include "documentio.h"
#include "goodputpanel.h"
#include "guitestutil.h"

namespace {

const Document& sampleDocument(const char* name, Document& doc)
{
    QString problems;
    auto session = loadSessionFromFile(sampleFile(name), &problems);
    INFO(problems.toStdString());
    REQUIRE(session);
    doc.setSession(std::move(*session), QString());
    return doc;
}

double secondsIn(const QString& unit)
{
    return unit == "ms" ? 1e-3 : unit == "s" ? 1 : unit == "min" ? 60 : unit == "h" ? 3600 : 86400;
}

// The values a value axis labels, as its format prints them.
QStringList axisLabels(const QValueAxis& axis)
{
    QStringList labels;
    const QByteArray format = axis.labelFormat().toLatin1();
    for (int i = 0; i < axis.tickCount(); ++i)
        labels << QString::asprintf(format.constData(), axis.min() + (axis.max() - axis.min()) * i /
                                                                         (axis.tickCount() - 1));
    return labels;
}

// 1, 2 or 5 times a power of ten.
bool roundStep(double step)
{
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    return std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 ||
           std::abs(mantissa - 5) < 1e-6;
}

} // namespace

TEST_CASE("each part of the time to train reads in a unit that shows its value", "[goodput]")
{
    for (const char* sample :
         {"fairwater-gb200-128.csession", "ndv5-h100-1344-gpt3-175b.csession"}) {
        INFO(sample);
        Document doc;
        sampleDocument(sample, doc);
        const auto& g = doc.evaluation().goodput;
        REQUIRE(g);
        const auto split = g->timeToTrainSplit();
        REQUIRE(split);
        GoodputPanel panel;
        panel.setEvaluation(doc.evaluation());
        const QString parts = panel.findChild<QLabel*>(QStringLiteral("goodputParts"))->text();
        int small = 0;
        for (const auto& part : split->parts()) {
            const QString label = QString::fromStdString(std::string(part.label));
            const QRegularExpression shown(QRegularExpression::escape(label) +
                                           QStringLiteral("&nbsp;([0-9.,]+) (ms|s|min|h|days)"));
            const QRegularExpressionMatch m = shown.match(parts);
            INFO(label.toStdString() << " in " << parts.toStdString());
            REQUIRE(m.hasMatch());
            const double value = m.captured(1).remove(QLatin1Char(',')).toDouble();
            const double seconds = value * secondsIn(m.captured(2));
            // Two figures at least: within 5 % of the part, never 0.0 of a large unit.
            CHECK(std::abs(seconds - part.seconds) <= 0.05 * part.seconds + 1e-9);
            small += part.seconds > 0 && part.seconds < 60;
        }
        CHECK(small > 0); // a part under a minute, which minutes would show as 0.0
    }
}

TEST_CASE("value axes step in round numbers within their bounds", "[goodput]")
{
    // {low, high, least, most}: goodput from 40.1 to 80.03 %, near 98 %, step times.
    const std::tuple<double, double, double, double> cases[] = {
        {40.1, 80.03, 0, 100},    {97.83, 98.29, 0, 100},       {99.2, 100.4, 0, 100},
        {1.2712, 1.2869, 0, 1e9}, {0.000412, 0.000977, 0, 1e9}, {5, 5, 0, 100}};
    for (const auto& [low, high, least, most] : cases) {
        INFO(low << " to " << high);
        QValueAxis axis;
        setNiceRange(&axis, low, high, least, most, 5);
        CHECK(axis.min() <= low);
        CHECK(axis.max() >= std::min(high, most));
        CHECK(axis.min() >= least);
        CHECK(axis.max() <= most);
        REQUIRE(axis.tickCount() >= 2);
        CHECK(axis.tickCount() <= 6);
        const double step = (axis.max() - axis.min()) / (axis.tickCount() - 1);
        CHECK(roundStep(step));
        // Each label is its tick's value exactly, and no two read alike.
        const QStringList labels = axisLabels(axis);
        for (int i = 0; i < labels.size(); ++i)
            CHECK(std::abs(labels[i].toDouble() - (axis.min() + step * i)) < step * 1e-6);
        CHECK(QSet<QString>(labels.begin(), labels.end()).size() == labels.size());
    }

    Document doc;
    sampleDocument("fairwater-gb200-128.csession", doc);
    GoodputPanel panel;
    panel.setEvaluation(doc.evaluation());
    const auto* goodput =
        qobject_cast<QValueAxis*>(panel.curveChart()->axes(Qt::Vertical).value(0));
    REQUIRE(goodput);
    const double step = (goodput->max() - goodput->min()) / (goodput->tickCount() - 1);
    INFO(axisLabels(*goodput).join(QStringLiteral(" / ")).toStdString());
    CHECK(roundStep(step));
    CHECK(goodput->max() <= 100);
}
