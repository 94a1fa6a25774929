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

// Returns the exit status of formats.md and prints problems to stderr.
int renderToPng(const RenderRequest& request);
