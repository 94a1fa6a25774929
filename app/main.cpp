#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <cmath>
#include <cstdio>

#include "description.h"
#include "enumtext.h"
#include "mainwindow.h"
#include "render.h"
#include "text.h"

namespace {

bool parseSize(const QString& text, QSize* size)
{
    const QStringList parts = text.split(QLatin1Char('x'));
    if (parts.size() != 2)
        return false;
    bool okW = false, okH = false;
    const int w = parts[0].toInt(&okW), h = parts[1].toInt(&okH);
    if (!okW || !okH || w < 16 || h < 16 || w > 16384 || h > 16384)
        return false;
    *size = QSize(w, h);
    return true;
}

int usageError(const QString& message)
{
    std::fprintf(stderr, "clusterscope: %s\nTry 'clusterscope --help'.\n", qPrintable(message));
    return 2;
}

// --render, --help and --version must work with no display, so the platform is chosen before
// QApplication exists.
bool runsHeadless(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        for (const char* option : {"--render", "--help", "-h", "--help-all", "--version", "-v"})
            if (qstrcmp(argv[i], option) == 0)
                return true;
    return false;
}

// Without a display Qt ends in "no Qt platform plugin could be initialized. Reinstalling the
// application may fix this problem.", which sends people the wrong way: say what is missing. Only
// where the platform would be X11 or Wayland, and only when no platform is chosen by hand.
bool lacksDisplay()
{
#ifdef Q_OS_LINUX
    return qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
           qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
#else
    return false;
#endif
}

int noDisplayError()
{
    std::fputs("clusterscope: no display to open the window on: neither DISPLAY nor "
               "WAYLAND_DISPLAY is set (a server, or an SSH session without X forwarding).\n"
               "Run it on a machine with a display, connect with 'ssh -X' (or 'ssh -Y') to show "
               "the window on yours, or draw a picture without a display:\n"
               "  clusterscope --render OUT.png FILE\n",
               stderr);
    return 1;
}

} // namespace

int main(int argc, char** argv)
{
    if (runsHeadless(argc, argv))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    else if (lacksDisplay())
        return noDisplayError();
    QApplication app(argc, argv);
    QApplication::setApplicationName("ClusterScope");
    QApplication::setOrganizationName("ClusterScope");
    QApplication::setApplicationVersion(CLUSTERSCOPE_VERSION);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/clusterscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        "See a GPU training cluster and where a training step's time goes.\n\nWith no FILE, "
        "the last crashed session's unsaved changes are offered, else the Fairwater sample "
        "opens. F1 in the window lists every shortcut.");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption render("render", "Draw the view into OUT.png with no display and exit.",
                              "OUT.png");
    QCommandLineOption size(
        "size",
        QStringLiteral("Image size for --render, in pixels (default 1600x1000; at most %1 a side "
                       "and %2 pixels in all).")
            .arg(kMaxRenderSide)
            .arg(QString::fromStdString(cs::withThousands(kMaxRenderPixels))),
        "WxH");
    std::vector<std::string> modes;
    for (const cs::ColorMode& mode : cs::colorModes())
        modes.push_back(cs::toString(mode));
    QCommandLineOption colorBy("color-by",
                               QStringLiteral("Colour GPUs by %1 (--render).")
                                   .arg(QString::fromStdString(cs::wordList(modes, " or "))),
                               "MODE");
    QCommandLineOption select("select", "Select a rank, lighting its groups (--render).", "RANK");
    QCommandLineOption time("time", "Time in the step to show, in seconds (--render).", "T");
    parser.addOptions({render, size, colorBy, select, time});
    parser.addPositionalArgument(
        "FILE", "Cluster, run, session or measured-runs (.jsonl) files to open.", "[FILE...]");
    parser.process(app);

    const QStringList files = parser.positionalArguments();
    if (parser.isSet(render)) {
        if (files.size() != 1)
            return usageError("--render needs exactly one FILE");
        RenderRequest request;
        request.input = files.first();
        request.output = parser.value(render);
        if (parser.isSet(size) && !parseSize(parser.value(size), &request.size))
            return usageError("--size takes WxH, e.g. 1920x1080");
        request.colorBy = parser.value(colorBy);
        if (parser.isSet(select)) {
            bool ok = false;
            request.selectRank = parser.value(select).toInt(&ok);
            if (!ok || request.selectRank < 0)
                return usageError("--select takes a rank number");
        }
        if (parser.isSet(time)) {
            bool ok = false;
            request.timeS = parser.value(time).toDouble(&ok);
            if (!ok || !std::isfinite(request.timeS) || request.timeS < 0)
                return usageError("--time takes seconds, e.g. 0.42");
        }
        return renderToPng(request);
    }

    MainWindow window;
    window.show();
    if (!window.offerRecovery())
        window.openStartupFiles(files);
    return app.exec();
}
