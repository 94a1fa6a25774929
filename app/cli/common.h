#pragma once
// What several commands do alike: report problems, load a cluster and a run.

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "calibration.h"
#include "clicommands.h"
#include "description.h"
#include "diagnostics.h"
#include "loader.h"
#include "uncertainty.h"

namespace cs::cli {

void printDiagnostics(const Diagnostics& diags, std::ostream& out);

// Loads CLUSTER and RUN; with `checkOnCluster` the run must also be valid on that cluster
// (evaluate), without it only each file on its own (the search finds a layout that fits).
// Problems go to io.err.
std::optional<ClusterRun> loadClusterAndRun(const std::string& clusterPath,
                                            const std::string& runPath, bool checkOnCluster, Io io);

// The fabric's rules that need its graph (fabriccheck.h) for whatever the file holds: the
// switches and links its failures name, and whether its run's traffic has a path.
void checkFabrics(const LoadedFile& file, Diagnostics& diags);

std::string percent(double fraction, int decimals = 1);
// "holds the measured step for 46 of 56 rows, median half-width 8.7 %; 0 rows with no measured
// run like them".
std::string coverageText(const RangeCoverage& c);

// Characters, not bytes, as a terminal shows them; text padded to `width` of them.
size_t characters(std::string_view text);
std::string padRight(const std::string& text, size_t width);
std::string padLeft(const std::string& text, size_t width);

// The calibration `--calibration FILE` names, read and checked, or the built-in one; nothing
// (problems printed) when the file is bad.
class ParsedArgs;
std::optional<Calibration> calibrationOf(const ParsedArgs& args, Io io);

// A JSON object written member by member, so that arrays of a million entries (a large
// cluster's links) are never held as one json tree: small members as indented JSON, arrays
// one entry (already JSON text) per line. `indent`: where the object itself is nested.
class JsonObjectStream {
public:
    explicit JsonObjectStream(std::ostream& out, int indent = 0);
    void member(std::string_view name, const nlohmann::json& value);
    void arrayMember(std::string_view name, size_t count,
                     const std::function<std::string(size_t)>& entry);
    void close(); // the closing brace, without a newline

private:
    void key(std::string_view name);

    std::ostream& m_out;
    std::string m_indent;
    bool m_first = true;
};

} // namespace cs::cli
