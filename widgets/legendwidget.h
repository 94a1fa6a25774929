#pragma once
// What the GPU colours mean, and where each parallel dimension sits on the hardware.

#include <QColor>
#include <QWidget>

#include "gpucolors.h"

class QPainter;
class QPalette;

// How a legend is drawn: its inks and its type size (presentation mode draws it large).
struct LegendStyle {
    QColor text;
    QColor inside;  // a note of a dimension that stays inside NVLink domains
    QColor crosses; // a note of one that crosses the fabric
    double fontPx = 12;

    // Light type on the topology's dark background (images, overlays on the view).
    static LegendStyle onDark(double fontPx = 12);
    // The palette's text on its base (the Legend dock).
    static LegendStyle of(const QPalette& palette, double fontPx = 12);
};

// Height the legend takes when laid out `width` pixels wide.
double legendHeight(const Legend& legend, double width, const LegendStyle& style = {});
// Draws the legend into `box` (top-left aligned, `box.width()` wide).
void paintLegendIn(QPainter& painter, const Legend& legend, const QRectF& box,
                   const LegendStyle& style = LegendStyle::onDark());
// Draws the legend as a boxed overlay in the bottom-left corner of `area`; false when it does
// not fit there.
bool paintLegend(QPainter& painter, const Legend& legend, const QRectF& area,
                 const LegendStyle& style = LegendStyle::onDark());

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
    void changeEvent(QEvent* event) override;

private:
    Legend m_legend;
};
