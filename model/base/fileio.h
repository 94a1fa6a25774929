#pragma once
// Reading and writing whole files, the one way every part of ClusterScope does it: reads are
// bounded, writes are atomic and leave the old file intact on any failure.

#include <cstddef>
#include <optional>
#include <string>

#include "diagnostics.h"

namespace cs {

inline constexpr size_t kMaxFileBytes = 64u << 20;

// Reads a whole file, refusing unreadable files and files over kMaxFileBytes.
std::optional<std::string> readFileText(const std::string& path, Diagnostics& diags);

// Resolves a path relative to the directory of another file.
std::string resolveRelative(const std::string& fromFile, const std::string& relative);

// Writes text atomically (temporary file, then rename); false and a diagnostic on failure.
bool writeFileAtomically(const std::string& path, const std::string& text, Diagnostics& diags);

} // namespace cs
