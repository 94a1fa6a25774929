#pragma once
// The size a dialog opens at: what its content wants, within the screen it opens on, so that a
// 1280 x 720 screen still shows its buttons.

#include <QSize>

class QWidget;

// `wanted`, at most 95 % of the available width and 90 % of the available height (the rest
// is the title bar and some desktop around it).
QSize dialogSizeWithin(QSize wanted, QSize available);

// Resizes `dialog` to dialogSizeWithin(wanted, the available area of its screen).
void resizeWithinScreen(QWidget* dialog, QSize wanted);
