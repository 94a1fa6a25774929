#include "breakdownchart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QVBoxLayout>
#include <QValueAxis>
#include <numeric>

#include "activitycolors.h"
#include "barlegend.h"
#include "cachedchartview.h"
#include "text.h"

namespace {

constexpr QRgb kMeasured = 0xff8a8f98; // a mid grey: readable on a light and a dark chart
constexpr QRgb kHidden = 0xffc9ced6;
// The communication chart's title, axis and margins, and the height of each dimension's row.
constexpr int kCommChartFrame = 107;
constexpr int kCommChartRow = 17;
// The step chart's title, two bars and axis, its legend being under it.
constexpr int kStepChartLeast = 120;

// Replaces everything in a chart by a horizontal stacked bar series on the given categories.
QHorizontalStackedBarSeries* resetChart(QChart* chart, const QStringList& categories,
                                        const QString& valueTitle)
{
    clearChart(chart);
    auto* series = new QHorizontalStackedBarSeries;
    series->setBarWidth(0.6);
    chart->addSeries(series);
    auto* categoryAxis = new QBarCategoryAxis;
    categoryAxis->append(categories);
    chart->addAxis(categoryAxis, Qt::AlignLeft);
    series->attachAxis(categoryAxis);
    auto* valueAxis = new QValueAxis;
    valueAxis->setTitleText(valueTitle);
    valueAxis->setTitleVisible(!valueTitle.isEmpty());
    valueAxis->setLabelFormat(QStringLiteral("%.2f"));
    chart->addAxis(valueAxis, Qt::AlignBottom);
    series->attachAxis(valueAxis);
    return series;
}

double sumOf(const cs::PerDim<double>& perDim)
{
    return std::accumulate(perDim.values.begin(), perDim.values.end(), 0.0);
}

// The placed dimensions always; expert parallelism where the run has it.
bool shown(cs::Dim d, const cs::Evaluation& evaluation)
{
    return cs::dimInfo(d).placed || evaluation.commTotalS[d] > 0;
}

// `unit`: after each label, for an axis without a title.
void fitValueAxis(QChart* chart, double maximum, const QString& unit = {})
{
    // Worked out on a detached axis, so that an unchanged range does not relayout the chart.
    QValueAxis nice;
    nice.setRange(0, maximum > 0 ? maximum * 1.05 : 1);
    nice.applyNiceNumbers();
    for (QAbstractAxis* axis : chart->axes(Qt::Horizontal))
        if (auto* values = qobject_cast<QValueAxis*>(axis)) {
            values->setRange(nice.min(), nice.max());
            values->setTickCount(nice.tickCount());
            values->setLabelFormat(valueLabelFormat(nice.max()) + unit);
        }
}

} // namespace

QString stepTime(double s)
{
    return QString::fromStdString(cs::stepTimeText(s));
}

QString inStepTime(double s)
{
    return QString::fromStdString(cs::inStepTimeText(s));
}

BreakdownChart::BreakdownChart(QWidget* parent)
    : QWidget(parent)
    , m_stepView(new CachedChartView(this))
    , m_stepLegend(new BarLegend(this))
    , m_commView(new CachedChartView(this))
{
    // The step's parts (up to ten, each with its time) are more than a chart's legend shows
    // beside a short bar: they take columns under it, as many as the dock's width holds.
    stepChart()->legend()->setVisible(false);
    // The communication chart's two entries fit beside its bars, whose rows need the height.
    QLegend* commLegend = communicationChart()->legend();
    commLegend->setAlignment(Qt::AlignRight);
    QFont small = commLegend->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    commLegend->setFont(small);
    m_stepView->setLeastSize({260, kStepChartLeast});
    m_commView->setLeastSize({260, kCommChartFrame + kCommChartRow * 4});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_stepView, 1);
    layout->addWidget(m_stepLegend);
    layout->addWidget(m_commView, 1);
}

const BarLegend* BreakdownChart::stepLegend() const
{
    return m_stepLegend;
}

QChart* BreakdownChart::stepChart() const
{
    return m_stepView->chart();
}
QChart* BreakdownChart::communicationChart() const
{
    return m_commView->chart();
}

void BreakdownChart::setEvaluation(const cs::Evaluation& evaluation,
                                   std::optional<double> measuredStepS,
                                   const cs::Uncertainty& range)
{
    buildStepChart(evaluation, measuredStepS, range);
    buildCommunicationChart(evaluation);
}

