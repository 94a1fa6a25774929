#pragma once
// The application's own toolbar icons, drawn in the palette's text colour so that they read on
// a light and on a dark theme alike (the style's media icons are dark glyphs).

#include <QIcon>

class QPalette;

enum class Glyph { ToStart, StepBack, Play, Pause, StepForward, Loop };

QIcon glyphIcon(Glyph glyph, const QPalette& palette);
