#pragma once
// A QChartView that paints its chart from an image, redrawn only when the chart's scene
// changes or the view is resized: charts change with the model, not with the animation, and
// a chart repainted from scratch costs several milliseconds in the software rasterizer.

#include <QChartView>
#include <QImage>
#include <QList>

class QAbstractAxis;
class QAreaSeries;
class QLineSeries;
class QValueAxis;

// Removes and deletes every series and axis of a chart (QChart::removeAxis only hands the
// axis back to the caller).
void clearChart(QChart* chart);

// The printf format of a value axis' labels that tells its ticks apart from 0 to `niceMax`
// (after QValueAxis::applyNiceNumbers): decimals below 20, more below 2.
QString valueLabelFormat(double niceMax);

// Sets a value axis to the smallest range holding [low, high] that starts and ends on ticks a
// round step apart (1, 2 or 5 times a power of ten, at most `maxTicks` ticks), kept within
// [least, most] (which lie on such steps, as 0 and 100 do), its labels with the decimals the
// step needs: 97.8 / 98.0 / 98.2 rather than 97.83 / 98.06 / 98.29.
void setNiceRange(QValueAxis* axis, double low, double high, double least, double most,
                  int maxTicks = 6);

// The area between two lines, owning them: a QAreaSeries does not, so its lines would outlive it.
QAreaSeries* areaBetween(QLineSeries* upper, QLineSeries* lower);
// The chart's background, title, legend and axes in the palette's colours (light or dark
// theme); the series keep theirs.
void styleChart(QChart* chart, const QPalette& palette);

class CachedChartView : public QChartView {
    Q_OBJECT
public:
    explicit CachedChartView(QWidget* parent = nullptr);
    // The least room the chart keeps whatever the docks around it do: enough for its title,
    // axes and category labels never to be cut to "...".
    void setLeastSize(QSize size);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

    void changeEvent(QEvent* event) override;

private:
    void invalidate();

    QImage m_cache;
    bool m_valid = false;
    QSize m_least{120, 90};
    // What styleChart last styled: axes made since (a rebuilt chart) are styled before painting.
    QList<QAbstractAxis*> m_styledAxes;
    qint64 m_styledPalette = -1;
};
