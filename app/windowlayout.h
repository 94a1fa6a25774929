#pragma once
// Where the window and its docks start, on any screen from 1280x720 to 4K: the first window
// fits the screen, and the docks get shares of it that keep every chart readable. View > Reset
// Layout puts them back. A new dock joins by a row in the table of windowlayout.cpp.

#include <QSize>

class QMainWindow;
class QWidget;

// The first window's size on a screen whose available area is `available`.
QSize defaultWindowSize(const QSize& available);

// Docks back to their areas and tabs, shown, docked, and sized for the window's size. Docks
// the table does not name are left where they are.
void applyDefaultLayout(QMainWindow* window);
// The first half alone: docks to their areas and tabs for a window of `size`. Done before the
// window is first sized, so that no arrangement of the docks asks for more than the screen.
void placeDocks(QMainWindow* window, QSize size);

// `content` in a frameless area that scrolls it vertically when its dock is shorter than the
// content's least height: a dock's charts keep the height their axes need, and the window can
// still be as short as a 720p screen whatever arrangement its docks are in.
QWidget* scrolledVertically(QWidget* content, QWidget* parent);
