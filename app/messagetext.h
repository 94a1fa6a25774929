#pragma once
// What a dialog shows of a message, bounded whatever the message quotes: a file's 5 MB value
// or a flood of notes would take a message box a minute to lay out, with the window frozen.

#include <QString>

// At most maxLines lines of `text`, each cut at maxChars characters (the cut marked with
// "..."), then "and N more lines" for the lines left out.
QString boundedMessage(const QString& text, int maxLines = 20, int maxChars = 300);
