#pragma once
// A window on a sample at a size, shown, its default dock layout (applied after the show)
// settled and its jobs evaluated (off the GUI thread: the status bar's figure then grows by the
// step alone): what the tests of text cut at a window size look at.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QSize>
#include <QTemporaryDir>
#include <QThread>

#include "document.h"
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
        QElapsedTimer waited;
        waited.start();
        const Document& document = *window.document();
        while (document.hasJobs() && !document.jobsResult() && waited.elapsed() < 60000) {
            QApplication::processEvents();
            QThread::msleep(5);
        }
        REQUIRE((!document.hasJobs() || document.jobsResult()));
        for (int i = 0; i < 3; ++i) // the layout, then the docks' own resizes
            QApplication::processEvents();
    }
};
