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
#include "fileio.h"

namespace cs {

enum class FileKind { Unknown, Cluster, Run, Session, MeasuredRuns };

inline constexpr const char* kClusterFormat = "clusterscope/cluster@1";
inline constexpr const char* kRunFormat = "clusterscope/run@1";
inline constexpr const char* kSessionFormat = "clusterscope/session@1";
inline constexpr int64_t kMaxGpus = 131072;
inline constexpr int kMaxJsonDepth = 64;
// Values one description may hold (numbers, strings, booleans, nulls, arrays and objects alike),
// so that what a file costs in memory is bounded by more than its size: 64 MiB of "[]," would be
// 22 million arrays.
inline constexpr int64_t kMaxJsonValues = int64_t(1) << 20;

// The most jobs one session holds, its run among them (formats.md "Several jobs on one
// cluster"): the cost model names a link's jobs in one 64-bit mask.
inline constexpr int kMaxSessionJobs = 64;
// The most ranges one allocation lists, so that checking every pair of jobs for overlap stays
// quick (a range covers any number of racks or nodes).
inline constexpr int kMaxAllocationRanges = 4096;

// A session embeds whole descriptions, its parts: its cluster and run, the compared cluster and
// run (`compare`), and the runs of its first kSessionJobParts other jobs. Whatever loads as
// parts loads as the whole: each part is held to a file's own limits (kMaxFileBytes,
// kMaxJsonValues and kMaxJsonDepth, counted for that part alone), and the session's own keys
// (`view`, `bookmarks`, notes, the runs of any later jobs) count as one part more. Later jobs
// share that part rather than each having its own, which would let a session of 64 jobs be
// 5 GB.
inline constexpr int kSessionJobParts = 3;
inline constexpr int kSessionParts = 1 + 2 + 2 + kSessionJobParts;
// Inside a session a part is indented deeper than as its own file, by at most 6 columns (a
// job's run, /jobs/N/run) on each of its lines, and a part of kMaxJsonValues values has at most
// twice as many lines (a container's closing bracket has a line of its own).
inline constexpr size_t kPartIndentBytes = 6 * 2 * size_t(kMaxJsonValues);
inline constexpr size_t kMaxSessionBytes = kSessionParts * (kMaxFileBytes + kPartIndentBytes);

// The most a file at `path` may hold: a session (*.csession) its parts' sum, any other file
// kMaxFileBytes.
size_t byteLimitOf(const std::string& path);

// Whether `text`, about to be written to `path`, would load again: the same limits (bytes,
// JSON values, nesting) and checks the loader applies to a file of its kind. Problems go
// into diags, located in `path`.
bool checkReadsBack(std::string_view text, const std::string& path, Diagnostics& diags);

// Parses JSON text (a UTF-8 BOM is skipped). Syntax errors, duplicate keys, nesting deeper
// than kMaxJsonDepth and more than kMaxJsonValues values in one part (a session's /cluster,
// /run, /compare/cluster, /compare/run, /jobs/N/run for N < kSessionJobParts, and all the rest
// together; nesting counted from the part's root) are reported; returns nothing then.
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
// Whether a run's `cluster` is loaded with it: not where the cluster is given otherwise (a command
// line's CLUSTER RUN), so that its problems are not reported twice.
enum class RunCluster { Load, Skip };
std::optional<LoadedFile> loadFile(const std::string& path, Diagnostics& diags,
                                   RunCluster runCluster = RunCluster::Load);
// Loads the cluster a loaded run names (run.cluster, clusterPath) and checks the run on it, its
// problems reported under its own file name.
void loadClusterOf(LoadedFile& loadedRun, Diagnostics& diags);

} // namespace cs
