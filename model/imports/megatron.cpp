// A Megatron launch: the command that runs the training script, its flags as Megatron-LM's
// argument parser reads them (megatron/training/arguments.py), the GPU count from the
// launcher, and the step times of its log.

#include "megatron.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "shellscript.h"
#include "steptimes.h"
#include "text.h"
#include "trainingsettings.h"

namespace cs {

using nlohmann::json;

namespace {

std::string flagSpelling(const std::string& name)
{
    std::string flag = "--" + name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

bool isFlag(const std::string& w)
{
    return w.size() > 2 && w.starts_with("--");
}

std::string baseName(const std::string& path)
{
    return path.substr(path.find_last_of('/') + 1);
}

std::optional<int64_t> positive(const std::string& text)
{
    if (text.empty() || text.size() > 9 ||
        !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
        return std::nullopt;
    const int64_t n = std::stoll(text);
    return n > 0 ? std::optional<int64_t>(n) : std::nullopt;
}

// The command that runs the training script.
struct Launch {
    std::vector<ShellWord> launcher; // before the script: torchrun, srun ... and their options
    std::vector<ShellWord> flags;    // after the script
    SourcePlace start;
    std::string script; // "pretrain_gpt.py"; empty for the flags alone
};

size_t scriptIndex(const ShellCommand& c)
{
    for (size_t i = 0; i < c.words.size(); ++i) {
        if (c.words[i].text.ends_with(".py"))
            return i;
    }
    return c.words.size();
}

bool hasModelFlags(const ShellCommand& c, size_t from)
{
    return std::any_of(c.words.begin() + long(from), c.words.end(), [](const ShellWord& w) {
        return w.text.starts_with("--num-layers") || w.text.starts_with("--hidden-size");
    });
}

// The first command running a *.py with model flags (else the first running a *.py); failing
// that, the flags alone, as in a file holding only the command line's arguments.
std::optional<Launch> findLaunch(const ShellScript& script, const SourcePlace& fileStart,
                                 ImportReport& report)
{
    const ShellCommand* chosen = nullptr;
    for (const ShellCommand& c : script.commands) {
        const size_t at = scriptIndex(c);
        if (c.sbatchDirective || at == c.words.size())
            continue;
        if (!chosen)
            chosen = &c;
        if (hasModelFlags(c, at)) {
            chosen = &c;
            break;
        }
    }
    if (chosen) {
        const size_t at = scriptIndex(*chosen);
        return Launch{{chosen->words.begin(), chosen->words.begin() + long(at)},
                      {chosen->words.begin() + long(at) + 1, chosen->words.end()},
                      chosen->place,
                      chosen->words[at].text};
    }
    Launch flagsOnly;
    for (const ShellCommand& c : script.commands) {
        if (c.sbatchDirective || c.words.empty() || !isFlag(c.words.front().text))
            continue;
        if (flagsOnly.flags.empty())
            flagsOnly.start = c.place;
        flagsOnly.flags.insert(flagsOnly.flags.end(), c.words.begin(), c.words.end());
    }
    if (!flagsOnly.flags.empty())
        return flagsOnly;
    report.error(fileStart, "no Megatron launch found: expected a command running "
                            "pretrain_gpt.py (or another *.py) with its flags, or the flags alone");
    return std::nullopt;
}

// Flags as argparse reads them: "--name value...", "--name=value", "--switch". A later flag
// replaces an earlier one.
TrainingSettings readFlags(const std::vector<ShellWord>& words, ImportReport& report)
{
    TrainingSettings settings;
    const std::set<std::string>& known = knownSettingNames();
    for (size_t i = 0; i < words.size(); ++i) {
        const ShellWord& w = words[i];
        if (!isFlag(w.text)) {
            report.note(w.place, cs::inQuotes(w.text) + " is not a flag: ignored");
            continue;
        }
        std::string name = w.text.substr(2);
        Setting setting{{}, w.place};
        if (const size_t eq = name.find('='); eq != std::string::npos) {
            setting.values.push_back(name.substr(eq + 1));
            name.resize(eq);
        } else {
            while (i + 1 < words.size() && !isFlag(words[i + 1].text))
                setting.values.push_back(words[++i].text);
        }
        std::string canonical = name;
        std::replace(canonical.begin(), canonical.end(), '-', '_');
        if (!known.count(canonical) || canonical == "world_size") {
            report.note(w.place, "--" + printable(name) + " ignored");
            continue;
        }
        if (const auto earlier = settings.find(canonical); earlier != settings.end())
            report.note(w.place, "--" + printable(name) + " given again (first at line " +
                                     std::to_string(earlier->second.place.line) +
                                     "): the later one counts");
        settings[canonical] = std::move(setting);
    }
    return settings;
}

// --- the GPU count -------------------------------------------------------------------------

struct Count {
    int64_t value = 0;
    SourcePlace place;
    std::string said; // "--nnodes 16", "NNODES=16"
};

struct WorldParts {
    std::optional<Count> nodes;
    std::optional<Count> perNode;
    std::optional<Count> total;
    bool torchrun = false;
};

enum class Part { None, Nodes, PerNode, Total };

Part partOf(std::string option)
{
    std::replace(option.begin(), option.end(), '_', '-');
    if (option == "--nnodes" || option == "--nodes" || option == "-N" || option == "--num-nodes")
        return Part::Nodes;
    if (option == "--nproc-per-node" || option == "--ntasks-per-node" ||
        option == "--gpus-per-node" || option == "--num-gpus")
        return Part::PerNode;
    if (option == "--ntasks" || option == "-n" || option == "-np" || option == "--np")
        return Part::Total;
    return Part::None;
}

// A count as launchers write it: "16", "gpu:8" (a type before the count), "1:4" (elastic
// minimum and maximum: the maximum taken).
std::optional<int64_t> launcherCount(const std::string& value, Part part)
{
    const size_t colon = value.find_last_of(':');
    if (colon != std::string::npos && part != Part::Total)
        return positive(value.substr(colon + 1));
    return positive(value);
}

void setPart(WorldParts& parts, Part part, Count count)
{
    std::optional<Count>& slot = part == Part::Nodes     ? parts.nodes
                                 : part == Part::PerNode ? parts.perNode
                                                         : parts.total;
    if (!slot)
        slot = std::move(count);
}

bool isTorchrun(const std::string& word)
{
    return baseName(word) == "torchrun" || word.starts_with("torch.distributed.");
}

void readOptions(const std::vector<ShellWord>& words, WorldParts& parts, ImportReport& report)
{
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i].text;
        if (w.size() < 2 || w[0] != '-')
            continue;
        std::string option = w;
        std::string value;
        const ShellWord* valueWord = &words[i];
        if (const size_t eq = w.find('='); eq != std::string::npos) {
            option = w.substr(0, eq);
            value = w.substr(eq + 1);
        } else if (w.size() > 2 && w[1] == 'N' && std::isdigit(static_cast<unsigned char>(w[2]))) {
            option = "-N"; // srun -N16
            value = w.substr(2);
        }
        const Part part = partOf(option);
        if (part == Part::None)
            continue;
        if (value.empty() && i + 1 < words.size() && option == w) {
            valueWord = &words[++i];
            value = valueWord->text;
        }
        const auto n = launcherCount(value, part);
        if (!n) {
            report.note(valueWord->place,
                        option + " " + cs::inQuotes(value) + " is not known before the job runs");
            continue;
        }
        setPart(parts, part, {*n, words[i].place, option + " " + value});
    }
}

// torchrun's options first: under "srun --ntasks-per-node=1 torchrun --nproc-per-node 4", each
// node runs one torchrun, which starts a process per GPU.
void readLauncher(const std::vector<ShellWord>& words, WorldParts& parts, ImportReport& report)
{
    const auto torchrun = std::find_if(words.begin(), words.end(),
                                       [](const ShellWord& w) { return isTorchrun(w.text); });
    parts.torchrun = parts.torchrun || torchrun != words.end();
    readOptions({torchrun, words.end()}, parts, report);
    readOptions({words.begin(), torchrun}, parts, report);
}

void readVariables(const ShellScript& script, WorldParts& parts)
{
    static const std::vector<std::pair<std::string, Part>> kNames{
        {"NNODES", Part::Nodes},
        {"NUM_NODES", Part::Nodes},
        {"N_NODES", Part::Nodes},
        {"NODES", Part::Nodes},
        {"SLURM_NNODES", Part::Nodes},
        {"SLURM_JOB_NUM_NODES", Part::Nodes},
        {"DGXNNODES", Part::Nodes},
        {"GPUS_PER_NODE", Part::PerNode},
        {"NPROC_PER_NODE", Part::PerNode},
        {"NGPUS_PER_NODE", Part::PerNode},
        {"NUM_GPUS_PER_NODE", Part::PerNode},
        {"DGXNGPU", Part::PerNode},
        {"WORLD_SIZE", Part::Total},
    };
    for (const auto& [name, part] : kNames) {
        for (const ShellVariable& v : script.variables) {
            if (v.name != name)
                continue;
            if (const auto n = positive(v.value))
                setPart(parts, part, {*n, v.place, name + "=" + v.value});
        }
    }
}

// The GPU count, with what it came from; nothing when the files do not say.
std::optional<Count> worldSize(const ShellScript& script, const Launch& launch,
                               ImportReport& report)
{
    WorldParts parts;
    readLauncher(launch.launcher, parts, report);
    for (const ShellCommand& c : script.commands) {
        if (c.sbatchDirective)
            readLauncher(c.words, parts, report);
    }
    readVariables(script, parts);
    if (parts.nodes && parts.perNode)
        return Count{parts.nodes->value * parts.perNode->value, parts.nodes->place,
                     parts.nodes->said + " x " + parts.perNode->said};
    if (parts.total)
        return parts.total;
    if (parts.perNode && parts.torchrun && !parts.nodes)
        return Count{parts.perNode->value, parts.perNode->place,
                     parts.perNode->said + " on one node (torchrun's default --nnodes 1)"};
    report.note(launch.start,
                parts.nodes ? "GPUs per node not found: dp is left to the cluster"
                            : "no GPU count found (torchrun --nnodes/--nproc-per-node, srun "
                              "-N/--ntasks-per-node, NNODES/GPUS_PER_NODE): dp is left to the "
                              "cluster");
    return std::nullopt;
}

// --- the log -------------------------------------------------------------------------------

// Which entries cover the first kWarmupIterations iterations of the log.
void markWarmup(MegatronLogTimes& t)
{
    const size_t n = t.stepTimesS.size();
    const bool numbered =
        std::all_of(t.iterations.begin(), t.iterations.end(), [](int64_t i) { return i > 0; });
    if (!numbered) {
        t.warmupEntries = std::min<size_t>(size_t(kWarmupIterations), n);
        t.warmupIterations = int64_t(t.warmupEntries);
    } else {
        const int64_t interval = n > 1 && t.iterations[1] > t.iterations[0]
                                     ? t.iterations[1] - t.iterations[0]
                                     : std::min<int64_t>(t.iterations[0], 1);
        const int64_t start = t.iterations[0] - interval; // the iteration the log resumes after
        size_t i = 0;
        while (i < n && (i == 0 ? start : t.iterations[i - 1]) - start < kWarmupIterations)
            ++i;
        t.warmupEntries = i;
        t.warmupIterations = i == 0 ? 0 : t.iterations[i - 1] - start;
    }
    if (t.warmupEntries >= n) { // too short a log to leave anything out
        t.warmupEntries = 0;
        t.warmupIterations = 0;
    }
}

// The X of "elapsed time per iteration (ms): X" as written (digits, '.', 'e', signs) and its
// 1-based column; nothing when the line has none. Read by hand rather than by a regular
// expression: a log has a line an iteration, millions of them.
struct LoggedTime {
    std::string text;
    size_t column = 0;
};

std::optional<LoggedTime> loggedTimeOf(std::string_view line)
{
    static constexpr std::string_view kLabel = "elapsed time per iteration (ms):";
    for (size_t at = line.find(kLabel); at != std::string_view::npos;
         at = line.find(kLabel, at + 1)) {
        size_t i = at + kLabel.size();
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
            ++i;
        const size_t start = i;
        while (i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) ||
                                   std::string_view(".eE+-").find(line[i]) != std::string::npos))
            ++i;
        if (i > start)
            return LoggedTime{std::string(line.substr(start, i - start)), start + 1};
    }
    return std::nullopt;
}

