#include "cachedchartview.h"

#include <QAbstractAxis>
#include <QChart>
#include <QGraphicsScene>
#include <QPaintEvent>
#include <QPainter>

void clearChart(QChart* chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
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
    setMinimumSize(QSize(120, 90));
    // A scene with no rect of its own works out the bounds of all its items on every change.
    scene()->setSceneRect(QRectF(QPointF(0, 0), QSizeF(viewport()->size())));
    m_valid = false;
}

void CachedChartView::paintEvent(QPaintEvent* event)
{
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
