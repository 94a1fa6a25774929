#pragma once
// A window on a sample at a size, shown, its default dock layout (applied after the show)
// settled: what the tests of text cut at a window size look at.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QSize>
#include <QTemporaryDir>

#include "guitestutil.h"
#include "mainwindow.h"

struct ShownWindow {
    QTemporaryDir dir;
    MainWindow window{dir.path()};
    ShownWindow(const char* sample, QSize size)
        : ShownWindow(sampleFile(sample), size)
    {
    }
    ShownWindow(const QString& path, QSize size)
    {
        window.setQuiet(true);
        REQUIRE(window.openFile(path));
        window.resize(size);
        window.show();
        for (int i = 0; i < 3; ++i) // the layout, then the docks' own resizes
            QApplication::processEvents();
    }
};
