#include "dialogsize.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>
#include <algorithm>

QSize dialogSizeWithin(QSize wanted, QSize available)
{
    if (available.isEmpty())
        return wanted;
    return {std::min(wanted.width(), int(available.width() * 0.95)),
            std::min(wanted.height(), int(available.height() * 0.9))};
}

void resizeWithinScreen(QWidget* dialog, QSize wanted)
{
    const QWidget* anchor = dialog->parentWidget() ? dialog->parentWidget() : dialog;
    const QScreen* screen = anchor->screen() ? anchor->screen() : QGuiApplication::primaryScreen();
    dialog->resize(dialogSizeWithin(wanted, screen ? screen->availableGeometry().size() : QSize()));
}
