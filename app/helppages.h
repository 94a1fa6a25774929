#pragma once
// Help > Keyboard Shortcuts (F1) and Help > First Steps. The shortcuts sheet is read from the
// window's actions, so that it lists every shortcut the window has and no other.

#include <QString>
#include <cstddef>

class QDialog;
class QWidget;

enum class HelpPage { Shortcuts, FirstSteps };
inline constexpr size_t kHelpPages = 2;

// Every action of the window with a shortcut, then the keys and gestures of the views.
QString shortcutsHtml(const QWidget* window);
QString firstStepsHtml();
// A non-modal dialog showing the page.
QDialog* helpDialog(HelpPage page, QWidget* window);
