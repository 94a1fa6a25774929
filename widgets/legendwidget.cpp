#include "legendwidget.h"

#include <QPainter>
#include <algorithm>

namespace {

constexpr double kLine = 18;
constexpr double kSwatch = 12;
constexpr double kEntryWidth = 150;
constexpr double kPad = 8;

int columnsFor(double width)
{
    return std::max(1, int(width / kEntryWidth));
}

double entriesHeight(const Legend& legend, double width)
{
    if (legend.gradient)
        return kLine * 2;
    const int columns = columnsFor(width);
    const int rows = (int(legend.entries.size()) + columns - 1) / columns;
    return rows * kLine;
}

} // namespace

double legendHeight(const Legend& legend, double width)
{
    return kLine * 1.4 + entriesHeight(legend, width) + 6 + legend.notes.size() * kLine;
}

void paintLegendIn(QPainter& p, const Legend& legend, const QRectF& box)
{
    p.save();
    QFont font = p.font();
    font.setPixelSize(12);
    p.setFont(font);
    const QColor text(0xd8, 0xdc, 0xe2);
    double y = box.top();
    QFont bold = font;
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(text);
    p.drawText(QRectF(box.left(), y, box.width(), kLine), Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(legend.title, Qt::ElideRight, int(box.width())));
    p.setFont(font);
    y += kLine * 1.4;
    if (legend.gradient && !legend.entries.empty()) {
        // Stops but the last (the overflow colour) make a continuous bar.
        const size_t stops = legend.entries.size() - 1;
        const double barWidth = box.width() * 0.75;
        QLinearGradient gradient(box.left(), 0, box.left() + barWidth, 0);
        for (size_t i = 0; i < stops; ++i)
            gradient.setColorAt(double(i) / std::max<size_t>(1, stops - 1),
                                legend.entries[i].color);
        p.fillRect(QRectF(box.left(), y, barWidth, kSwatch), gradient);
        for (size_t i = 0; i < stops; ++i) {
            const double x = box.left() + barWidth * double(i) / std::max<size_t>(1, stops - 1);
            p.drawText(QRectF(x - 40, y + kSwatch, 80, kLine), Qt::AlignCenter,
                       legend.entries[i].label);
        }
        const QRectF over(box.left() + barWidth + 10, y, kSwatch, kSwatch);
        p.fillRect(over, legend.entries.back().color);
        p.drawText(QRectF(over.right() + 4, y - 3, box.right() - over.right(), kLine),
                   Qt::AlignLeft | Qt::AlignVCenter, legend.entries.back().label);
    } else {
        const int columns = columnsFor(box.width());
        const double columnWidth = box.width() / columns;
        for (size_t i = 0; i < legend.entries.size(); ++i) {
            const double x = box.left() + columnWidth * double(int(i) % columns);
            const double ey = y + kLine * double(int(i) / columns);
            p.fillRect(QRectF(x, ey + 2, kSwatch, kSwatch), legend.entries[i].color);
            p.drawText(QRectF(x + kSwatch + 4, ey, columnWidth - kSwatch - 6, kLine),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       p.fontMetrics().elidedText(legend.entries[i].label, Qt::ElideRight,
                                                  int(columnWidth - kSwatch - 6)));
        }
    }
    y += entriesHeight(legend, box.width()) + 6;
    for (const QString& note : legend.notes) {
        p.setPen(note.contains(QLatin1String("crosses")) ? QColor(0xff, 0x9e, 0x9e)
                                                         : QColor(0xa8, 0xe0, 0x7a));
        p.drawText(QRectF(box.left(), y, box.width(), kLine), Qt::AlignLeft | Qt::AlignVCenter,
                   p.fontMetrics().elidedText(note, Qt::ElideRight, int(box.width())));
        y += kLine;
    }
    p.restore();
}

void paintLegend(QPainter& p, const Legend& legend, const QRectF& area)
{
    const double width = std::min(620.0, area.width() * 0.5);
    const double height = legendHeight(legend, width - 2 * kPad) + 2 * kPad;
    if (width < 200 || height > area.height() * 0.6)
        return;
    const QRectF box(area.left() + kPad, area.bottom() - height - kPad, width, height);
    p.save();
    p.setPen(QColor(0x3d, 0x44, 0x4e));
    p.setBrush(QColor(0x1e, 0x22, 0x28));
    p.drawRect(box);
    p.restore();
    paintLegendIn(p, legend, box.adjusted(kPad, kPad, -kPad, -kPad));
}

LegendWidget::LegendWidget(QWidget* parent)
    : QWidget(parent)
{
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, QColor(0x1e, 0x22, 0x28));
    setPalette(pal);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void LegendWidget::setLegend(Legend legend)
{
    m_legend = std::move(legend);
    // Docks ignore height-for-width: ask for the height the legend needs at this width.
    setMinimumHeight(heightForWidth(width()));
    updateGeometry();
    update();
}

QSize LegendWidget::sizeHint() const
{
    return {320, heightForWidth(320)};
}

int LegendWidget::heightForWidth(int width) const
{
    return int(legendHeight(m_legend, width - 2 * kPad) + 2 * kPad);
}

void LegendWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintLegendIn(p, m_legend, QRectF(rect()).adjusted(kPad, kPad, -kPad, -kPad));
}

void LegendWidget::resizeEvent(QResizeEvent* event)
{
    setMinimumHeight(heightForWidth(width()));
    QWidget::resizeEvent(event);
}
