// clusterscope --render refuses, as usage errors (exit 2) before reading anything, what would
// lose a file or take minutes: an output that is its input, an image past the largest allowed.

#include <catch2/catch.hpp>

#include <QFile>
#include <QTemporaryDir>

#include "guitestutil.h"
#include "render.h"

TEST_CASE("render refuses to write over the session it draws, through a link too",
          "[render][datasafety]")
{
    QTemporaryDir dir;
    const QString session = dir.filePath(QStringLiteral("s.csession"));
    REQUIRE(QFile::copy(sampleFile("fairwater-gb200-128.csession"), session));
    const QByteArray before = bytesOf(session);
    const QString link = dir.filePath(QStringLiteral("link.png"));
    REQUIRE(QFile::link(session, link));
    for (const QString& output : {session, link}) {
        RenderRequest request;
        request.input = session;
        request.output = output;
        request.size = QSize(320, 200);
        CHECK(renderToPng(request) == 2);
        CHECK(bytesOf(session) == before);
    }
}

TEST_CASE("render refuses an image past the largest it draws and says the largest",
          "[render][limits]")
{
    QTemporaryDir dir;
    const QSize size = GENERATE(QSize(16384, 16384), QSize(kMaxRenderSide + 1, 10),
                                QSize(10, kMaxRenderSide + 1), QSize(8000, 8000));
    RenderRequest request;
    request.input = sampleFile("fairwater-gb200-128.csession");
    request.output = dir.filePath(QStringLiteral("big.png"));
    request.size = size;
    CHECK(renderToPng(request) == 2);
    CHECK_FALSE(QFile::exists(request.output));
}
