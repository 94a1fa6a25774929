#pragma once
// Small drawing helpers the topology renderer's files share (topologyrenderer.cpp: frames,
// layers and labels; topologystatic.cpp: the static layer).

#include <QColor>
#include <QFont>
#include <QLineF>
#include <QPainter>
#include <QRect>
#include <QStaticText>
#include <algorithm>
#include <cmath>
#include <vector>

#include "topology.h"

namespace topologydrawing {

inline QColor dimmedOver(QRgb color, const QColor& bg)
{
    const QColor c(color);
    // A quarter of the colour over the background: still readable, clearly not selected.
    return QColor((c.red() + 3 * bg.red()) / 4, (c.green() + 3 * bg.green()) / 4,
                  (c.blue() + 3 * bg.blue()) / 4);
}

inline int tierOf(cs::LinkClass cls)
{
    return cls == cs::LinkClass::ScaleOut1 ? 1 : cls == cs::LinkClass::ScaleOut2 ? 2 : 3;
}

inline QRect cellOnScreen(const QRectF& s)
{
    const int x0 = int(std::lround(s.left())), y0 = int(std::lround(s.top()));
    const int x1 = std::max(x0 + 1, int(std::lround(s.right())));
    const int y1 = std::max(y0 + 1, int(std::lround(s.bottom())));
    return {x0, y0, x1 - x0, y1 - y0};
}

// A wide line as parallel one-pixel lines: far cheaper than a wide pen in the raster engine.
inline void appendThickLine(std::vector<QLineF>& out, const QLineF& line, int width)
{
    const QPointF d = line.p2() - line.p1();
    const QPointF step = std::abs(d.x()) > std::abs(d.y()) ? QPointF(0, 1) : QPointF(1, 0);
    for (int i = 0; i < width; ++i)
        out.push_back(line.translated(step * (i - (width - 1) / 2.0)));
}

inline void drawThickLine(QPainter& p, const QLineF& line, int width)
{
    std::vector<QLineF> lines;
    appendThickLine(lines, line, width);
    p.drawLines(lines.data(), int(lines.size()));
}

inline bool lineVisible(const QLineF& line, const QRectF& visible)
{
    return QRectF(line.p1(), line.p2()).normalized().adjusted(-1, -1, 1, 1).intersects(visible);
}

// Where a label's glyphs may reach: its text box and a little antialiasing around it.
inline QRectF labelInk(QPointF position, const QStaticText& text)
{
    return QRectF(position, text.size()).adjusted(-2, -2, 2, 2);
}

inline QFont pixelFont(double px, bool bold = false)
{
    QFont f;
    f.setPixelSize(std::max(7, int(px)));
    f.setBold(bold);
    return f;
}

} // namespace topologydrawing
