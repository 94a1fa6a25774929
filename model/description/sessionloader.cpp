// Sessions from parsed JSON (formats.md "Session"): the embedded descriptions, the view and the
// bookmarks.

#include <cmath>

#include "loader.h"
#include "loaderfields.h"
#include "validation.h"

namespace cs {

using nlohmann::json;

namespace {

// Bounds on what a file may say. They are wide enough for any machine built or announced
// (NVL72 and NVL576 domains, 100k-GPU clusters, 1M-token contexts) and narrow enough that
// products of them cannot overflow the cost model's arithmetic or hide a typo.
constexpr double kMinZoom = 1e-4;
constexpr double kMaxZoom = 1e4;
constexpr double kMaxCoordinate = 1e9;
constexpr double kMaxTimeS = 1e9;
constexpr double kMaxSpeed = 1e6;

std::optional<ClusterRun> readClusterRun(FieldReader& owner, const std::string& file,
                                         Diagnostics& diags)
{
    const json* clusterJson = owner.readObject("cluster", Need::Required);
    const json* runJson = owner.readObject("run", Need::Required);
    std::optional<ClusterDesc> cluster;
    std::optional<RunDesc> run;
    if (clusterJson)
        cluster = clusterFromJson(*clusterJson, file, owner.pointerOf("cluster"), diags);
    if (runJson)
        run = runFromJson(*runJson, file, owner.pointerOf("run"), diags);
    if (!cluster || !run)
        return std::nullopt;
    const size_t before = diags.size();
    checkRunOnCluster(*run, *cluster, file, owner.pointerOf("run"), diags);
    if (diags.size() != before)
        return std::nullopt;
    return ClusterRun{*cluster, *run};
}

// One entry of `jobs`: { "run": { ... } }, the run read and checked on the session's cluster
// (when that loaded) as the session's own run is. Nothing else is kept in an entry, so nothing
// else may be in it.
std::optional<RunDesc> readJob(const json& j, const std::string& pointer,
                               const std::optional<ClusterDesc>& cluster, const std::string& file,
                               Diagnostics& diags)
{
    if (!requireObject(j, file, pointer, "a job", diags))
        return std::nullopt;
    const size_t before = diags.size();
    FieldReader f(j, file, pointer, diags);
    const json* runJson = f.readObject("run", Need::Required);
    for (const auto& [key, value] : j.items()) {
        if (key != "run")
            f.error(key, "a job holds only its \"run\"; notes and x-* keys go inside the run");
    }
    if (!runJson)
        return std::nullopt;
    std::optional<RunDesc> run = runFromJson(*runJson, file, f.pointerOf("run"), diags);
    if (run && cluster)
        checkRunOnCluster(*run, *cluster, file, f.pointerOf("run"), diags);
    if (diags.size() != before)
        return std::nullopt;
    return run;
}

// `jobs`, each read; nothing when any is wrong or there are more than a session holds.
std::optional<std::vector<RunDesc>> readJobs(const json& jobs, const std::string& pointer,
                                             const std::optional<ClusterDesc>& cluster,
                                             const std::string& file, Diagnostics& diags)
{
    // The session's own run is a job too.
    if (jobs.size() + 1 > size_t(kMaxSessionJobs)) {
        diags.atPointer(file, pointer,
                        "lists " + withThousands(int64_t(jobs.size())) +
                            " jobs beside the session's run; a session holds at most " +
                            std::to_string(kMaxSessionJobs) + " jobs, its run among them");
        return std::nullopt;
    }
    std::vector<RunDesc> out;
    bool ok = true;
    for (size_t i = 0; i < jobs.size(); ++i) {
        auto job = readJob(jobs[i], pointer + "/" + std::to_string(i), cluster, file, diags);
        ok = ok && job.has_value();
        if (job)
            out.push_back(std::move(*job));
    }
    if (!ok)
        return std::nullopt;
    return out;
}

std::optional<Bookmark> readBookmark(const json& j, const std::string& pointer,
                                     const std::string& file, Diagnostics& diags)
{
    if (!requireObject(j, file, pointer, "a bookmark", diags))
        return std::nullopt;
    const size_t before = diags.size();
    FieldReader f(j, file, pointer, diags);
    Bookmark bookmark;
    f.readString("title", bookmark.title, Need::Required);
    f.readString("notes", bookmark.notes, Need::Optional);
    if (const json* view = f.readObject("view", Need::Required)) {
        if (auto state = viewFromJson(*view, file, f.pointerOf("view"), diags))
            bookmark.view = *state;
    }
    f.reportUnknownKeys();
    if (diags.size() != before)
        return std::nullopt;
    return bookmark;
}

} // namespace

std::optional<ViewState> viewFromJson(const json& j, const std::string& file,
                                      const std::string& base, Diagnostics& diags)
{
    if (!requireObject(j, file, base, "a view", diags))
        return std::nullopt;
    const size_t before = diags.size();
    ViewState v;
    FieldReader f(j, file, base, diags);
    f.readNumber("zoom", v.zoom, kMinZoom, kMaxZoom, Need::Optional);
    if (const json* center = f.readArray("center", Need::Optional)) {
        const bool ok = center->size() == 2 && (*center)[0].is_number() &&
                        (*center)[1].is_number() &&
                        std::fabs((*center)[0].get<double>()) <= kMaxCoordinate &&
                        std::fabs((*center)[1].get<double>()) <= kMaxCoordinate;
        if (ok)
            v.center = {(*center)[0].get<double>(), (*center)[1].get<double>()};
        else
            f.error("center", "expected [x, y]: two numbers of at most " +
                                  numberText(kMaxCoordinate) + " in size");
    }
    std::vector<std::string> modes;
    for (const ColorMode& mode : colorModes())
        modes.push_back(toString(mode));
    std::string colorBy;
    if (f.readWord("color_by", colorBy, modes, Need::Optional) && !colorBy.empty())
        v.colorBy = *colorModeFromString(colorBy);
    f.readInt("highlight_rank", v.highlightRank, -1, int(kMaxGpus - 1), Need::Optional);
    f.readNumber("time_s", v.timeS, 0, kMaxTimeS, Need::Optional);
    f.readNumber("speed", v.speed, 0, kMaxSpeed, Need::Optional);
    f.readBool("playing", v.playing, Need::Optional);
    f.reportUnknownKeys();
    if (diags.size() != before)
        return std::nullopt;
    return v;
}

std::optional<Session> sessionFromJson(const json& j, const std::string& file, Diagnostics& diags)
{
    if (!requireObject(j, file, "", "a session", diags))
        return std::nullopt;
    const size_t before = diags.size();
    Session s;
    FieldReader top(j, file, "", diags);
    checkFormat(top, kSessionFormat);
    std::optional<ClusterRun> main = readClusterRun(top, file, diags);
    if (main) {
        s.cluster = main->cluster;
        s.run = main->run;
    }
    if (const json* jobs = top.readArray("jobs", Need::Optional)) {
        std::optional<ClusterDesc> cluster;
        if (main)
            cluster = main->cluster;
        const size_t beforeJobs = diags.size();
        if (auto read = readJobs(*jobs, top.pointerOf("jobs"), cluster, file, diags))
            s.jobs = std::move(*read);
        if (main && diags.size() == beforeJobs)
            checkJobs(s.cluster, sessionRuns(s), sessionRunSources(file, s.jobs.size()), diags);
    }
    if (const json* compare = top.readObject("compare", Need::Optional)) {
        FieldReader c(*compare, file, top.pointerOf("compare"), diags);
        s.compare = readClusterRun(c, file, diags);
        c.reportUnknownKeys();
    }
    if (const json* view = top.readObject("view", Need::Optional))
        s.view = viewFromJson(*view, file, top.pointerOf("view"), diags);
    if (const json* bookmarks = top.readArray("bookmarks", Need::Optional)) {
        for (size_t i = 0; i < bookmarks->size(); ++i) {
            const std::string pointer = top.pointerOf("bookmarks") + "/" + std::to_string(i);
            if (auto bookmark = readBookmark((*bookmarks)[i], pointer, file, diags))
                s.bookmarks.push_back(*bookmark);
        }
    }
    top.reportUnknownKeys();
    s.extensions = Extensions(top.extensions());
    if (diags.size() != before)
        return std::nullopt;
    return s;
}

} // namespace cs
