// evaluate CLUSTER RUN RUN... and place: several jobs on one cluster on the command line.

#include <ostream>

#include <nlohmann/json.hpp>

#include "allocationtext.h"
#include "common.h"
#include "evaluationjson.h"
#include "jobcommands.h"
#include "jobs.h"
#include "options.h"
#include "placejob.h"
#include "text.h"
#include "uncertainty.h"
#include "validation.h"
#include "writer.h"

namespace cs::cli {

const CommandSpec kPlaceSpec{
    "place",
    "CLUSTER RUN",
    2,
    2,
    {{"--beside",
      "RUN...",
      "the jobs already running, each with its allocation (required)",
      {},
      FileRole::Input,
      true},
     {"--json", "", "print {placements: [{allocation, step_time_s, others_slowed_s}]}"},
     kCalibrationOption},
    "where a new job fits beside the running ones, best first",
    "Ranks the free allocations of CLUSTER that fit RUN (tp x cp x pp x dp healthy GPUs; RUN\n"
    "gives its dp) beside the jobs already running: contiguous free ranges of whole racks,\n"
    "those that start on a leaf first, then ranges of nodes for a job smaller than a rack whose\n"
    "NVLink domain is the node. Each is timed with every job running; they are ranked by the\n"
    "new job's step plus the seconds it adds to the running jobs' steps, ties going to the\n"
    "allocation on fewer leaves, then to the one holding fewer GPUs. On a large cluster a\n"
    "bounded number of them is timed, spread evenly over it."};

namespace {

using nlohmann::json;

constexpr size_t kTextPlacements = 5;

std::vector<std::string> uniqueNames(const std::vector<RunDesc>& runs)
{
    std::vector<std::string> names;
    for (const RunDesc& run : runs) {
        std::string name = run.name.empty() ? "job " + std::to_string(names.size() + 1) : run.name;
        int repeat = 1;
        for (const std::string& earlier : names)
            repeat += earlier == name || earlier.rfind(name + " #", 0) == 0 ? 1 : 0;
        names.push_back(repeat > 1 ? name + " #" + std::to_string(repeat) : name);
    }
    return names;
}

json allocationJson(const RunDesc& run)
{
    return toJson(run).value("allocation", json());
}

std::string slowedByText(const JobResult& r, const std::vector<std::string>& names)
{
    std::vector<std::string> parts;
    for (size_t other = 0; other < r.slowedByS.size(); ++other)
        if (r.slowedByS[other] > 0)
            parts.push_back(printable(names[other]) + " +" + fixed(r.slowedByS[other], 4) + " s");
    return parts.empty() ? "-" : wordList(parts, ", ");
}

void printJobsTable(const ClusterJobs& jobs, const JobsEvaluation& e, std::ostream& out)
{
    std::vector<std::string> names;
    size_t nameWidth = 3, allocationWidth = 10;
    for (size_t j = 0; j < jobs.runs.size(); ++j) {
        names.push_back(printable(jobs.names[j]));
        nameWidth = std::max(nameWidth, characters(names.back()));
        allocationWidth =
            std::max(allocationWidth, characters(allocationText(jobs.runs[j].allocation)));
    }
    out << padRight("job", nameWidth) << "  " << padLeft("GPUs", 6) << "  "
        << padRight("allocation", allocationWidth) << "  " << padLeft("alone s", 9) << "  "
        << padLeft("shared s", 9) << "  slowed by\n";
    for (size_t j = 0; j < jobs.runs.size(); ++j) {
        const JobResult& r = e.jobs[j];
        out << padRight(names[j], nameWidth) << "  " << padLeft(withThousands(r.shared.gpusUsed), 6)
            << "  " << padRight(allocationText(jobs.runs[j].allocation), allocationWidth) << "  "
            << padLeft(fixed(r.alone.stepTimeS, 4), 9) << "  "
            << padLeft(fixed(r.shared.stepTimeS, 4), 9) << "  " << slowedByText(r, jobs.names)
            << "\n";
    }
}

json jobsJson(const ClusterJobs& jobs, const JobsEvaluation& e, const Calibration& calibration)
{
    json out = json::array();
    for (size_t j = 0; j < jobs.runs.size(); ++j) {
        const JobResult& r = e.jobs[j];
        const RunDesc& run = jobs.runs[j];
        json job = evaluationJson(r.shared, run);
        job["name"] = jobs.names[j];
        job["allocation"] = allocationJson(run);
        job["step_time_alone_s"] = r.alone.stepTimeS;
        job["uncertainty"] = uncertaintyJson(uncertaintyOf(
            r.shared.stepTimeS, likenessOf(jobs.cluster, run), shippedReferenceRuns(calibration)));
        json slowedBy = json::object();
        for (size_t other = 0; other < r.slowedByS.size(); ++other)
            if (other != j)
                slowedBy[jobs.names[other]] = r.slowedByS[other];
        job["slowed_by"] = slowedBy;
        out.push_back(std::move(job));
    }
    return out;
}

void printPlacements(const PlaceJobResult& placed, const std::string& job, std::ostream& out)
{
    out << "Where " << printable(job) << " fits, best first (" << placed.candidatesFound
        << " free allocations";
    if (size_t(placed.candidatesFound) > placed.placements.size())
        out << ", " << placed.placements.size() << " of them timed";
    out << "; ranked by its step plus what it adds to the others'):\n";
    for (size_t i = 0; i < placed.placements.size() && i < kTextPlacements; ++i) {
        const JobPlacement& p = placed.placements[i];
        out << "  " << i + 1 << ". " << allocationText(p.allocation) << ": its step "
            << fixed(p.stepTimeS, 4) << " s, the running jobs +" << fixed(p.othersSlowedS, 4)
            << " s together; " << p.leaves << (p.leaves == 1 ? " leaf" : " leaves") << ", "
            << withThousands(p.gpusHeld) << " GPUs held\n";
    }
}

} // namespace

std::optional<ClusterJobs> loadJobs(const std::string& clusterPath,
                                    const std::vector<std::string>& runPaths, bool checkTogether,
                                    Io io)
{
    // Refused before any file is read: each RUN may be a large file.
    if (runPaths.size() > size_t(kMaxJobs)) {
        io.err << "clusterscope-cli: " << withThousands(int64_t(runPaths.size()))
               << " runs; at most " << kMaxJobs << " jobs are evaluated together\n";
        return std::nullopt;
    }
    ClusterJobs jobs;
    for (const std::string& path : runPaths) {
        std::optional<ClusterRun> l = loadClusterAndRun(clusterPath, path, true, io);
        if (!l)
            return std::nullopt;
        jobs.cluster = std::move(l->cluster);
        jobs.runs.push_back(std::move(l->run));
    }
    jobs.names = uniqueNames(jobs.runs);
    if (!checkTogether)
        return jobs;
    std::vector<RunSource> sources;
    for (const std::string& path : runPaths)
        sources.push_back({path, ""});
    Diagnostics diags, warnings;
    checkJobs(jobs.cluster, jobs.runs, sources, diags, &warnings);
    printDiagnostics(warnings, io.err);
    if (!diags.empty()) {
        printDiagnostics(diags, io.err);
        return std::nullopt;
    }
    return jobs;
}

int evaluateJobsCommand(const ParsedArgs& p, const Calibration& calibration, Io io)
{
    const std::optional<ClusterJobs> jobs =
        loadJobs(p.positional[0], {p.positional.begin() + 1, p.positional.end()}, true, io);
    if (!jobs)
        return kExitBadInput;
    const JobsEvaluation e = evaluateJobs(jobs->cluster, jobs->runs, {&calibration, false});
    if (p.has("--json"))
        io.out << json{{"jobs", jobsJson(*jobs, e, calibration)}}.dump(2) << "\n";
    else
        printJobsTable(*jobs, e, io.out);
    return kExitOk;
}

int runPlace(const Args& args, Io io)
{
    auto parsed = parseCommand(kPlaceSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const std::vector<std::string> beside = p.values("--beside");
    if (beside.empty())
        return usageProblem(kPlaceSpec, "--beside RUN... is required (the jobs already running)",
                            io);
    const std::optional<Calibration> cal = calibrationOf(p, io);
    const std::optional<ClusterRun> job =
        loadClusterAndRun(p.positional[0], p.positional[1], true, io);
    const std::optional<ClusterJobs> running = loadJobs(p.positional[0], beside, true, io);
    if (!cal || !job || !running)
        return kExitBadInput;
    PlaceJobOptions options;
    options.eval.calibration = &*cal;
    const PlaceJobResult placed = placeJob(job->cluster, job->run, running->runs, options);
    if (placed.placements.empty()) {
        io.err << printablePath(p.positional[1]) << ": cannot be placed: " << placed.nothingFits
               << "\n";
        return kExitBadInput;
    }
    if (!p.has("--json")) {
        printPlacements(placed, job->run.name, io.out);
        return kExitOk;
    }
    json placements = json::array();
    for (const JobPlacement& pl : placed.placements) {
        RunDesc placedRun = job->run;
        placedRun.allocation = pl.allocation;
        placements.push_back({{"allocation", allocationJson(placedRun)},
                              {"step_time_s", pl.stepTimeS},
                              {"others_slowed_s", pl.othersSlowedS},
                              {"leaves", pl.leaves},
                              {"gpus_held", pl.gpusHeld}});
    }
    io.out << json{{"placements", placements}, {"candidates", placed.candidatesFound}}.dump(2)
           << "\n";
    return kExitOk;
}

} // namespace cs::cli