// The N of "iteration N/" (blanks before N, and maybe before the slash); 0 when the line has
// none or N has 12 digits or more.
int64_t iterationOf(std::string_view line)
{
    auto isBlank = [&](size_t i) {
        return i < line.size() && std::isspace(static_cast<unsigned char>(line[i]));
    };
    static constexpr std::string_view kWord = "iteration";
    for (size_t at = line.find(kWord); at != std::string_view::npos;
         at = line.find(kWord, at + 1)) {
        size_t i = at + kWord.size();
        if (!isBlank(i))
            continue;
        while (isBlank(i))
            ++i;
        const size_t digits = i;
        while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])))
            ++i;
        const size_t count = i - digits;
        while (isBlank(i))
            ++i;
        if (count > 0 && i < line.size() && line[i] == '/')
            return count < 12 ? std::stoll(std::string(line.substr(digits, count))) : 0;
    }
    return 0;
}

} // namespace

std::vector<double> MegatronLogTimes::measuredS() const
{
    return {stepTimesS.begin() + long(warmupEntries), stepTimesS.end()};
}

Measured measuredOfLog(const MegatronLogTimes& times, const std::string& logFile)
{
    const std::vector<double> measured = times.measuredS();
    return {median(measured), "median of " + std::to_string(measured.size()) +
                                  " logged iteration times in " + baseName(logFile) +
                                  ", the first " + std::to_string(times.warmupEntries) +
                                  " entries (" + std::to_string(times.warmupIterations) +
                                  " iterations of warm-up) left out"};
}

