#include "profilebreakdown.h"

#include <QPaintEvent>
#include <QPainter>
#include <algorithm>

#include "text.h"

namespace {

constexpr int kMargin = 8;
constexpr int kGap = 6;

QString timeText(double seconds)
{
    return QString::fromStdString(cs::inStepTimeText(seconds));
}

// The predicted bar: the part's colour, paler, so that the pair reads as one part.
QColor predictedColor(const QColor& measured, const QColor& background)
{
    const QColor b = background.toRgb();
    const QColor m = measured.toRgb();
    return QColor::fromRgbF((m.redF() + b.redF()) / 2, (m.greenF() + b.greenF()) / 2,
                            (m.blueF() + b.blueF()) / 2);
}

} // namespace

ProfileBreakdown::ProfileBreakdown(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("profileBreakdown"));
}

void ProfileBreakdown::setBars(std::vector<ProfileBar> bars, const QString& title,
                               const QString& summary)
{
    m_bars = std::move(bars);
    m_title = title;
    m_summary = summary;
    updateGeometry();
    update();
}

int ProfileBreakdown::rowHeight() const
{
    return 2 * fontMetrics().height() + kGap;
}

QSize ProfileBreakdown::sizeHint() const
{
    const int lines = 4 + int(m_bars.size()) * 2;
    return {420, kMargin * 2 + lines * fontMetrics().height() + int(m_bars.size()) * kGap};
}

void ProfileBreakdown::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    p.fillRect(rect(), pal.base());
    const QFontMetrics fm = fontMetrics();
    QRect area = rect().adjusted(kMargin, kMargin, -kMargin, -kMargin);
    p.setPen(pal.text().color());
    if (m_bars.empty()) {
        p.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                   tr("No measured profile. File > Open Measured Profile... reads PyTorch "
                      "profiler traces (one per rank) and shows them beside the prediction."));
        return;
    }
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(area.left(), area.top() + fm.ascent(),
               fm.elidedText(m_title, Qt::ElideRight, area.width()));
    p.setFont(font());
    int y = area.top() + fm.height() + kGap;

    int labelWidth = 0;
    for (const ProfileBar& b : m_bars)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(b.label));
    labelWidth = std::min(labelWidth + kGap, area.width() / 3);
    const int valueWidth = fm.horizontalAdvance(QStringLiteral("predicted 1,234.5 ms")) + kGap;
    const int barLeft = area.left() + labelWidth;
    const int barWidth = std::max(10, area.width() - labelWidth - valueWidth);
    double largest = 0;
    for (const ProfileBar& b : m_bars)
        largest = std::max({largest, b.measuredS, b.predictedS});
    const auto length = [&](double s) {
        return largest > 0 ? std::max(1, int(s / largest * barWidth)) : 1;
    };
    const int h = fm.height();
    const QColor muted = pal.placeholderText().color();
    for (const ProfileBar& b : m_bars) {
        p.setPen(pal.text().color());
        p.drawText(QRect(area.left(), y, labelWidth - kGap, 2 * h), Qt::AlignVCenter,
                   fm.elidedText(b.label, Qt::ElideRight, labelWidth - kGap));
        p.setPen(Qt::NoPen);
        p.setBrush(b.color);
        p.drawRect(QRect(barLeft, y + 1, length(b.measuredS), h - 2));
        p.setBrush(predictedColor(b.color, pal.base().color()));
        p.drawRect(QRect(barLeft, y + h + 1, length(b.predictedS), h - 2));
        const int valueLeft = barLeft + barWidth + kGap;
        p.setPen(pal.text().color());
        p.drawText(valueLeft, y + fm.ascent(), tr("measured %1").arg(timeText(b.measuredS)));
        p.setPen(muted);
        p.drawText(valueLeft, y + h + fm.ascent(), tr("predicted %1").arg(timeText(b.predictedS)));
        y += rowHeight();
    }
    p.setPen(pal.text().color());
    p.drawText(QRect(area.left(), y, area.width(), area.bottom() - y),
               Qt::AlignTop | Qt::TextWordWrap, m_summary);
}
