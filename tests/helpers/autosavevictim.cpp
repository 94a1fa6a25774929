// Opens a file, changes it, and waits to be killed once the autosave has written the change:
// the process that `kill -9` takes away in the recovery test.
// Usage: autosave-victim RECOVERY_DIR FILE LAYERS

#include <QApplication>
#include <QFile>
#include <QTimer>
#include <QUndoStack>
#include <cstdio>

#include "autosave.h"
#include "document.h"
#include "documentio.h"
#include "editcommands.h"

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc != 4)
        return 2;
    const QString recoveryDir = QString::fromLocal8Bit(argv[1]);
    const QString file = QString::fromLocal8Bit(argv[2]);
    QString problems;
    auto session = loadSessionFromFile(file, &problems);
    if (!session) {
        std::fprintf(stderr, "%s\n", qPrintable(problems));
        return 1;
    }
    Document doc;
    doc.setSession(std::move(*session), file);
    Autosaver autosaver(&doc, recoveryDir, 100);
    QObject::connect(&autosaver, &Autosaver::writeFailed, [](const QString& reason) {
        std::fprintf(stderr, "autosave failed: %s\n", qPrintable(reason));
    });
    const QString recovery = autosaver.recoveryPath();
    cs::RunDesc run = doc.run();
    run.model.layers = std::atoi(argv[3]);
    doc.undoStack()->push(new EditModelCommand(&doc, doc.cluster(), run, "Layers"));

    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (QFile::exists(recovery)) {
            std::printf("autosaved\n");
            std::fflush(stdout);
            poll.stop();
        }
    });
    poll.start(20);
    return app.exec(); // until killed
}
