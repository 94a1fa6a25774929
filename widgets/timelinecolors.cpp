#include "timelinecolors.h"

#include "activitycolors.h"

namespace timelinecolors {

QColor blend(const QColor& a, const QColor& b, double towardsB)
{
    auto mix = [&](double x, double y) { return float(x + (y - x) * towardsB); };
    return QColor::fromRgbF(mix(a.redF(), b.redF()), mix(a.greenF(), b.greenF()),
                            mix(a.blueF(), b.blueF()));
}

Colors colorsFor(const QPalette& palette)
{
    Colors c;
    c.plot = palette.color(QPalette::Base);
    c.text = palette.color(QPalette::Text);
    c.labels = blend(palette.color(QPalette::Window), c.text, 0.04);
    c.grid = blend(c.plot, c.text, 0.16);
    for (int k = 0; k < kStyles; ++k) {
        cs::Event representative;
        representative.kind = k < kEventKinds ? cs::EventKind(k) : cs::EventKind::Comm;
        representative.dim = k < kEventKinds ? cs::Dim::TP : cs::Dim(k - kEventKinds);
        // A waiting stage is a shade of the background, whatever the theme.
        const QColor base = representative.kind == cs::EventKind::Bubble
                                ? blend(c.plot, c.text, 0.22)
                                : eventColor(representative);
        c.boxes[size_t(k * 4)] = base;
        c.boxes[size_t(k * 4 + 1)] = blend(base, c.plot, 0.55);
        c.boxes[size_t(k * 4 + 2)] = blend(base, c.plot, 0.75);
        c.boxes[size_t(k * 4 + 3)] = blend(base, c.plot, 0.85);
    }
    return c;
}

} // namespace timelinecolors
