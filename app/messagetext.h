#pragma once
// Text of messages for people. What a dialog shows of a message is bounded whatever the
// message quotes: a file's 5 MB value or a flood of notes would take a message box a minute to
// lay out, with the window frozen. Problems of an edit are sentences naming the setting in
// words, never a JSON pointer after "edit:" (which is how a file's problems are located for the
// command line).

#include <QString>

namespace cs {
class Diagnostics;
}

// At most maxLines lines of `text`, each cut at maxChars characters (the cut marked with
// "..."), then "and N more lines" for the lines left out.
QString boundedMessage(const QString& text, int maxLines = 20, int maxChars = 300);

// One sentence a line: "Micro-batch: must divide the global batch." for a problem of
// /run/batch/micro. A problem of what is out of service names what it is itself.
QString problemsForPeople(const cs::Diagnostics& diags);
