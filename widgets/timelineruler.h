#pragma once
// The timeline's time ruler: ticks at 1, 2 or 5 times a power of ten about 90 px apart, each
// named right of its tick. A name that would run past the ruler's end ends at it instead, or
// is left out where it would then run into the name before: no name is ever cut.

#include <QFontMetricsF>
#include <QRectF>
#include <QString>
#include <vector>

#include "timelinemapping.h"

namespace timelineruler {

struct Tick {
    double timeS = 0;
    int x = 0;
    QString text; // empty where the name does not fit
    QRectF box;   // what the name covers, in the ruler of height `height`
};

// The ticks of the visible range, named where they fit in [0, right) pixels.
std::vector<Tick> ticks(const TimelineMapping& mapping, const QFontMetricsF& metrics, double right,
                        double height);

} // namespace timelineruler
