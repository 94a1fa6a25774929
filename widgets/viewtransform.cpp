// Between the hall's world coordinates and the screen: the view's transform, fitting and
// zooming, and the level of detail a scale calls for.

#include "topologylayout.h"

#include <algorithm>
#include <cmath>

namespace {
constexpr double kFitMargin = 0.97; // of the viewport the world fills when fitted
} // namespace

LevelOfDetail levelOfDetail(double pixelsPerGpu)
{
    LevelOfDetail lod;
    lod.rackLabels = pixelsPerGpu >= 2.5; // the aisle above a row is 3 units: 7.5 px of text
    lod.trayOutlines = pixelsPerGpu >= 6;
    lod.gpuLinks = pixelsPerGpu >= 14;
    lod.gpuLabels = pixelsPerGpu >= 28;
    lod.gpuCoordinates = pixelsPerGpu >= 64;
    lod.linkLabels = pixelsPerGpu >= 40;
    lod.switchLabels = pixelsPerGpu >= 20;
    return lod;
}

QPointF ViewTransform::toScreen(QPointF world) const
{
    return (world - center) * scale + QPointF(viewport.width() / 2, viewport.height() / 2);
}

QPointF ViewTransform::toWorld(QPointF screen) const
{
    return (screen - QPointF(viewport.width() / 2, viewport.height() / 2)) / scale + center;
}

QRectF ViewTransform::toScreen(const QRectF& world) const
{
    return {toScreen(world.topLeft()), world.size() * scale};
}

QRectF ViewTransform::visibleWorld() const
{
    return {toWorld(QPointF(0, 0)), viewport / scale};
}

ViewTransform ViewTransform::zoomedAt(QPointF anchor, double factor) const
{
    ViewTransform t = *this;
    const QPointF world = toWorld(anchor);
    t.scale = scale * factor;
    t.center = world - (anchor - QPointF(viewport.width() / 2, viewport.height() / 2)) / t.scale;
    return t;
}

double fitScale(const QRectF& world, QSizeF viewport)
{
    if (world.isEmpty() || viewport.isEmpty())
        return 1;
    // The names above the top switch row are drawn in pixels, not world units: room for them.
    constexpr double kLabelRoomPx = 60;
    const double height = std::max(viewport.height() / 2, viewport.height() - 2 * kLabelRoomPx);
    return kFitMargin * std::min(viewport.width() / world.width(), height / world.height());
}

ViewTransform viewTransformFor(const QRectF& world, QSizeF viewport, double zoom, QPointF center)
{
    return {fitScale(world, viewport) * zoom, center, viewport};
}
