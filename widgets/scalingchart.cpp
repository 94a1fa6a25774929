#include "scalingchart.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "cachedchartview.h"

namespace {

constexpr QRgb kStepTime = 0xff2f6db5;
constexpr QRgb kEfficiency = 0xff2e9d6a;
constexpr QRgb kCluster = 0xffc8102e;

} // namespace

double logAxisBase(double from, double to)
{
    // Five labelled powers of 2, 4 or 8 fit the dock; nine of 2 (64 to 16,384 GPUs) did not.
    constexpr int kMaxLabels = 6;
    for (double base : {2.0, 4.0, 8.0, 16.0})
        if (std::log(to / from) / std::log(base) < kMaxLabels)
            return base;
    return 32;
}

ScalingChart::ScalingChart(QWidget* parent)
    : QWidget(parent)
    , m_view(new CachedChartView(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view->setLeastSize({260, 200});
    layout->addWidget(m_view);
}

QChart* ScalingChart::chart() const
{
    return m_view->chart();
}

void ScalingChart::setPoints(const std::vector<cs::ScalingPoint>& points)
{
    QChart* c = chart();
    clearChart(c);
    c->setTitle(tr("Weak scaling at constant work per GPU"));
    if (points.empty())
        return;

    auto* stepTime = new QLineSeries;
    stepTime->setName(tr("step time (s)"));
    stepTime->setColor(QColor::fromRgb(kStepTime));
    stepTime->setPointsVisible(true);
    auto* efficiency = new QLineSeries;
    efficiency->setName(tr("efficiency (%)"));
    efficiency->setColor(QColor::fromRgb(kEfficiency));
    efficiency->setPointsVisible(true);
    auto* cluster = new QScatterSeries;
    cluster->setName(tr("this cluster"));
    cluster->setColor(QColor::fromRgb(kCluster));
    cluster->setBorderColor(QColor::fromRgb(kCluster));
    cluster->setMarkerSize(9);
    double longest = 0;
    for (const cs::ScalingPoint& p : points) {
        stepTime->append(double(p.gpus), p.stepTimeS);
        efficiency->append(double(p.gpus), p.efficiency * 100);
        if (p.isCluster)
            cluster->append(double(p.gpus), p.stepTimeS);
        longest = std::max(longest, p.stepTimeS);
    }
    c->addSeries(stepTime);
    c->addSeries(cluster);
    c->addSeries(efficiency);

    auto* gpus = new QLogValueAxis;
    gpus->setBase(logAxisBase(double(points.front().gpus), double(points.back().gpus)));
    gpus->setLabelFormat(QStringLiteral("%g"));
    gpus->setTitleText(tr("GPUs"));
    gpus->setRange(double(points.front().gpus) / 1.3, double(points.back().gpus) * 1.3);
    c->addAxis(gpus, Qt::AlignBottom);
    auto* seconds = new QValueAxis;
    seconds->setTitleText(tr("step time (s)"));
    seconds->setRange(0, longest * 1.15);
    seconds->setTickCount(7);
    seconds->applyNiceNumbers();
    c->addAxis(seconds, Qt::AlignLeft);
    auto* percent = new QValueAxis;
    percent->setTitleText(tr("efficiency (%)"));
    // Above 100 % when a larger size runs faster than the smallest (shorter optimizer shards).
    percent->setRange(0, 120);
    percent->setTickCount(7);
    percent->setLabelFormat(QStringLiteral("%d"));
    c->addAxis(percent, Qt::AlignRight);
    for (QAbstractSeries* s :
         {static_cast<QAbstractSeries*>(stepTime), static_cast<QAbstractSeries*>(cluster)}) {
        s->attachAxis(gpus);
        s->attachAxis(seconds);
    }
    efficiency->attachAxis(gpus);
    efficiency->attachAxis(percent);
}
