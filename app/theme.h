#pragma once
// The light and the dark theme. Both are the Fusion style: light with its standard palette,
// dark with a dark one. Views that paint their own colours (timeline, charts, legend, icons)
// take them from the palette and follow a switch either way.

class QPalette;

void applyTheme(bool dark);
bool isDark(const QPalette& palette);
