#include "goodputpanel.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "cachedchartview.h"
#include "costmodel.h"
#include "text.h"

namespace {

// One colour per part of the time to train, in TimeSplit::parts() order.
constexpr QRgb kPartColors[] = {0xff4a90c2, 0xffc4a03a, 0xff8e6bc4, 0xffd0583a, 0xff8a8f98};
constexpr int kHistogramBins = 24;

QString qtext(const std::string& s)
{
    return QString::fromStdString(s);
}

QString percentText(double fraction)
{
    return QStringLiteral("%1 %").arg(qtext(cs::fixed(fraction * 100, 2)));
}

// A part of the time to train in the unit that shows it, each part its own: "460 ms", "3.8 s",
// "7.1 min", "2.3 h". The training-time units stop at minutes, where a few seconds of
// stragglers over a short run would read "0.0 min".
QString partText(double seconds)
{
    if (!std::isfinite(seconds))
        return GoodputPanel::tr("without end");
    if (seconds == 0)
        return QStringLiteral("0 s");
    if (seconds < 1)
        return qtext(cs::inStepTimeText(seconds));
    if (seconds < 60)
        return QStringLiteral("%1 s").arg(qtext(cs::fixed(seconds, 1)));
    return qtext(cs::trainingTimeText(seconds));
}

QChart* emptyChart(QChart* chart, const QString& title)
{
    clearChart(chart);
    chart->setTitle(title);
    return chart;
}

} // namespace

GoodputPanel::GoodputPanel(QWidget* parent)
    : QWidget(parent)
    , m_figures(new QLabel(this))
    , m_split(new CachedChartView(this))
    , m_parts(new QLabel(this))
    , m_curve(new CachedChartView(this))
    , m_histogram(new CachedChartView(this))
{
    m_figures->setWordWrap(true);
    m_figures->setObjectName(QStringLiteral("goodputFigures"));
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The dock scrolls: each chart keeps room for its axes and its legend's every line.
    m_split->setLeastSize({300, 150});
    m_curve->setLeastSize({300, 230});
    m_histogram->setLeastSize({300, 210});
    // The parts' names and times wrap in a label of their own: a chart legend elides them.
    splitChart()->legend()->hide();
    m_parts->setWordWrap(true);
    m_parts->setObjectName(QStringLiteral("goodputParts"));
    curveChart()->legend()->setAlignment(Qt::AlignBottom);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_figures);
    layout->addWidget(m_split, 3);
    layout->addWidget(m_parts);
    layout->addWidget(m_curve, 4);
    layout->addWidget(m_histogram, 3);
}

QChart* GoodputPanel::splitChart() const
{
    return m_split->chart();
}
QChart* GoodputPanel::curveChart() const
{
    return m_curve->chart();
}
QChart* GoodputPanel::histogramChart() const
{
    return m_histogram->chart();
}
QString GoodputPanel::figures() const
{
    return m_figures->text();
}

void GoodputPanel::setEvaluation(const cs::Evaluation& evaluation)
{
    QStringList lines;
    if (const auto& g = evaluation.goodput) {
        lines << tr("Goodput %1: %2 failures a day expected; a checkpoint every %3 steps (%4%5)")
                     .arg(percentText(g->goodput()))
                     .arg(qtext(cs::fixed(g->failures.perDay(), 2)))
                     .arg(qtext(cs::withThousands(g->intervalSteps())))
                     .arg(g->intervalAuto ? tr("the optimum") : tr("as the run sets it"))
                     .arg(g->intervalAuto
                              ? QString()
                              : tr("; the optimum is %1")
                                    .arg(qtext(cs::withThousands(g->optimalIntervalSteps))));
        if (const auto t = g->timeToTrainS())
            // In the CLI's words and order (evaluate): the steps' own time first.
            lines << tr("Time to train %1; with failures %2 (restarts, lost work, checkpoints, "
                        "stragglers)")
                         .arg(qtext(cs::trainingTimeText(g->timeToTrainIdealS().value_or(0))))
                         .arg(qtext(cs::trainingTimeText(*t)));
        const auto assumed = g->assumed();
        if (!assumed.empty())
            lines << tr("Assumed (not in the description): %1").arg(qtext(cs::wordList(assumed)));
    } else {
        lines << tr("No goodput for this run.");
    }
    if (const auto& v = evaluation.variance)
        lines << tr("Steps take %1 on average, %2 of it waiting for the slowest GPU; standard "
                    "deviation %3")
                     .arg(qtext(cs::stepTimeText(v->meanStepS())))
                     .arg(qtext(cs::inStepTimeText(v->stragglerS)))
                     .arg(qtext(cs::inStepTimeText(v->stepStddevS)));
    m_figures->setText(lines.join(QLatin1Char('\n')));
    buildSplit(evaluation);
    buildCurve(evaluation);
    buildHistogram(evaluation);
}

