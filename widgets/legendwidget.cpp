#include "legendwidget.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QPainter>
#include <QPalette>
#include <algorithm>
#include <cmath>

namespace {

constexpr double kPad = 8;

double lineOf(const LegendStyle& s)
{
    return s.fontPx * 1.5;
}
double swatchOf(const LegendStyle& s)
{
    return s.fontPx;
}
QFont fontOf(const LegendStyle& s, bool bold = false)
{
    QFont font;
    font.setPixelSize(int(s.fontPx));
    font.setBold(bold);
    return font;
}

// Entries are laid in as many columns as their longest label leaves room for.
int columnsFor(const Legend& legend, double width, const LegendStyle& s)
{
    const QFontMetricsF metrics(fontOf(s));
    double longest = 0;
    for (const LegendEntry& e : legend.entries)
        longest = std::max(longest, metrics.horizontalAdvance(e.label));
    const double column = swatchOf(s) + 4 + longest + s.fontPx;
    const int entries = std::max(1, int(legend.entries.size()));
    return std::clamp(int(width / column), 1, entries);
}

double entriesHeight(const Legend& legend, double width, const LegendStyle& s)
{
    if (legend.gradient)
        return lineOf(s) * 2;
    const int columns = columnsFor(legend, width, s);
    const int rows = (int(legend.entries.size()) + columns - 1) / columns;
    return rows * lineOf(s);
}

// A title or note wraps at word breaks rather than being cut: its height at `width`.
double wrappedHeight(const QString& text, double width, const QFont& font, const LegendStyle& s)
{
    const QFontMetricsF metrics(font);
    const QRectF r =
        metrics.boundingRect(QRectF(0, 0, std::max(1.0, width), 1e6), Qt::TextWordWrap, text);
    const double lines = std::max(1.0, std::round(r.height() / metrics.lineSpacing()));
    return lines * lineOf(s);
}

double notesHeight(const Legend& legend, double width, const LegendStyle& s)
{
    double h = 0;
    for (const QString& note : legend.notes)
        h += wrappedHeight(note, width, fontOf(s), s);
    return h;
}

} // namespace

LegendStyle LegendStyle::onDark(double fontPx)
{
    return {QColor(0xd8, 0xdc, 0xe2), QColor(0xa8, 0xe0, 0x7a), QColor(0xff, 0x9e, 0x9e), fontPx};
}

LegendStyle LegendStyle::of(const QPalette& palette, double fontPx)
{
    const QColor base = palette.color(QPalette::Base);
    if (base.lightnessF() < 0.5) {
        LegendStyle s = onDark(fontPx);
        s.text = palette.color(QPalette::Text);
        return s;
    }
    return {palette.color(QPalette::Text), QColor(0x2e, 0x7d, 0x12), QColor(0xb3, 0x1b, 0x1b),
            fontPx};
}

double legendHeight(const Legend& legend, double width, const LegendStyle& style)
{
    const double title = wrappedHeight(legend.title, width, fontOf(style, true), style);
    return title + lineOf(style) * 0.4 + entriesHeight(legend, width, style) + 6 +
           notesHeight(legend, width, style);
}

