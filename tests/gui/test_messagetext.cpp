// A dialog's message stays bounded whatever it quotes: lines cut, lines counted past the limit.

#include <catch2/catch.hpp>

#include <QApplication>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>
#include <fstream>

#include "guitestutil.h"
#include "mainwindow.h"
#include "messagetext.h"

TEST_CASE("a message is bounded in lines and in characters a line", "[messagetext]")
{
    struct Case {
        QString text;
        QString shown;
    };
    const Case c = GENERATE(values<Case>({
        {QStringLiteral("four"), QStringLiteral("four")},
        {QStringLiteral("a\nb\nc"), QStringLiteral("a\nb\nc")},
        {QStringLiteral("a\nb\nc\nd\ne"), QStringLiteral("a\nb\nc\nand 2 more lines")},
        {QString(5'000'000, QLatin1Char('9')), QStringLiteral("9999...")},
        {QStringLiteral("1\n2\n") + QString(10, QLatin1Char('x')), QStringLiteral("1\n2\nxxxx...")},
    }));
    CHECK(boundedMessage(c.text, 3, 4).toStdString() == c.shown.toStdString());
}

TEST_CASE("one line left out is said in the singular", "[messagetext]")
{
    CHECK(boundedMessage(QStringLiteral("a\nb"), 1) == QStringLiteral("a\nand 1 more line"));
}

TEST_CASE("the window's problem dialog is bounded whatever the problems", "[messagetext]")
{
    QTemporaryDir dir;
    // A value of 5 MB, and 20,000 problems (each key given twice).
    const QString file = dir.filePath(QStringLiteral("flood.run.json"));
    {
        std::ofstream out(file.toStdString());
        out << "{\"format\": \"clusterscope/run@1\", \"name\": " << std::string(5'000'000, '7');
        for (int i = 0; i < 20'000; ++i)
            out << ", \"k" << i % 10'000 << "\": 1";
        out << "}";
    }
    MainWindow window(dir.filePath(QStringLiteral("recovery")));
    window.setQuiet(true);
    REQUIRE(window.openFile(sampleFile("fairwater-gb200-128.csession")));
    window.setQuiet(false);
    QString informative, detailed;
    // The box shows once the file is read (on a worker): looked for until it does.
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            informative = box->informativeText();
            detailed = box->detailedText();
            box->accept();
        }
    });
    poll.start(10);
    CHECK_FALSE(window.compareWith(file));
    REQUIRE_FALSE(informative.isEmpty());
    CHECK(informative.count(QLatin1Char('\n')) < 10);
    CHECK(informative.size() < 3'000);
    CHECK(detailed.count(QLatin1Char('\n')) <= 200);
    CHECK(detailed.size() < 250'000);
}
