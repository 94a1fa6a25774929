#pragma once
// `clusterscope --render`: draws the view into a PNG with no display, using the same drawing
// code as the window.

#include <QSize>
#include <QString>

struct RenderRequest {
    QString input;  // a session, run (with its cluster) or cluster file
    QString output; // PNG path
    QSize size{1600, 1000};
    QString colorBy; // empty: the file's view or "pp"
    int selectRank = -1;
    double timeS = -1; // < 0: the file's view time
};

// The largest image --render draws: a 16384x16384 PNG took half a minute and 2.7 GB.
inline constexpr int kMaxRenderSide = 8192;
inline constexpr qint64 kMaxRenderPixels = qint64(7680) * 4320; // 8K

// Returns the exit status of formats.md and prints problems to stderr. Usage problems (2): an
// image over the limits above, an output that is the input file.
int renderToPng(const RenderRequest& request);