void paintLegendIn(QPainter& p, const Legend& legend, const QRectF& box, const LegendStyle& style)
{
    const double line = lineOf(style), swatch = swatchOf(style);
    p.save();
    QFont font = p.font();
    font.setPixelSize(int(style.fontPx));
    p.setFont(font);
    double y = box.top();
    QFont bold = font;
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(style.text);
    const double title = wrappedHeight(legend.title, box.width(), bold, style);
    p.drawText(QRectF(box.left(), y, box.width(), title),
               Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, legend.title);
    p.setFont(font);
    y += title + line * 0.4;
    if (legend.gradient && !legend.entries.empty()) {
        // Stops but the last (the overflow colour) make a continuous bar.
        const size_t stops = legend.entries.size() - 1;
        // The overflow colour's swatch and label ("over HBM") keep their room beside the bar.
        const double overWidth =
            10 + swatch + 4 + p.fontMetrics().horizontalAdvance(legend.entries.back().label) + 2;
        const double barWidth = std::min(box.width() * 0.75, box.width() - overWidth);
        QLinearGradient gradient(box.left(), 0, box.left() + barWidth, 0);
        for (size_t i = 0; i < stops; ++i)
            gradient.setColorAt(double(i) / std::max<size_t>(1, stops - 1),
                                legend.entries[i].color);
        p.fillRect(QRectF(box.left(), y, barWidth, swatch), gradient);
        // Labels that would run into the one before are left out (a narrow dock); the end
        // labels keep inside the bar's ends, where centred the first would be cut.
        double taken = box.left() - 1e9;
        for (size_t i = 0; i < stops; ++i) {
            const double x = box.left() + barWidth * double(i) / std::max<size_t>(1, stops - 1);
            const bool first = i == 0, last = i + 1 == stops && stops > 1;
            const double width = p.fontMetrics().horizontalAdvance(legend.entries[i].label);
            const double left = first ? x : last ? x - width : x - width / 2;
            const bool fitsAfter = left >= taken + line / 2;
            const bool leavesRoomForLast =
                last || stops < 2 ||
                left + width + line / 2 <=
                    box.left() + barWidth -
                        p.fontMetrics().horizontalAdvance(legend.entries[stops - 1].label);
            if (!first && !(fitsAfter && leavesRoomForLast))
                continue;
            p.drawText(QRectF(left, y + swatch, width + 1, line), Qt::AlignLeft | Qt::AlignVCenter,
                       legend.entries[i].label);
            taken = left + width;
        }
        const QRectF over(box.left() + barWidth + 10, y, swatch, swatch);
        p.fillRect(over, legend.entries.back().color);
        p.drawText(QRectF(over.right() + 4, y - 3, box.right() - over.right(), line),
                   Qt::AlignLeft | Qt::AlignVCenter, legend.entries.back().label);
    } else {
        const int columns = columnsFor(legend, box.width(), style);
        const double columnWidth = box.width() / columns;
        for (size_t i = 0; i < legend.entries.size(); ++i) {
            const double x = box.left() + columnWidth * double(int(i) % columns);
            const double ey = y + line * double(int(i) / columns);
            p.fillRect(QRectF(x, ey + (line - swatch) / 2, swatch, swatch),
                       legend.entries[i].color);
            p.drawText(QRectF(x + swatch + 4, ey, columnWidth - swatch - 6, line),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       p.fontMetrics().elidedText(legend.entries[i].label, Qt::ElideRight,
                                                  int(columnWidth - swatch - 6)));
        }
    }
    y += entriesHeight(legend, box.width(), style) + 6;
    for (const QString& note : legend.notes) {
        p.setPen(note.contains(QLatin1String("crosses")) ? style.crosses : style.inside);
        const double h = wrappedHeight(note, box.width(), font, style);
        p.drawText(QRectF(box.left(), y, box.width(), h),
                   Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, note);
        y += h;
    }
    p.restore();
}

bool paintLegend(QPainter& p, const Legend& legend, const QRectF& area, const LegendStyle& style)
{
    const double width = std::min(style.fontPx * 52, area.width() * 0.5);
    const double height = legendHeight(legend, width - 2 * kPad, style) + 2 * kPad;
    if (width < style.fontPx * 16 || height > area.height() * 0.6)
        return false;
    const QRectF box(area.left() + kPad, area.bottom() - height - kPad, width, height);
    p.save();
    p.setPen(QColor(0x3d, 0x44, 0x4e));
    p.setBrush(QColor(0x1e, 0x22, 0x28, 235));
    p.drawRect(box);
    p.restore();
    paintLegendIn(p, legend, box.adjusted(kPad, kPad, -kPad, -kPad), style);
    return true;
}

LegendWidget::LegendWidget(QWidget* parent)
    : QWidget(parent)
{
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void LegendWidget::setLegend(Legend legend)
{
    // Most edits (a rate) leave the legend as it was: measuring its text again cost a part of
    // each edit.
    if (legend == m_legend)
        return;
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
    return int(legendHeight(m_legend, width - 2 * kPad, LegendStyle::of(palette())) + 2 * kPad);
}

void LegendWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintLegendIn(p, m_legend, QRectF(rect()).adjusted(kPad, kPad, -kPad, -kPad),
                  LegendStyle::of(palette()));
}

void LegendWidget::resizeEvent(QResizeEvent* event)
{
    setMinimumHeight(heightForWidth(width()));
    QWidget::resizeEvent(event);
}

void LegendWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        update();
    QWidget::changeEvent(event);
}
