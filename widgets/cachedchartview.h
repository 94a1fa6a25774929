#pragma once
// A QChartView that paints its chart from an image, redrawn only when the chart's scene
// changes or the view is resized: charts change with the model, not with the animation, and
// a chart repainted from scratch costs several milliseconds in the software rasterizer.

#include <QChartView>
#include <QImage>

// Removes and deletes every series and axis of a chart (QChart::removeAxis only hands the
// axis back to the caller).
void clearChart(QChart* chart);

class CachedChartView : public QChartView {
    Q_OBJECT
public:
    explicit CachedChartView(QWidget* parent = nullptr);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void invalidate();

    QImage m_cache;
    bool m_valid = false;
};
