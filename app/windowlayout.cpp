#include "windowlayout.h"

#include <QDockWidget>
#include <QLayout>
#include <QMainWindow>
#include <QScrollArea>
#include <QTabBar>
#include <QToolBar>
#include <algorithm>
#include <span>

namespace {

struct DockPlace {
    const char* name;
    Qt::DockWidgetArea area;
    const char* tabbedWith; // nullptr: a dock of its own in the area
};

// In the order they are placed; a tabbed dock follows the one it shares a place with, and the
// first of each tab group is the one raised. Tall windows keep the legend above the charts;
// short ones (below kTallFrom) put it with the bookmarks, so that the charts keep the height
// their axes need.
constexpr int kTallFrom = 900;
constexpr int kWideFrom = 1500;
constexpr DockPlace kTallDocks[] = {
    {"properties", Qt::LeftDockWidgetArea, nullptr},
    {"bookmarks", Qt::LeftDockWidgetArea, nullptr},
    {"legend", Qt::RightDockWidgetArea, nullptr},
    {"inspector", Qt::RightDockWidgetArea, "legend"},
    {"breakdownDock", Qt::RightDockWidgetArea, nullptr},
    {"scalingDock", Qt::RightDockWidgetArea, "breakdownDock"},
    {"compareDock", Qt::RightDockWidgetArea, "scalingDock"},
    {"linksDock", Qt::RightDockWidgetArea, "compareDock"},
    {"goodputDock", Qt::RightDockWidgetArea, "linksDock"},
    {"jobsDock", Qt::RightDockWidgetArea, "goodputDock"},
    {"timelineDock", Qt::BottomDockWidgetArea, nullptr},
};
constexpr DockPlace kShortDocks[] = {
    {"properties", Qt::LeftDockWidgetArea, nullptr},
    {"legend", Qt::LeftDockWidgetArea, nullptr},
    {"inspector", Qt::LeftDockWidgetArea, "legend"},
    {"bookmarks", Qt::LeftDockWidgetArea, "inspector"},
    {"breakdownDock", Qt::RightDockWidgetArea, nullptr},
    {"scalingDock", Qt::RightDockWidgetArea, "breakdownDock"},
    {"compareDock", Qt::RightDockWidgetArea, "scalingDock"},
    {"linksDock", Qt::RightDockWidgetArea, "compareDock"},
    {"goodputDock", Qt::RightDockWidgetArea, "linksDock"},
    {"jobsDock", Qt::RightDockWidgetArea, "goodputDock"},
    {"timelineDock", Qt::BottomDockWidgetArea, nullptr},
};

QDockWidget* dockNamed(QMainWindow* window, const char* name)
{
    return name ? window->findChild<QDockWidget*>(QString::fromLatin1(name)) : nullptr;
}

int share(int total, double fraction, int least, int most)
{
    return std::clamp(int(total * fraction), least, most);
}

// The height a dock's content asks for at a width, with its title and tab bar.
int wantedHeight(const QDockWidget* dock, int width)
{
    const QWidget* content = dock->widget();
    if (const auto* scroll = qobject_cast<const QScrollArea*>(content); scroll && scroll->widget())
        content = scroll->widget();
    const int body = content->hasHeightForWidth() ? content->heightForWidth(width - 24)
                                                  : content->sizeHint().height();
    return body + 56;
}

} // namespace

QSize defaultWindowSize(const QSize& available)
{
    // Small screens need all of it; large ones leave some desktop around the window.
    const double fraction = available.width() < 1600 ? 0.96 : 0.86;
    return {std::max(960, int(available.width() * fraction)),
            std::max(600, int(available.height() * (available.height() < 1000 ? 0.94 : 0.88)))};
}

QWidget* scrolledVertically(QWidget* content, QWidget* parent)
{
    auto* scroll = new QScrollArea(parent);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return scroll;
}

