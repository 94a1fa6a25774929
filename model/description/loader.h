#pragma once
// Reading and checking the files of formats.md (writing them back: writer.h). Every function
// reports all the problems it finds into a Diagnostics and never throws for anything a file
// can hold.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "description.h"
#include "diagnostics.h"

namespace cs {

enum class FileKind { Unknown, Cluster, Run, Session, MeasuredRuns };

inline constexpr const char* kClusterFormat = "clusterscope/cluster@1";
inline constexpr const char* kRunFormat = "clusterscope/run@1";
inline constexpr const char* kSessionFormat = "clusterscope/session@1";
inline constexpr int64_t kMaxGpus = 131072;
inline constexpr int kMaxJsonDepth = 64;
// Values a file may hold (numbers, strings, booleans, nulls, arrays and objects alike), so that
// what a file costs in memory is bounded by more than its size: 64 MiB of "[]," would be 22
// million arrays.
inline constexpr int64_t kMaxJsonValues = int64_t(1) << 20;

// Parses JSON text (a UTF-8 BOM is skipped). Syntax errors, duplicate keys, nesting deeper
// than kMaxJsonDepth and more than kMaxJsonValues values are reported; returns nothing then.
std::optional<nlohmann::json> parseJson(std::string_view text, const std::string& file,
                                        Diagnostics& diags);

// Builds descriptions from parsed JSON. `base` is the JSON pointer of the object inside the
// file (empty for a whole file, "/cluster" inside a session). Returns nothing when any problem
// was found; every problem is in diags.
std::optional<ClusterDesc> clusterFromJson(const nlohmann::json& j, const std::string& file,
                                           const std::string& base, Diagnostics& diags);
std::optional<RunDesc> runFromJson(const nlohmann::json& j, const std::string& file,
                                   const std::string& base, Diagnostics& diags);
std::optional<Session> sessionFromJson(const nlohmann::json& j, const std::string& file,
                                       Diagnostics& diags);
std::optional<ViewState> viewFromJson(const nlohmann::json& j, const std::string& file,
                                      const std::string& base, Diagnostics& diags);

FileKind fileKindOf(const nlohmann::json& j);

// A file of any kind, loaded and checked. A run whose `cluster` path resolves comes with
// its cluster, checked against it.
struct LoadedFile {
    std::string path;
    FileKind kind = FileKind::Unknown;
    std::optional<ClusterDesc> cluster;
    std::optional<RunDesc> run;
    std::optional<Session> session;
    std::string clusterPath; // resolved path of a run's cluster, when it has one
};
std::optional<LoadedFile> loadFile(const std::string& path, Diagnostics& diags);

} // namespace cs
