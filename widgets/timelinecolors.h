#pragma once
// The step timeline's colours, shared by its predicted and measured lanes: they follow the
// widget's palette (light or dark theme).

#include <QColor>
#include <QPalette>
#include <array>

#include "costmodel.h"

namespace timelinecolors {

// Box styles: one per kind of event, and one per dimension for communication.
inline constexpr int kEventKinds = int(cs::enumValues<cs::EventKind>().size());
inline constexpr int kStyles = kEventKinds + int(cs::kDimCount);

QColor blend(const QColor& a, const QColor& b, double towardsB);

// Each style in four shades (index style * 4 + shade): as it is, hidden communication, dimmed,
// and hidden and dimmed.
struct Colors {
    QColor plot;
    QColor labels;
    QColor grid;
    QColor text;
    std::array<QColor, kStyles * 4> boxes;
};

Colors colorsFor(const QPalette& palette);

} // namespace timelinecolors
