#pragma once
// What the timeline's files share (timelineview.cpp draws, timelineinteraction.cpp answers the
// pointer and the keys): its header's measures and how times and names read.

#include <QFont>
#include <QString>
#include <string_view>

#include "text.h"

namespace timelinestyle {

inline constexpr int kTickHeight = 18;   // the time ruler
inline constexpr int kMarkerHeight = 16; // under it: the cursor's time and a measured range
inline constexpr int kHeaderHeight = kTickHeight + kMarkerHeight;
inline constexpr int kDragThresholdPx = 3;

// A time within the step, in the units every view uses ("8.2 ms").
inline QString inStep(double s)
{
    return QString::fromStdString(cs::inStepTimeText(s));
}

// The ruler's and the measured lanes' labels.
inline QFont labelFont(QFont font)
{
    font.setPointSizeF(font.pointSizeF() * 0.85);
    return font;
}

inline QString words(std::string_view text)
{
    return QString::fromUtf8(text.data(), int(text.size()));
}

} // namespace timelinestyle
