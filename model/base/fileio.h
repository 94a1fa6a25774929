#pragma once
// Reading and writing whole files, the one way every part of ClusterScope does it: reads are
// bounded and never block, writes are atomic and leave the old file intact on any failure.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"

namespace cs {

// The most one file of a kind ClusterScope reads holds (a cluster, a run, a log to import). A file
// that embeds several such parts (a session) may hold their sum: see kMaxSessionBytes.
inline constexpr size_t kMaxFileBytes = 64u << 20;

// Reads a whole regular file. Refused at once, with the reason, before reading a byte:
// directories, FIFOs, devices and sockets, symbolic link loops, unreadable files and files over
// `limit` bytes. UTF-16 and UTF-32 text is refused by name; a binary file (a NUL within its
// first 8,000 bytes) with the offset of the first byte JSON text cannot hold.
std::optional<std::string> readFileText(const std::string& path, Diagnostics& diags,
                                        size_t limit = kMaxFileBytes);
// Why a file of `bytes` bytes is refused when `limit` is the most that is read: "larger than
// 64 MiB (67,108,865 bytes), the most ...".
std::string tooLargeReason(size_t bytes, size_t limit);

// Resolves a path relative to the directory of another file.
std::string resolveRelative(const std::string& fromFile, const std::string& relative);

// Writes bytes atomically: a temporary file beside the target, every write, the sync and the
// close checked, the content read back and compared, then renamed over the target. A symbolic
// link is written through (the file it names is replaced, the link stays); a replaced file keeps
// its permissions. Refused, leaving everything as it was: read-only files and anything that is
// not a regular file (directories, FIFOs, devices). False and a diagnostic with the system's
// reason on failure; the old file is then untouched.
bool writeFileAtomically(const std::string& path, std::string_view bytes, Diagnostics& diags);

// No command writes over a file it reads. The first of `inputs` that is the file `output` names
// (the same device and inode: through symbolic links, hard links and any spelling such as
// `./`), or nothing when none is or `output` does not exist yet.
std::optional<std::string> inputWrittenBy(const std::string& output,
                                          const std::vector<std::string>& inputs);

// Why it is refused, naming both: "\"a.json\" is the same file as \"b.json\", one of the files
// read; ..." (the caller puts the option that named the output first).
std::string writesOverInput(const std::string& output, const std::string& input);

} // namespace cs