namespace {

struct Bar {
    QString label;
    QColor color;
    QList<qreal> values; // one per category
};

// Sets the bars of a chart made by resetChart. Bars that keep their order and colours are
// updated in place: rebuilding series and axes makes Qt Charts lay every text out anew, the
// most expensive part of an edit.
void setBars(QChart* chart, const QStringList& categories, const QString& valueTitle,
             const std::vector<Bar>& bars)
{
    auto* series = qobject_cast<QHorizontalStackedBarSeries*>(chart->series().value(0));
    auto* axis =
        series ? qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Vertical).value(0)) : nullptr;
    bool same = axis && axis->categories() == categories && series->count() == int(bars.size());
    for (size_t i = 0; same && i < bars.size(); ++i)
        same = series->barSets()[int(i)]->color() == bars[i].color;
    if (!same) {
        series = resetChart(chart, categories, valueTitle);
        for (const Bar& bar : bars) {
            auto* set = new QBarSet(bar.label);
            set->setColor(bar.color);
            set->setBorderColor(bar.color);
            set->append(bar.values);
            series->append(set);
        }
        return;
    }
    for (size_t i = 0; i < bars.size(); ++i) {
        QBarSet* set = series->barSets()[int(i)];
        set->setLabel(bars[i].label);
        for (int v = 0; v < bars[i].values.size(); ++v)
            if (set->at(v) != bars[i].values[v])
                set->replace(v, bars[i].values[v]);
    }
}

} // namespace

void BreakdownChart::buildStepChart(const cs::Evaluation& evaluation,
                                    std::optional<double> measuredStepS,
                                    const cs::Uncertainty& range)
{
    QStringList categories{tr("predicted")};
    if (measuredStepS)
        categories << tr("measured");
    std::vector<Bar> bars;
    std::vector<LegendEntry> legend;
    // Entries that take no time are left out of the bar and its legend.
    for (const cs::Breakdown::Part& part : evaluation.breakdown.parts()) {
        if (part.seconds <= 0)
            continue;
        Bar bar{QStringLiteral("%1 %2").arg(QString::fromStdString(part.label),
                                            inStepTime(part.seconds)),
                breakdownColor(part),
                {part.seconds}};
        if (measuredStepS)
            bar.values << 0.0;
        legend.push_back({bar.color, bar.label});
        bars.push_back(bar);
    }
    // The measured bar is named by its axis and its time is in the title: not in the legend.
    m_stepLegend->setEntries(std::move(legend));
    // The range in the title, its basis in the tooltip: the legend keeps its room.
    QString title = tr("Step %1 predicted").arg(stepTime(evaluation.stepTimeS));
    if (range.known())
        title +=
            QStringLiteral(" (%1-%2 s)").arg(range.lowS, 0, 'f', 3).arg(range.highS, 0, 'f', 3);
    m_stepView->setToolTip(
        range.known() ? tr("The measured step should lie in %1.")
                            .arg(QString::fromStdString(cs::rangeText(range)))
                      : tr("No range: %1.").arg(QString::fromStdString(cs::rangeText(range))));
    double longest = evaluation.stepTimeS;
    if (measuredStepS) {
        bars.push_back({tr("measured %1").arg(stepTime(*measuredStepS)),
                        QColor::fromRgb(kMeasured),
                        {0.0, *measuredStepS}});
        title += tr(", measured %1 (%2)")
                     .arg(stepTime(*measuredStepS),
                          QString::fromStdString(
                              cs::signedPercentText(evaluation.stepTimeS / *measuredStepS - 1)));
        longest = std::max(longest, *measuredStepS);
    }

    QChart* chart = stepChart();
    // The unit on the labels rather than in an axis title: the line is the bars' height.
    setBars(chart, categories, {}, bars);
    chart->setTitle(title);
    fitValueAxis(chart, longest, QStringLiteral(" s"));
}

void BreakdownChart::buildCommunicationChart(const cs::Evaluation& evaluation)
{
    QStringList categories;
    for (const cs::DimInfo& d : cs::kDims)
        if (shown(d.dim, evaluation))
            categories << QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size()));
    Bar exposed{tr("exposed"), activityColor(cs::Activity::Communication), {}};
    Bar hidden{tr("hidden under compute"), QColor::fromRgb(kHidden), {}};
    double longest = 0;
    for (cs::Dim d : cs::kAllDims) {
        if (!shown(d, evaluation))
            continue;
        // Within a step: milliseconds.
        const double total = evaluation.commTotalS[d] * 1e3;
        const double onPath = std::min(evaluation.commExposedS[d] * 1e3, total);
        exposed.values << onPath;
        hidden.values << total - onPath;
        longest = std::max(longest, total);
    }
    // Qt Charts cuts a category label to "..." once the rows are thinner than its text: each row
    // (expert parallelism makes five) keeps its room.
    m_commView->setLeastSize({260, kCommChartFrame + kCommChartRow * int(categories.size())});
    QChart* chart = communicationChart();
    setBars(chart, categories, tr("ms per step"), {exposed, hidden});
    chart->setTitle(tr("Communication: %1 exposed of %2")
                        .arg(inStepTime(sumOf(evaluation.commExposedS)),
                             inStepTime(sumOf(evaluation.commTotalS))));
    fitValueAxis(chart, longest);
}
