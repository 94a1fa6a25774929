#pragma once
// Drawing a topology scene into an image, as the view and --render do, for tests that read
// its pixels.

#include <QImage>
#include <QPainter>
#include <QSize>

#include "description.h"
#include "topologyscene.h"

// The size of the images tests draw scenes into.
inline constexpr QSize kRenderSize(1600, 1000);

// The scene with the view applied, painted into an image of `size` (the overlay left out).
inline QImage renderScene(TopologyScene& scene, const cs::ViewState& view, QSize size)
{
    scene.applyView(view);
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    scene.renderer().paint(painter, scene.transform(view, QSizeF(size)));
    return image;
}
