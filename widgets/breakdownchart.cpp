#include "breakdownchart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHorizontalStackedBarSeries>
#include <QLegendMarker>
#include <QVBoxLayout>
#include <QValueAxis>
#include <numeric>

#include "activitycolors.h"
#include "cachedchartview.h"

namespace {

constexpr QRgb kMeasured = 0xff4a4e55;
constexpr QRgb kHidden = 0xffc9ced6;

// Replaces everything in a chart by a horizontal stacked bar series on the given categories.
QHorizontalStackedBarSeries* resetChart(QChart* chart, const QStringList& categories,
                                        const QString& valueTitle)
{
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes())
        chart->removeAxis(axis);
    auto* series = new QHorizontalStackedBarSeries;
    series->setBarWidth(0.6);
    chart->addSeries(series);
    auto* categoryAxis = new QBarCategoryAxis;
    categoryAxis->append(categories);
    chart->addAxis(categoryAxis, Qt::AlignLeft);
    series->attachAxis(categoryAxis);
    auto* valueAxis = new QValueAxis;
    valueAxis->setTitleText(valueTitle);
    valueAxis->setLabelFormat(QStringLiteral("%.2f"));
    chart->addAxis(valueAxis, Qt::AlignBottom);
    series->attachAxis(valueAxis);
    return series;
}

double sumOf(const cs::PerDim& perDim)
{
    return std::accumulate(perDim.s.begin(), perDim.s.end(), 0.0);
}

void fitValueAxis(QChart* chart, double maximum)
{
    for (QAbstractAxis* axis : chart->axes(Qt::Horizontal))
        if (auto* values = qobject_cast<QValueAxis*>(axis)) {
            values->setRange(0, maximum > 0 ? maximum * 1.05 : 1);
            values->applyNiceNumbers();
        }
}

} // namespace

QString formatSeconds(double s)
{
    if (std::abs(s) >= 0.1)
        return QStringLiteral("%1 s").arg(s, 0, 'f', 3);
    return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 1);
}

BreakdownChart::BreakdownChart(QWidget* parent)
    : QWidget(parent)
    , m_stepView(new CachedChartView(this))
    , m_commView(new CachedChartView(this))
{
    // The legend carries the values: beside the bar, where they have room.
    stepChart()->legend()->setAlignment(Qt::AlignRight);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stepView, 3);
    layout->addWidget(m_commView, 2);
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
                                   std::optional<double> measuredStepS)
{
    buildStepChart(evaluation, measuredStepS);
    buildCommunicationChart(evaluation);
}

void BreakdownChart::buildStepChart(const cs::Evaluation& evaluation,
                                    std::optional<double> measuredStepS)
{
    QChart* chart = stepChart();
    QStringList categories{tr("predicted")};
    if (measuredStepS)
        categories << tr("measured");
    auto* series = resetChart(chart, categories, tr("seconds"));
    // Entries that take no time are left out of the bar and its legend.
    for (const auto& [name, seconds] : evaluation.breakdown.named()) {
        if (seconds <= 0)
            continue;
        auto* set = new QBarSet(
            QStringLiteral("%1 %2").arg(QString::fromUtf8(name), formatSeconds(seconds)));
        set->setColor(breakdownColor(name));
        set->setBorderColor(breakdownColor(name));
        *set << seconds;
        if (measuredStepS)
            *set << 0.0;
        series->append(set);
    }
    QString title = tr("Step %1 predicted").arg(formatSeconds(evaluation.stepTimeS));
    double longest = evaluation.stepTimeS;
    if (measuredStepS) {
        auto* set = new QBarSet(tr("measured %1").arg(formatSeconds(*measuredStepS)));
        set->setColor(QColor::fromRgb(kMeasured));
        set->setBorderColor(QColor::fromRgb(kMeasured));
        *set << 0.0 << *measuredStepS;
        series->append(set);
        const double error = (evaluation.stepTimeS - *measuredStepS) / *measuredStepS;
        title += tr(", measured %1, error %2%3 %")
                     .arg(formatSeconds(*measuredStepS), error >= 0 ? "+" : "")
                     .arg(error * 100, 0, 'f', 1);
        longest = std::max(longest, *measuredStepS);
    }
    chart->setTitle(title);
    fitValueAxis(chart, longest);
}

void BreakdownChart::buildCommunicationChart(const cs::Evaluation& evaluation)
{
    QChart* chart = communicationChart();
    QStringList categories;
    for (cs::Dim d : cs::kAllDims)
        categories << QString::fromUtf8(cs::toString(d)).toUpper();
    auto* series = resetChart(chart, categories, tr("seconds per step"));
    auto* exposed = new QBarSet(tr("exposed"));
    auto* hidden = new QBarSet(tr("hidden under compute"));
    double longest = 0;
    for (cs::Dim d : cs::kAllDims) {
        const double total = evaluation.commTotalS[d];
        const double onPath = std::min(evaluation.commExposedS[d], total);
        *exposed << onPath;
        *hidden << total - onPath;
        longest = std::max(longest, total);
    }
    exposed->setColor(activityColor(cs::Activity::Communication));
    exposed->setBorderColor(exposed->color());
    hidden->setColor(QColor::fromRgb(kHidden));
    hidden->setBorderColor(hidden->color());
    series->append(exposed);
    series->append(hidden);
    chart->setTitle(tr("Communication: %1 exposed of %2")
                        .arg(formatSeconds(sumOf(evaluation.commExposedS)),
                             formatSeconds(sumOf(evaluation.commTotalS))));
    fitValueAxis(chart, longest);
}
