#include "glyphicons.h"

#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QPixmap>

namespace {

constexpr int kSize = 64;

QPolygonF triangle(double left, double right, bool pointsRight)
{
    const double tip = pointsRight ? right : left, base = pointsRight ? left : right;
    return QPolygonF{QPointF(base, 14), QPointF(tip, 32), QPointF(base, 50)};
}

void draw(QPainter& p, Glyph glyph)
{
    switch (glyph) {
    case Glyph::ToStart:
        p.drawRect(QRectF(12, 14, 6, 36));
        p.drawPolygon(triangle(20, 50, false));
        break;
    case Glyph::StepBack:
        p.drawPolygon(triangle(8, 32, false));
        p.drawPolygon(triangle(32, 56, false));
        break;
    case Glyph::Play:
        p.drawPolygon(triangle(18, 50, true));
        break;
    case Glyph::Pause:
        p.drawRect(QRectF(17, 14, 10, 36));
        p.drawRect(QRectF(37, 14, 10, 36));
        break;
    case Glyph::StepForward:
        p.drawPolygon(triangle(8, 32, true));
        p.drawPolygon(triangle(32, 56, true));
        break;
    case Glyph::Loop: {
        QPen pen(p.brush().color(), 6, Qt::SolidLine, Qt::FlatCap);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        QPainterPath arc;
        arc.arcMoveTo(QRectF(12, 12, 40, 40), 80);
        arc.arcTo(QRectF(12, 12, 40, 40), 80, 290);
        p.drawPath(arc);
        p.setPen(Qt::NoPen);
        p.setBrush(pen.color());
        p.drawPolygon(QPolygonF{QPointF(30, 4), QPointF(44, 13), QPointF(30, 22)});
        break;
    }
    }
}

QPixmap pixmapOf(Glyph glyph, const QColor& ink)
{
    QPixmap pixmap(kSize, kSize);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(ink);
    draw(p, glyph);
    return pixmap;
}

} // namespace

QIcon glyphIcon(Glyph glyph, const QPalette& palette)
{
    QIcon icon;
    icon.addPixmap(pixmapOf(glyph, palette.color(QPalette::Active, QPalette::ButtonText)),
                   QIcon::Normal);
    icon.addPixmap(pixmapOf(glyph, palette.color(QPalette::Disabled, QPalette::ButtonText)),
                   QIcon::Disabled);
    return icon;
}