std::optional<MegatronLogTimes> readMegatronLog(const SourceText& log, ImportReport& report)
{
    MegatronLogTimes times;
    const std::vector<std::string_view> lines = textLines(log.text);
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string_view text = lines[i].substr(0, 4096);
        const int line = int(i) + 1;
        const auto time = loggedTimeOf(text);
        if (!time)
            continue;
        const double ms = decimalOf(time->text).value_or(0);
        if (ms > 0 && ms < 1e9) {
            times.stepTimesS.push_back(std::round(ms * 1000) / 1e6); // to the microsecond
            times.iterations.push_back(iterationOf(text));
        } else {
            report.note({log.file, line, int(time->column), ""},
                        "the iteration time " + cs::inQuotes(time->text) + " is not read");
        }
    }
    if (times.stepTimesS.empty()) {
        report.error({log.file, 0, 0, ""},
                     "no \"elapsed time per iteration (ms): X\" lines: not a Megatron training "
                     "log");
        return std::nullopt;
    }
    markWarmup(times);
    return times;
}

std::optional<json> importMegatron(const std::vector<SourceText>& scripts, const SourceText* log,
                                   ImportReport& report)
{
    if (scripts.empty())
        return std::nullopt;
    const size_t errorsBefore = report.errors.size();
    const ShellScript script = readShellScripts(scripts, report);
    if (report.errors.size() != errorsBefore)
        return std::nullopt; // a limit reached, or wrong arithmetic: the command is not known
    const SourcePlace fileStart{scripts.front().file, 1, 1, ""};
    const std::optional<Launch> launch = findLaunch(script, fileStart, report);
    if (!launch)
        return std::nullopt;
    TrainingSettings settings = readFlags(launch->flags, report);
    // NCCL's NVLink SHARP, as the script's environment leaves it (the containers turn it off).
    for (const ShellVariable& v : script.variables)
        if (v.name == "NCCL_NVLS_ENABLE")
            settings["nccl_nvls_enable"] = {{v.value}, v.place};
    const std::optional<Count> world = worldSize(script, *launch, report);
    if (world)
        settings["world_size"] = {{std::to_string(world->value)}, world->place};
    const std::string file = baseName(scripts.back().file);
    SettingsOrigin origin{"Megatron-LM launch " + file,
                          "the Megatron-LM launch command",
                          launch->start,
                          flagSpelling,
                          launch->script,
                          true};
    std::optional<json> run = runFromSettings(settings, origin, report);
    std::optional<MegatronLogTimes> times;
    if (log)
        times = readMegatronLog(*log, report);
    if (!run || (log && !times))
        return std::nullopt;
    if (world)
        appendNote(*run, withThousands(world->value) + " GPUs: " + world->said + ".");
    if (times) {
        const Measured measured = measuredOfLog(*times, log->file);
        (*run)["measured"] = {{"step_time_s", measured.stepTimeS}, {"source", measured.source}};
        const std::vector<double> all = times->measuredS();
        (*run)[kMeasuredStepTimesKey] = keptStepTimes(all);
        report.note({log->file, 0, 0, ""}, "measured step time: " + measured.source);
        if (const std::string kept = keptStepTimesNote(all.size()); !kept.empty()) {
            report.note({log->file, 0, 0, ""}, kept);
            appendNote(*run, asSentence(kept));
        }
    }
    return run;
}

} // namespace cs