void GoodputPanel::buildSplit(const cs::Evaluation& evaluation)
{
    const auto& g = evaluation.goodput;
    const auto split = g ? g->timeToTrainSplit() : std::nullopt;
    const bool perRun = split.has_value();
    const cs::TrainingTimeUnit unit = cs::trainingTimeUnit(perRun ? split->total() : 0);
    QChart* chart = emptyChart(splitChart(), perRun ? tr("Time to train (%1)").arg(unit.name)
                                                    : tr("Wall time per step (s)"));
    m_parts->clear();
    if (!g)
        return;
    const cs::TimeSplit parts = perRun ? *split : g->chosen.perStep;
    const double scale = perRun ? 1.0 / unit.seconds : 1.0;
    auto* series = new QHorizontalStackedBarSeries;
    series->setBarWidth(0.6);
    const auto all = parts.parts();
    QStringList entries;
    for (size_t i = 0; i < all.size(); ++i) {
        const double value = std::isfinite(all[i].seconds) ? all[i].seconds * scale : 0;
        const QString label = qtext(std::string(all[i].label));
        const QColor color = QColor::fromRgb(kPartColors[i % std::size(kPartColors)]);
        entries << QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp;%3")
                       .arg(color.name(), label.toHtmlEscaped(),
                            perRun ? partText(all[i].seconds)
                                   : qtext(cs::stepTimeText(all[i].seconds)));
        auto* set = new QBarSet(label);
        set->append(value);
        set->setColor(color);
        set->setBorderColor(Qt::transparent);
        series->append(set);
    }
    m_parts->setText(entries.join(QStringLiteral(" &nbsp; ")));
    chart->addSeries(series);
    auto* categories = new QBarCategoryAxis;
    categories->append(QStringLiteral(" "));
    chart->addAxis(categories, Qt::AlignLeft);
    series->attachAxis(categories);
    auto* values = new QValueAxis;
    chart->addAxis(values, Qt::AlignBottom);
    series->attachAxis(values);
    values->setRange(0, std::max(1e-9, parts.total() * scale));
    values->applyNiceNumbers();
    values->setLabelFormat(valueLabelFormat(values->max()));
}

void GoodputPanel::buildCurve(const cs::Evaluation& evaluation)
{
    QChart* chart =
        emptyChart(curveChart(), tr("Goodput (%) against the checkpoint interval (steps)"));
    const auto& g = evaluation.goodput;
    if (!g || g->curve.empty())
        return;
    auto* curve = new QLineSeries;
    curve->setName(tr("goodput"));
    double low = 100, high = 0;
    for (const cs::GoodputPoint& p : g->curve) {
        curve->append(double(p.intervalSteps), p.goodput * 100);
        low = std::min(low, p.goodput * 100);
        high = std::max(high, p.goodput * 100);
    }
    auto* optimum = new QScatterSeries;
    optimum->setName(
        tr("optimum: every %1 steps").arg(qtext(cs::withThousands(g->optimalIntervalSteps))));
    optimum->setMarkerSize(11);
    optimum->setColor(QColor(0xe0, 0x2a, 0x2a));
    const auto at = std::find_if(g->curve.begin(), g->curve.end(), [&](const cs::GoodputPoint& p) {
        return p.intervalSteps == g->optimalIntervalSteps;
    });
    optimum->append(double(g->optimalIntervalSteps),
                    (at != g->curve.end() ? at->goodput : g->goodput()) * 100);
    chart->addSeries(curve);
    chart->addSeries(optimum);
    if (!g->intervalAuto) {
        auto* chosen = new QScatterSeries;
        chosen->setName(
            tr("the run's: every %1").arg(qtext(cs::withThousands(g->intervalSteps()))));
        chosen->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        chosen->setMarkerSize(9);
        chosen->append(double(g->intervalSteps()), g->goodput() * 100);
        chart->addSeries(chosen);
    }
    auto* x = new QLogValueAxis;
    x->setBase(10);
    x->setLabelFormat(QStringLiteral("%g"));
    x->setMinorTickCount(0);
    chart->addAxis(x, Qt::AlignBottom);
    auto* y = new QValueAxis;
    const double pad = std::max(0.05, (high - low) * 0.08);
    setNiceRange(y, low - pad, high + pad, 0, 100, 5);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
}

void GoodputPanel::buildHistogram(const cs::Evaluation& evaluation)
{
    QChart* chart = emptyChart(histogramChart(), tr("Predicted step times (%)"));
    const auto& v = evaluation.variance;
    if (!v || v->quantilesS.empty())
        return;
    const auto& q = v->quantilesS;
    const double low = q.front(), high = q.back();
    const double width = (high > low ? high - low : std::max(1e-6, low * 1e-3)) / kHistogramBins;
    std::vector<int> counts(kHistogramBins, 0);
    for (double s : q)
        ++counts[size_t(std::clamp(int((s - low) / width), 0, kHistogramBins - 1))];
    // A stepped outline over the bins, on a time axis: bars on categories would need a label
    // per bin.
    auto* outline = new QLineSeries;
    double tallest = 0;
    for (int b = 0; b < kHistogramBins; ++b) {
        const double share = 100.0 * counts[size_t(b)] / double(q.size());
        tallest = std::max(tallest, share);
        outline->append(low + b * width, share);
        outline->append(low + (b + 1) * width, share);
    }
    auto* base = new QLineSeries;
    base->append(low, 0);
    base->append(low + kHistogramBins * width, 0);
    auto* bins = areaBetween(outline, base);
    bins->setName(tr("steps"));
    bins->setColor(QColor(0x4a, 0x90, 0xc2));
    bins->setBorderColor(QColor(0x4a, 0x90, 0xc2).darker(130));
    chart->addSeries(bins);
    // The step as the schedule runs it: every wait for a straggler lies to its right.
    auto* predicted = new QLineSeries;
    predicted->setName(tr("the predicted step %1").arg(qtext(cs::stepTimeText(v->jitter.stepS))));
    predicted->setColor(QColor(0xe0, 0x2a, 0x2a));
    predicted->append(v->jitter.stepS, 0);
    predicted->append(v->jitter.stepS, tallest * 1.1);
    chart->addSeries(predicted);
    chart->legend()->show();
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto* x = new QValueAxis;
    x->setTitleText(tr("step time (s)"));
    constexpr double kUnbounded = std::numeric_limits<double>::infinity();
    setNiceRange(x, std::min(low, v->jitter.stepS), low + kHistogramBins * width, -kUnbounded,
                 kUnbounded, 5);
    auto* y = new QValueAxis;
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->setRange(0, tallest * 1.1);
    y->applyNiceNumbers();
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* series : chart->series()) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
}
