#include "timelineruler.h"

#include <algorithm>
#include <cmath>

#include "text.h"

namespace {

constexpr double kTickSpacingPx = 90;
constexpr double kNameGapPx = 3; // between a tick and its name, and two names
constexpr double kEndGapPx = 2;  // between the last name and the ruler's end

// 1, 2 or 5 times a power of ten, at least `raw`.
double niceStep(double raw)
{
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw)
            return m * p;
    return 10 * p;
}

// A time within the step, in milliseconds, with as many decimals as the tick spacing needs.
QString tickText(double t, double resolution)
{
    const double ms = t * 1e3;
    const int decimals =
        resolution >= 1e-3 ? 0 : std::min(3, int(std::ceil(-std::log10(resolution * 1e3))));
    if (decimals == 0)
        return QString::fromStdString(cs::withThousands(int64_t(std::llround(ms)))) +
               QStringLiteral(" ms");
    return QStringLiteral("%1 ms").arg(ms, 0, 'f', decimals);
}

} // namespace

namespace timelineruler {

std::vector<Tick> ticks(const TimelineMapping& mapping, const QFontMetricsF& metrics, double right,
                        double height)
{
    const double step = niceStep(kTickSpacingPx * mapping.secondsPerPixel());
    std::vector<Tick> out;
    double previousEnd = -1e9; // the right end of the last name written
    for (double t = std::ceil(mapping.startS / step) * step; t <= mapping.endS() + 1e-12;
         t += step) {
        Tick tick{t, int(std::lround(mapping.xOf(t))), tickText(t, step), {}};
        const double width = metrics.horizontalAdvance(tick.text);
        double left = tick.x + kNameGapPx;
        if (left + width > right - kEndGapPx)
            left = right - kEndGapPx - width;
        if (left < previousEnd + kNameGapPx)
            tick.text.clear();
        else
            tick.box = QRectF(left, 0, width, height);
        if (!tick.text.isEmpty())
            previousEnd = tick.box.right();
        out.push_back(std::move(tick));
    }
    return out;
}

} // namespace timelineruler
