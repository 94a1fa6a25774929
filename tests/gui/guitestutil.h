#pragma once
// Helpers for GUI tests.

#include <QString>

inline QString sampleFile(const char* name)
{
    return QStringLiteral(CS_SAMPLES_DIR "/") + QLatin1String(name);
}
