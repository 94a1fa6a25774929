#pragma once
// Whether a widget can be seen. A dock behind another dock's tab stays a visible widget, moved
// out of its window, so isVisible() alone does not tell: views that update only what is on
// screen ask this, and catch up when QDockWidget::visibilityChanged says they are shown.

#include <QRect>
#include <QWidget>

inline bool onScreen(const QWidget* widget)
{
    const QWidget* window = widget->window();
    return widget->isVisibleTo(window) &&
           QRect(widget->mapTo(window, QPoint(0, 0)), widget->size()).intersects(window->rect());
}
