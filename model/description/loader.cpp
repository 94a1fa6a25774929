// Loading whole files of any kind, and what the readers of each kind share.

#include "loader.h"

#include <filesystem>

#include "fileio.h"
#include "loaderfields.h"
#include "measuredruns.h"
#include "validation.h"

namespace cs {

using nlohmann::json;
namespace fs = std::filesystem;

bool checkFormat(FieldReader& fields, const char* expected)
{
    std::string format;
    if (!fields.readString("format", format, Need::Required))
        return false;
    if (format == expected)
        return true;
    fields.error("format", std::string("must be \"") + expected + "\", got " + inQuotes(format));
    return false;
}

bool requireObject(const json& j, const std::string& file, const std::string& base,
                   const char* what, Diagnostics& diags)
{
    if (j.is_object())
        return true;
    diags.atPointer(file, base,
                    std::string("expected ") + what + " object, got " + jsonTypeName(j));
    return false;
}

FileKind fileKindOf(const json& j)
{
    if (!j.is_object())
        return FileKind::Unknown;
    const auto format = j.find("format");
    if (format == j.end() || !format->is_string())
        return FileKind::Unknown;
    const std::string& text = format->get_ref<const std::string&>();
    if (text == kClusterFormat)
        return FileKind::Cluster;
    if (text == kRunFormat)
        return FileKind::Run;
    if (text == kSessionFormat)
        return FileKind::Session;
    return FileKind::Unknown;
}

namespace {

void reportUnknownFormat(const json& j, const std::string& file, Diagnostics& diags)
{
    const std::string expected = std::string("expected one of \"") + kClusterFormat + "\", \"" +
                                 kRunFormat + "\", \"" + kSessionFormat + "\"";
    const auto format = j.find("format");
    if (format == j.end())
        diags.atPointer(file, "/format", "missing required key \"format\"; " + expected);
    else if (!format->is_string())
        diags.atPointer(file, "/format", "expected a string, got " + jsonTypeName(*format));
    else
        diags.atPointer(file, "/format",
                        "unknown format " + inQuotes(format->get<std::string>()) + "; " + expected);
}

// The descriptions in a file of `bytes` bytes that parsed as `j`: every check but those of the
// cluster a run names (a file of its own).
std::optional<LoadedFile> descriptionsIn(const json& j, size_t bytes, const std::string& path,
                                         Diagnostics& diags)
{
    if (!j.is_object()) {
        diags.atPointer(path, "", "the top level must be a JSON object, got " + jsonTypeName(j));
        return std::nullopt;
    }
    const size_t before = diags.size();
    LoadedFile loaded;
    loaded.path = path;
    loaded.kind = fileKindOf(j);
    // A session's name lets it be read whole; what it holds is one part, held to a part's size.
    if (loaded.kind != FileKind::Session && bytes > kMaxFileBytes) {
        diags.atPointer(path, "", "the file is " + tooLargeReason(bytes, kMaxFileBytes));
        return std::nullopt;
    }
    switch (loaded.kind) {
    case FileKind::Cluster:
        loaded.cluster = clusterFromJson(j, path, "", diags);
        break;
    case FileKind::Run:
        loaded.run = runFromJson(j, path, "", diags);
        break;
    case FileKind::Session:
        loaded.session = sessionFromJson(j, path, diags);
        break;
    default:
        reportUnknownFormat(j, path, diags);
        break;
    }
    if (diags.size() != before)
        return std::nullopt;
    return loaded;
}

std::optional<json> readJsonFile(const std::string& path, Diagnostics& diags)
{
    const std::optional<std::string> text = readFileText(path, diags, byteLimitOf(path));
    if (!text)
        return std::nullopt;
    return parseJson(*text, path, diags);
}

bool isSessionPath(const std::string& path)
{
    return path.ends_with(".csession");
}

} // namespace

size_t byteLimitOf(const std::string& path)
{
    return isSessionPath(path) ? kMaxSessionBytes : kMaxFileBytes;
}

bool checkReadsBack(std::string_view text, const std::string& path, Diagnostics& diags)
{
    const size_t before = diags.size();
    if (const size_t limit = byteLimitOf(path); text.size() > limit)
        diags.atPointer(path, "",
                        "it would be " + tooLargeReason(text.size(), limit) +
                            ", so it could not be opened again");
    else if (path.ends_with(".jsonl"))
        parseMeasuredRuns(text, path, diags);
    else if (const std::optional<json> j = parseJson(text, path, diags);
             j && fileKindOf(*j) != FileKind::Unknown)
        descriptionsIn(*j, text.size(), path, diags);
    return diags.size() == before;
}

void loadClusterOf(LoadedFile& loaded, Diagnostics& diags)
{
    const RunDesc& run = *loaded.run;
    loaded.clusterPath = resolveRelative(loaded.path, run.clusterPath);
    std::error_code ec;
    if (!fs::exists(loaded.clusterPath, ec)) {
        diags.atPointer(loaded.path, "/cluster",
                        "cluster file " + inQuotes(run.clusterPath) +
                            " does not exist (looked for " + loaded.clusterPath + ")");
        return;
    }
    const std::optional<json> j = readJsonFile(loaded.clusterPath, diags);
    if (!j)
        return;
    if (fileKindOf(*j) != FileKind::Cluster) {
        diags.atPointer(loaded.path, "/cluster",
                        inQuotes(run.clusterPath) + " is not a cluster file (its format is not \"" +
                            kClusterFormat + "\")");
        return;
    }
    loaded.cluster = clusterFromJson(*j, loaded.clusterPath, "", diags);
    if (loaded.cluster)
        checkRunOnCluster(run, *loaded.cluster, loaded.path, "", diags);
}

std::optional<LoadedFile> loadFile(const std::string& path, Diagnostics& diags,
                                   RunCluster runCluster)
{
    // Measured runs have their own reader; here only their kind is told.
    if (path.ends_with(".jsonl")) {
        LoadedFile loaded;
        loaded.path = path;
        loaded.kind = FileKind::MeasuredRuns;
        return loaded;
    }
    const size_t before = diags.size();
    const std::optional<std::string> text = readFileText(path, diags, byteLimitOf(path));
    if (!text)
        return std::nullopt;
    const std::optional<json> j = parseJson(*text, path, diags);
    if (!j)
        return std::nullopt;
    std::optional<LoadedFile> loaded = descriptionsIn(*j, text->size(), path, diags);
    if (loaded && loaded->run && !loaded->run->clusterPath.empty() &&
        runCluster == RunCluster::Load)
        loadClusterOf(*loaded, diags);
    if (diags.size() != before)
        return std::nullopt;
    return loaded;
}

} // namespace cs
