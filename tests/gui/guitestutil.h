#pragma once
// Helpers for GUI tests.

#include <QApplication>
#include <QByteArray>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFile>
#include <QKeyEvent>
#include <QString>
#include <QThread>
#include <QWidget>
#include <functional>
#include <memory>

#include <catch2/catch.hpp>

#include "document.h"
#include "documentio.h"
#include "text.h"

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

// A sample opened as a document, with its file's path.
inline std::unique_ptr<Document> openSample(const char* name)
{
    auto doc = std::make_unique<Document>();
    doc->setSession(sampleSession(name), sampleFile(name));
    return doc;
}

// What the file holds; empty when it cannot be read.
inline QByteArray bytesOf(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A step time as the window writes it.
inline QString stepText(double s)
{
    return QString::fromStdString(cs::stepTimeText(s));
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

// Selects what the editor shows and types the text, with no Enter and no focus change: a value
// typed but not confirmed.
inline void typeInto(QWidget* editor, const QString& text)
{
    QKeyEvent selectAll(QEvent::KeyPress, Qt::Key_A, Qt::ControlModifier);
    QApplication::sendEvent(editor, &selectAll);
    for (const QChar c : text) {
        QKeyEvent press(QEvent::KeyPress, 0, Qt::NoModifier, QString(c));
        QApplication::sendEvent(editor, &press);
    }
}
