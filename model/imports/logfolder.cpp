#include "logfolder.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "loader.h"
#include "megatron.h"
#include "mllog.h"
#include "steptimes.h"
#include "text.h"
#include "validation.h"

namespace cs {

namespace {

namespace fs = std::filesystem;

bool isLog(const fs::path& path)
{
    const std::string ext = lowerCase(path.extension().string());
    return ext == ".log" || ext == ".txt";
}

// NAME.sh or NAME.sbatch beside NAME.log; empty when there is none.
std::string launchScriptOf(const fs::path& log)
{
    for (const char* ext : {".sh", ".sbatch"}) {
        fs::path script = log;
        script.replace_extension(ext);
        std::error_code ec;
        if (fs::is_regular_file(script, ec))
            return script.string();
    }
    return {};
}

// The run a log measures, with its measurement; nothing when an importer refused a file.
std::optional<RunDesc> measuredRunOf(const SourceText& log, const RunDesc& current,
                                     ImportReport& report)
{
    RunDesc run = current;
    std::vector<double> times;
    if (log.text.find(":::MLLOG") != std::string::npos) {
        const std::optional<MlperfResult> result = readMllog(log, report);
        if (!result)
            return std::nullopt;
        run.measured = Measured{result->stepTimeS, "MLPerf result log " +
                                                       fs::path(log.file).filename().string() +
                                                       ": " + result->stepSource};
        times = result->stepTimesS;
    } else if (const std::string script = launchScriptOf(log.file); !script.empty()) {
        const std::optional<SourceText> launch = readSource(script, report);
        const std::optional<nlohmann::json> imported =
            launch ? importMegatron({*launch}, &log, report) : std::nullopt;
        if (!imported)
            return std::nullopt;
        Diagnostics diags;
        std::optional<RunDesc> scripted = runFromJson(*imported, script, "", diags);
        report.errors.append(diags);
        return scripted;
    } else {
        const std::optional<MegatronLogTimes> logged = readMegatronLog(log, report);
        if (!logged)
            return std::nullopt;
        run.measured = measuredOfLog(*logged, log.file);
        times = logged->measuredS();
    }
    // A very long log keeps an even sample, so that the run stays one a file may hold.
    if (const std::string note = keptStepTimesNote(times.size()); !note.empty())
        report.note({log.file, 0, 0, ""}, note);
    run.extensions.set(kMeasuredStepTimesKey, keptStepTimes(times));
    return run;
}

} // namespace

std::vector<MeasuredRun> importLogFolder(const std::string& folder, const ClusterDesc& cluster,
                                         const RunDesc& run, ImportReport& report)
{
    std::error_code ec;
    std::vector<fs::path> logs;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (isLog(it->path()) && it->is_regular_file(ec))
            logs.push_back(it->path());
    if (ec) {
        report.error({folder, 0, 0, ""}, "cannot read the folder: " + ec.message());
        return {};
    }
    std::sort(logs.begin(), logs.end());
    if (logs.size() > kMaxFolderLogs) {
        report.error({folder, 0, 0, ""}, "holds " + std::to_string(logs.size()) +
                                             " logs; the first " + std::to_string(kMaxFolderLogs) +
                                             " are read");
        logs.resize(kMaxFolderLogs);
    }
    if (logs.empty())
        report.error({folder, 0, 0, ""}, "holds no training logs (*.log, *.txt)");
    std::vector<MeasuredRun> runs;
    for (const fs::path& path : logs) {
        const size_t errorsBefore = report.errors.size();
        const std::optional<SourceText> log = readSource(path.string(), report);
        std::optional<RunDesc> measured = log ? measuredRunOf(*log, run, report) : std::nullopt;
        if (measured) {
            Diagnostics diags;
            checkRunShape(*measured, path.string(), "", diags);
            checkRunOnCluster(*measured, cluster, path.string(), "", diags);
            report.errors.append(diags);
        }
        if (measured && report.errors.size() == errorsBefore)
            runs.push_back({path.filename().string(), 0, "", cluster, std::move(*measured)});
    }
    return runs;
}

std::vector<double> measuredStepTimes(const RunDesc& run)
{
    const nlohmann::json& extensions = run.extensions.value();
    const auto it = extensions.find(kMeasuredStepTimesKey);
    std::vector<double> times;
    if (it == extensions.end() || !it->is_array())
        return times;
    for (const nlohmann::json& t : *it)
        if (t.is_number() && t.get<double>() > 0)
            times.push_back(t.get<double>());
    return times;
}

} // namespace cs
