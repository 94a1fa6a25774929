#include "cachedchartview.h"

#include <QAbstractAxis>
#include <QAreaSeries>
#include <QChart>
#include <QGraphicsScene>
#include <QLegend>
#include <QLineSeries>
#include <QPaintEvent>
#include <QPainter>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

void clearChart(QChart* chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

QString valueLabelFormat(double niceMax)
{
    return niceMax >= 20  ? QStringLiteral("%.0f")
           : niceMax >= 2 ? QStringLiteral("%.1f")
                          : QStringLiteral("%.2f");
}

void setNiceRange(QValueAxis* axis, double low, double high, double least, double most,
                  int maxTicks)
{
    if (!(high > low)) // one value: a span around it
        high = low + std::max(1e-9, std::abs(low) * 0.01);
    // The smallest round step that spans the range in maxTicks - 1 intervals or fewer.
    const double rough = (high - low) / std::max(1, maxTicks - 1);
    const double decade = std::pow(10.0, std::floor(std::log10(rough)));
    double step = decade * 10;
    for (double m : {1.0, 2.0, 5.0})
        if (decade * m * (1 + 1e-9) >= rough) {
            step = decade * m;
            break;
        }
    double first = std::max(least, std::floor(low / step + 1e-9) * step);
    double last = std::min(most, std::ceil(high / step - 1e-9) * step);
    if (!(last > first))
        last = first + step;
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(first, last);
    axis->setTickCount(int(std::lround((last - first) / step)) + 1);
    const int decimals = std::max(0, int(-std::floor(std::log10(step) + 1e-9)));
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

QAreaSeries* areaBetween(QLineSeries* upper, QLineSeries* lower)
{
    auto* area = new QAreaSeries(upper, lower);
    upper->setParent(area);
    lower->setParent(area);
    return area;
}

void styleChart(QChart* chart, const QPalette& palette)
{
    const QColor text = palette.color(QPalette::Text);
    const QColor base = palette.color(QPalette::Base);
    const QColor grid = QColor::fromRgbF(float(base.redF() * 0.82 + text.redF() * 0.18),
                                         float(base.greenF() * 0.82 + text.greenF() * 0.18),
                                         float(base.blueF() * 0.82 + text.blueF() * 0.18));
    chart->setBackgroundBrush(base);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsBrush(text);
        axis->setTitleBrush(text);
        axis->setGridLineColor(grid);
        axis->setLinePenColor(grid);
        axis->setShadesVisible(false);
    }
}

CachedChartView::CachedChartView(QWidget* parent)
    : QChartView(new QChart, parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->setAnimationOptions(QChart::NoAnimation);
    chart()->setMargins(QMargins(4, 4, 4, 4));
    chart()->legend()->setAlignment(Qt::AlignBottom);
    connect(scene(), &QGraphicsScene::changed, this, &CachedChartView::invalidate);
}

void CachedChartView::setLeastSize(QSize size)
{
    m_least = size;
    setMinimumSize(size);
}

void CachedChartView::invalidate()
{
    m_valid = false;
    viewport()->update();
}

void CachedChartView::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event);
    // QChartView only ever raises its minimum size to the chart's; the docks that share a
    // column with a chart must still be able to take their room back.
    setMinimumSize(m_least);
    // A scene with no rect of its own works out the bounds of all its items on every change.
    scene()->setSceneRect(QRectF(QPointF(0, 0), QSizeF(viewport()->size())));
    m_valid = false;
}

void CachedChartView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        m_styledPalette = -1;
        invalidate();
    }
    QChartView::changeEvent(event);
}

void CachedChartView::paintEvent(QPaintEvent* event)
{
    if (m_styledPalette != palette().cacheKey() || m_styledAxes != chart()->axes()) {
        styleChart(chart(), palette());
        m_styledAxes = chart()->axes();
        m_styledPalette = palette().cacheKey();
    }
    const QSize size = viewport()->size();
    const qreal dpr = viewport()->devicePixelRatioF();
    if (!m_valid || m_cache.size() != size * dpr) {
        m_cache = QImage(size * dpr, QImage::Format_ARGB32_Premultiplied);
        m_cache.setDevicePixelRatio(dpr);
        m_cache.fill(backgroundBrush().style() == Qt::NoBrush ? palette().base().color()
                                                              : backgroundBrush().color());
        QPainter p(&m_cache);
        p.setRenderHints(renderHints());
        render(&p, QRectF(QPointF(0, 0), QSizeF(size)), viewport()->rect());
        m_valid = true;
    }
    QPainter p(viewport());
    const QRect r = event->rect();
    p.drawImage(r, m_cache, QRectF(QPointF(r.topLeft()) * dpr, QSizeF(r.size()) * dpr));
}
