#pragma once
// Helpers for GUI tests.

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QString>
#include <QThread>
#include <functional>

#include <catch2/catch.hpp>

#include "documentio.h"

inline QString sampleFile(const char* name)
{
    return QStringLiteral(CS_SAMPLES_DIR "/") + QLatin1String(name);
}

// A sample session, loaded as the application loads it; the test stops where it does not load.
inline cs::Session sampleSession(const char* name)
{
    QString problems;
    auto session = loadSessionFromFile(sampleFile(name), &problems);
    INFO(problems.toStdString());
    REQUIRE(session);
    return *session;
}

// Runs the event loop until `done` holds, for what a worker thread delivers; false when it
// still does not after `timeoutMs` (a hang, not a speed limit).
inline bool waitUntil(const std::function<bool()>& done, int timeoutMs = 120000)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(2);
    }
    return true;
}
