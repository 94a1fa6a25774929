// The files of a profile read one after the other into one run's measurement: which files make
// it (one world size, each rank once), the steps they share, the aligned clocks, the step time.

#include "profile.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "clockalignment.h"
#include "statistics.h"
#include "text.h"

namespace cs {

namespace fs = std::filesystem;

namespace {

bool isTraceName(const std::string& name)
{
    auto endsWith = [&](std::string_view tail) {
        return name.size() >= tail.size() &&
               name.compare(name.size() - tail.size(), tail.size(), tail.data(), tail.size()) == 0;
    };
    return endsWith(".json") || endsWith(".json.gz");
}

int64_t sizeOf(const std::string& path)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    return ec ? 0 : int64_t(size);
}

// The world size most files give (the first file's on a tie); the other files refused.
void keepOneRun(std::vector<RankProfile>& ranks, Diagnostics& errors)
{
    std::map<int, int> count;
    for (const RankProfile& r : ranks)
        ++count[r.worldSize];
    int world = ranks.empty() ? 0 : ranks.front().worldSize;
    for (const auto& [size, n] : count)
        if (n > count[world])
            world = size;
    std::vector<RankProfile> kept;
    for (RankProfile& r : ranks) {
        if (r.worldSize != world) {
            errors.atPointer(r.file, "/distributedInfo/world_size",
                             "from another run: world size " + std::to_string(r.worldSize) +
                                 ", the other files' " + std::to_string(world));
            continue;
        }
        kept.push_back(std::move(r));
    }
    ranks = std::move(kept);
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const RankProfile& a, const RankProfile& b) { return a.rank < b.rank; });
    kept.clear();
    for (RankProfile& r : ranks) {
        if (!kept.empty() && kept.back().rank == r.rank) {
            errors.atPointer(r.file, "/distributedInfo/rank",
                             "rank " + std::to_string(r.rank) + " again: " +
                                 printablePath(kept.back().file) + " holds it already");
            continue;
        }
        kept.push_back(std::move(r));
    }
    ranks = std::move(kept);
}

std::string stepList(const std::vector<int64_t>& numbers)
{
    std::string s;
    for (size_t i = 0; i < numbers.size() && i < 5; ++i)
        s += (i ? ", #" : "#") + std::to_string(numbers[i]);
    if (numbers.size() > 5)
        s += " and " + std::to_string(numbers.size() - 5) + " more";
    return s;
}

// The step numbers every rank has; the others noted with their file.
std::vector<int64_t> commonSteps(const std::vector<RankProfile>& ranks, Diagnostics& notes)
{
    std::vector<int64_t> common;
    bool first = true;
    for (const RankProfile& r : ranks) {
        if (r.steps.empty())
            continue;
        std::vector<int64_t> mine;
        for (const StepFigures& s : r.steps)
            mine.push_back(s.number);
        std::sort(mine.begin(), mine.end());
        if (first)
            common = mine;
        else {
            std::vector<int64_t> both;
            std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(),
                                  std::back_inserter(both));
            common = std::move(both);
        }
        first = false;
    }
    for (const RankProfile& r : ranks) {
        std::vector<int64_t> extra;
        for (const StepFigures& s : r.steps)
            if (!std::binary_search(common.begin(), common.end(), s.number))
                extra.push_back(s.number);
        if (!extra.empty())
            notes.atPointer(r.file, "",
                            "steps that not every rank has (" + stepList(extra) +
                                "): left out of the step time");
    }
    return common;
}

double medianOver(const RankProfile& r, const std::vector<int64_t>& steps)
{
    std::vector<double> d;
    for (const StepFigures& s : r.steps)
        if (steps.empty() || std::binary_search(steps.begin(), steps.end(), s.number))
            d.push_back(s.durationS);
    return median(d);
}

double busyOver(const RankProfile& r)
{
    std::vector<double> d;
    for (const StepFigures& s : r.steps)
        d.push_back(s.computeBusyS + s.exposedCommS);
    return median(d);
}