void placeDocks(QMainWindow* window, QSize size)
{
    const auto dock = [window](const char* name) { return dockNamed(window, name); };
    const bool tall = size.height() >= kTallFrom;
    // The left column runs the window's height, the timeline beside it: on a short screen the
    // Properties, the legend and the inspector need every line of it.
    window->setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    for (const DockPlace& place : tall ? std::span(kTallDocks) : std::span(kShortDocks)) {
        QDockWidget* d = dock(place.name);
        if (!d)
            continue;
        QDockWidget* with = dock(place.tabbedWith);
        const bool placed = !d->isFloating() && window->dockWidgetArea(d) == place.area &&
                            (!with || window->tabifiedDockWidgets(with).contains(d));
        // Moving a dock that is in place would reshuffle its neighbours for nothing.
        if (!placed) {
            d->setFloating(false);
            if (with)
                window->tabifyDockWidget(with, d);
            else
                window->addDockWidget(place.area, d);
        }
        d->show();
    }
    for (const char* first : {"legend", "breakdownDock"})
        if (QDockWidget* d = dock(first))
            d->raise();
    // Tabs of docks keep their whole names: more than fit scroll rather than shrink to "Co...".
    for (QTabBar* tabs : window->findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
        tabs->setElideMode(Qt::ElideNone);
        tabs->setUsesScrollButtons(true);
    }
    // A narrow window gives the playback bar a row of its own rather than clip its end.
    for (QToolBar* bar : window->findChildren<QToolBar*>(QString(), Qt::FindDirectChildrenOnly)) {
        bar->show();
        if (bar->objectName() == QLatin1String("playbackBar")) {
            window->removeToolBarBreak(bar);
            if (size.width() < kWideFrom)
                window->insertToolBarBreak(bar);
        }
    }
}

void applyDefaultLayout(QMainWindow* window)
{
    const auto dock = [window](const char* name) { return dockNamed(window, name); };
    const QSize size = window->size();
    const bool tall = size.height() >= kTallFrom;
    placeDocks(window, size);
    // Docks moved one by one may pass through arrangements that ask for more room than the
    // window has, and the window grows to give it; the last one fits.
    window->layout()->activate();
    window->resize(size);
    // Wide enough for a cluster's name in its field ("Fairwater GB200 NVL72, 128 racks").
    const int left = share(size.width(), 0.2, 290, 380);
    const int right = share(size.width(), 0.3, 440, 720);
    const int timeline = share(size.height(), 0.27, 170, 420);
    // Sizes along a column are shares of what the column holds, not of the window. The legend
    // takes a third at least: the first document may still be loading, its legend empty.
    const int column = size.height() - timeline - 80;
    const int mostLegend = column * 45 / 100;
    const int leastLegend = std::min(std::max(150, column / 3), mostLegend);
    const int legend =
        dock("legend") ? std::clamp(wantedHeight(dock("legend"), right), leastLegend, mostLegend)
                       : 0;
    // Short windows: the legend and the inspector share this place, and need its lines.
    const int bookmarks = share(size.height() - 80, tall ? 0.24 : 0.46, 110, 340);
    const auto both = [&](const char* a, const char* b) {
        return dock(a) && dock(b) ? QList<QDockWidget*>{dock(a), dock(b)} : QList<QDockWidget*>{};
    };
    if (QDockWidget* d = dock("properties"))
        window->resizeDocks({d}, {left}, Qt::Horizontal);
    if (QDockWidget* d = dock("breakdownDock"))
        window->resizeDocks({d}, {right}, Qt::Horizontal);
    if (QDockWidget* d = dock("timelineDock"))
        window->resizeDocks({d}, {timeline}, Qt::Vertical);
    if (const auto docks = both("legend", "breakdownDock"); tall && !docks.isEmpty())
        window->resizeDocks(docks, {legend, column - legend}, Qt::Vertical);
    if (const auto docks = both("properties", tall ? "bookmarks" : "legend"); !docks.isEmpty())
        window->resizeDocks(docks, {size.height() - 80 - bookmarks, bookmarks}, Qt::Vertical);
}
