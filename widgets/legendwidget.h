#pragma once
// What the GPU colours mean, and where each parallel dimension sits on the hardware.

#include <QWidget>

#include "gpucolors.h"

class QPainter;

// Height the legend takes when laid out `width` pixels wide.
double legendHeight(const Legend& legend, double width);
// Draws the legend into `box` (top-left aligned, `box.width()` wide).
void paintLegendIn(QPainter& painter, const Legend& legend, const QRectF& box);
// Draws the legend as a boxed overlay in the bottom-left corner of `area` (used by --render).
void paintLegend(QPainter& painter, const Legend& legend, const QRectF& area);

class LegendWidget : public QWidget {
    Q_OBJECT
public:
    explicit LegendWidget(QWidget* parent = nullptr);
    void setLegend(Legend legend);
    const Legend& legend() const { return m_legend; }
    QSize sizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    Legend m_legend;
};