void stepTimeAndSlowest(MeasuredProfile& p, const std::vector<int64_t>& common)
{
    std::vector<double> longest;
    for (int64_t n : common) {
        double t = 0;
        for (const RankProfile& r : p.ranks)
            if (const StepFigures* s = r.step(n))
                t = std::max(t, s->durationS);
        longest.push_back(t);
    }
    double slowest = -1;
    double slowestBusy = 0;
    for (const RankProfile& r : p.ranks) {
        const double t = medianOver(r, common);
        const double busy = busyOver(r);
        const bool tie = slowest >= 0 && std::abs(t - slowest) <= 1e-3 * slowest;
        if (slowest < 0 || (tie ? busy > slowestBusy : t > slowest)) {
            slowest = tie ? std::max(t, slowest) : t;
            slowestBusy = busy;
            p.slowestRank = r.rank;
        }
        if (common.empty())
            longest.push_back(t);
    }
    p.stepTimeS = median(longest);
}

} // namespace

double RankProfile::medianStepS() const
{
    std::vector<double> d;
    for (const StepFigures& s : steps)
        d.push_back(s.durationS);
    return median(d);
}

const StepFigures* RankProfile::step(int64_t number) const
{
    for (const StepFigures& s : steps)
        if (s.number == number)
            return &s;
    return nullptr;
}

std::vector<std::string> profileFilesOf(const std::vector<std::string>& paths, Diagnostics& errors)
{
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            files.push_back(path); // reading it says what is wrong, if anything
            continue;
        }
        std::vector<std::string> inFolder;
        for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
            const std::string name = e.path().filename().string();
            if (isTraceName(name) && e.is_regular_file(ec))
                inFolder.push_back(e.path().string());
        }
        if (ec)
            errors.atPointer(path, "", "cannot be read: " + ec.message());
        else if (inFolder.empty())
            errors.atPointer(path, "", "a folder with no trace in it (*.json, *.json.gz)");
        std::sort(inFolder.begin(), inFolder.end());
        files.insert(files.end(), inFolder.begin(), inFolder.end());
    }
    return files;
}

MeasuredProfile readProfile(const std::vector<std::string>& paths,
                            const ReadProfileOptions& options)
{
    MeasuredProfile p;
    std::vector<std::string> files = profileFilesOf(paths, p.errors);
    if (files.size() > kMaxProfileFiles) {
        p.errors.atPointer(files[kMaxProfileFiles], "",
                           "past " + withThousands(int64_t(kMaxProfileFiles)) +
                               " trace files, the most a profile holds: this one and the " +
                               withThousands(int64_t(files.size() - kMaxProfileFiles - 1)) +
                               " after it left out");
        files.resize(kMaxProfileFiles);
    }
    int64_t total = 0;
    for (const std::string& f : files)
        total += sizeOf(f);
    int64_t done = 0;
    size_t keptKernels = 0;
    std::vector<RankProfile> ranks;
    for (const std::string& f : files) {
        const RankReadContext context{&options, done, total};
        std::optional<RankProfile> rank = readRankTrace(f, context, p.notes, p.errors);
        if (options.cancel && options.cancel->load()) {
            p.cancelled = true;
            return p;
        }
        done += sizeOf(f);
        if (!rank)
            continue;
        if (keptKernels + rank->kernels.size() > kMaxKeptKernels && !rank->kernels.empty()) {
            p.notes.atPointer(f, "",
                              "its kernels are not kept for the timeline: the profile keeps at "
                              "most " +
                                  withThousands(int64_t(kMaxKeptKernels)) +
                                  " (its figures are read whole)");
            rank->kernels = {};
            rank->kernelNames = {};
        }
        keptKernels += rank->kernels.size();
        ranks.push_back(std::move(*rank));
    }
    keepOneRun(ranks, p.errors);
    p.ranks = std::move(ranks);
    if (p.ranks.empty())
        return p;
    p.worldSize = p.ranks.front().worldSize;
    if (int(p.ranks.size()) < p.worldSize)
        p.notes.atPointer("", "",
                          std::to_string(p.ranks.size()) + " of the run's " +
                              withThousands(p.worldSize) + " ranks have a trace");
    p.alignment = alignClocks(p.ranks);
    stepTimeAndSlowest(p, commonSteps(p.ranks, p.notes));
    return p;
}

} // namespace cs
