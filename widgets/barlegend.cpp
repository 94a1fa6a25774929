#include "barlegend.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace {

constexpr int kPad = 4;          // around the entries
constexpr double kGap = 14;      // between one column's label and the next column's swatch
constexpr double kSwatchGap = 5; // between a swatch and its label

} // namespace

BarLegend::BarLegend(QWidget* parent)
    : QWidget(parent)
{
    // The chart's background: the legend reads as part of the chart above it.
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void BarLegend::setEntries(std::vector<LegendEntry> entries)
{
    m_entries = std::move(entries);
    fitHeight();
    update();
}

QFont BarLegend::labelFont() const
{
    // As a chart's legend: a little smaller than the window's text.
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    return small;
}

double BarLegend::lineHeight() const
{
    return std::ceil(QFontMetricsF(labelFont()).height() + 3);
}

double BarLegend::swatchSize() const
{
    return std::round(QFontMetricsF(labelFont()).ascent() * 0.7);
}

double BarLegend::columnWidth() const
{
    const QFontMetricsF metrics(labelFont());
    double longest = 0;
    for (const LegendEntry& e : m_entries)
        longest = std::max(longest, metrics.horizontalAdvance(e.label));
    return swatchSize() + kSwatchGap + std::ceil(longest) + kGap;
}

int BarLegend::columnsAt(int width) const
{
    // The last column needs no gap after it.
    const int columns = int((width - 2 * kPad + kGap) / columnWidth());
    return std::clamp(columns, 1, std::max(1, int(m_entries.size())));
}

int BarLegend::rowsAt(int width) const
{
    const int columns = columnsAt(width);
    return (int(m_entries.size()) + columns - 1) / columns;
}

bool BarLegend::showsEveryEntryWhole() const
{
    return columnWidth() - kGap <= width() - 2 * kPad && height() >= heightForWidth(width());
}

int BarLegend::heightForWidth(int width) const
{
    return m_entries.empty() ? 0 : int(rowsAt(width) * lineHeight()) + 2 * kPad;
}

QSize BarLegend::sizeHint() const
{
    const int width = std::max(200, this->width());
    return {width, heightForWidth(width)};
}

QSize BarLegend::minimumSizeHint() const
{
    return {0, heightForWidth(width())};
}

void BarLegend::fitHeight()
{
    // Docks ignore height-for-width: the legend asks for the height its entries need at this
    // width.
    setFixedHeight(heightForWidth(width()));
}

void BarLegend::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitHeight();
}

void BarLegend::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        fitHeight();
    QWidget::changeEvent(event);
}

void BarLegend::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setFont(labelFont());
    p.setPen(palette().color(QPalette::Text));
    const QFontMetricsF metrics(labelFont());
    const double line = lineHeight(), swatch = swatchSize();
    const int columns = columnsAt(width());
    const double column = (width() - 2 * kPad) / double(columns);
    for (size_t i = 0; i < m_entries.size(); ++i) {
        const double x = kPad + column * double(int(i) % columns);
        const double y = kPad + line * double(int(i) / columns);
        p.fillRect(QRectF(x, y + (line - swatch) / 2, swatch, swatch), m_entries[i].color);
        const double textLeft = x + swatch + kSwatchGap;
        const double room = column - (textLeft - x);
        p.drawText(QRectF(textLeft, y, room, line), Qt::AlignLeft | Qt::AlignVCenter,
                   metrics.elidedText(m_entries[i].label, Qt::ElideRight, room));
    }
}
