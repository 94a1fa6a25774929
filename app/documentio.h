#pragma once
// Loading any ClusterScope file into a session for the application.

#include <QString>
#include <optional>

#include "description.h"

// A session file as it is; a run with its cluster; a cluster alone with a default run that
// fills it (one data-parallel replica per GPU). On failure, every problem, one per line.
std::optional<cs::Session> loadSessionFromFile(const QString& path, QString* problems);

// Writes the session through QSaveFile: on any failure the old file is untouched and *error
// says why.
bool saveSessionToFile(const cs::Session& session, const QString& path, QString* error);
