// MLPerf Training result logs and system descriptions.

#include "mllog.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include "clusterdocument.h"
#include "importcheck.h"
#include "jsonfields.h"
#include "loader.h"
#include "steptimes.h"
#include "text.h"

namespace cs {

using nlohmann::json;

namespace {

constexpr size_t kMaxLineBytes = 1 << 16;

// A step time, in seconds, from the shortest to the longest a run's measured.step_time_s may be
// (loader.cpp): anything outside is a broken log, not a measurement.
constexpr double kMinStepTimeS = 1e-6;
constexpr double kMaxStepTimeS = 1e6;

struct Event {
    std::string key;
    json value;
    json metadata;
    std::optional<double> timeMs; // nothing when time_ms is missing or not a finite number
    int line = 0;
};

std::optional<int64_t> integerOf(const json& v)
{
    if (v.is_number_integer())
        return v.get<int64_t>();
    if (v.is_number_float() && std::isfinite(v.get<double>()) &&
        v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 1e15)
        return int64_t(v.get<double>());
    return std::nullopt;
}

std::optional<double> numberOf(const json& v)
{
    if (v.is_number() && std::isfinite(v.get<double>()))
        return v.get<double>();
    return std::nullopt;
}

// Every ":::MLLOG {json}" line, whatever comes before the marker (a rank, a timestamp).
std::vector<Event> readEvents(const SourceText& log, ImportReport& report)
{
    static const std::string kMarker = ":::MLLOG";
    std::vector<Event> events;
    const std::vector<std::string_view> lines = textLines(log.text);
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string_view text = lines[i];
        const int line = int(i) + 1;
        const size_t marker = text.find(kMarker);
        if (marker == std::string_view::npos)
            continue;
        const std::string_view body = text.substr(marker + kMarker.size());
        json j = body.size() > kMaxLineBytes ? json() : json::parse(body, nullptr, false);
        if (!j.is_object() || !j.contains("key") || !j["key"].is_string()) {
            report.note({log.file, line, int(marker) + 1, ""},
                        "not a JSON object with a \"key\" after :::MLLOG: skipped");
            continue;
        }
        Event e;
        e.key = j["key"].get<std::string>();
        e.value = j.value("value", json());
        e.metadata = j.value("metadata", json::object());
        if (!e.metadata.is_object())
            e.metadata = json::object();
        e.timeMs = numberOf(j.value("time_ms", json()));
        e.line = line;
        events.push_back(std::move(e));
    }
    return events;
}

// The first `skip` entries left out when enough remain.
template <typename T> std::vector<T> afterWarmup(const std::vector<T>& values, size_t skip)
{
    if (values.size() <= skip)
        return values;
    return {values.begin() + long(skip), values.end()};
}

class MllogReader {
public:
    MllogReader(const SourceText& log, ImportReport& report)
        : m_log(log)
        , m_report(report)
    {
    }

    std::optional<MlperfResult> read()
    {
        const std::vector<Event> events = readEvents(m_log, m_report);
        for (const Event& e : events) {
            take(e);
            if (failed()) // the first line that breaks the log is the one to fix
                return std::nullopt;
        }
        if (!m_globalBatch) {
            m_report.error({m_log.file, 0, 0, ""},
                           "no global_batch_size event: the steps cannot be counted");
            return std::nullopt;
        }
        m_result.globalBatch = *m_globalBatch;
        if (m_runStart && m_runStop)
            m_result.runTimeS = (m_runStop->ms - m_runStart->ms) / 1000;
        countSteps();
        if (!measureSteps() || failed())
            return std::nullopt;
        if (!m_result.seqLen)
            m_report.note({m_log.file, 0, 0, ""}, "no max_sequence_length event");
        return m_result;
    }

private:
    struct Block {
        int64_t samples;
        double seconds;
        int startLine;
        int stopLine;
    };

    // A value read from a line.
    struct Logged {
        double value;
        int line;
    };

    struct Stamp {
        double ms;
        int line;
    };

    bool failed() const { return m_report.errors.size() != m_errorsBefore; }

    void refuse(int line, const std::string& message)
    {
        m_report.error({m_log.file, line, 1, ""}, message);
    }

    // An event's time_ms, which timing events need; nothing, and the log refused, without one.
    std::optional<double> timeOf(const Event& e)
    {
        if (!e.timeMs)
            refuse(e.line, e.key + " has no time_ms (a finite number of milliseconds)");
        return e.timeMs;
    }

    // A step time in range; false, and the log refused at `line`, otherwise.
    bool checkStep(double seconds, int line, const std::string& what)
    {
        if (std::isfinite(seconds) && seconds >= kMinStepTimeS && seconds <= kMaxStepTimeS)
            return true;
        refuse(line, what + " gives " + numberText(seconds) +
                         " s a step: a step time is from 0.000001 to " +
                         withThousands(int64_t(kMaxStepTimeS)) + " s");
        return false;
    }

    // A train_step_time value: seconds, within range.
    void takeStepTime(const json& value, int line)
    {
        const auto s =
            value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
        if (!s) {
            refuse(line,
                   "train_step_time " + printable(value.dump()) + " is not a number of seconds");
            return;
        }
        if (checkStep(*s, line, "train_step_time " + printable(value.dump())))
            m_stepTimes.push_back({*s, line});
    }

    void takeThroughput(const json& value, int line)
    {
        const auto t =
            value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
        if (!t || !std::isfinite(*t) || *t <= 0) {
            refuse(line, "tracked_stats throughput " + printable(value.dump()) +
                             " is not a positive number of samples a second");
            return;
        }
        m_throughputs.push_back({*t, line});
    }

    void takeStatus(const Event& stop)
    {
        const auto status = stop.metadata.find("status");
        if (status == stop.metadata.end())
            return;
        if (status->is_string())
            m_result.status = status->get<std::string>();
        else
            m_report.note({m_log.file, stop.line, 1, ""}, "run_stop's status is not a string");
    }

    void take(const Event& e)
    {
        const std::string& k = e.key;
        if (k == "global_batch_size") {
            m_globalBatch = integerOf(e.value);
            if (!m_globalBatch || *m_globalBatch < 1) {
                m_report.note({m_log.file, e.line, 1, ""}, "global_batch_size is not a count");
                m_globalBatch.reset();
            }
        } else if (k == "max_sequence_length" || k == "seq_length" || k == "sequence_length") {
            m_result.seqLen = integerOf(e.value);
        } else if (k == "run_start") {
            if (const auto t = timeOf(e); t && !m_runStart)
                m_runStart = Stamp{*t, e.line};
        } else if (k == "run_stop") {
            runStop(e);
        } else if (k == "block_start") {
            blockStart(e);
        } else if (k == "block_stop") {
            blockStop(e);
        } else if (k == "train_step_time") {
            takeStepTime(e.value, e.line);
        } else if (k == "tracked_stats" && e.value.is_object()) {
            if (e.value.contains("train_step_time"))
                takeStepTime(e.value["train_step_time"], e.line);
            else if (e.value.contains("throughput"))
                takeThroughput(e.value["throughput"], e.line);
        } else if (k == "train_samples") {
            m_trainSamples = integerOf(e.value);
        } else if (k == "submission_benchmark" && e.value.is_string()) {
            m_result.benchmark = e.value.get<std::string>();
        }
        if (const auto samples = integerOf(e.metadata.value("samples_count", json())))
            m_lastSamples = std::max(m_lastSamples.value_or(0), *samples);
    }

    void runStop(const Event& stop)
    {
        const auto t = timeOf(stop);
        if (!t)
            return;
        if (m_runStart && *t < m_runStart->ms) {
            refuse(stop.line, "run_stop at time_ms " + numberText(*t) +
                                  " is before run_start (line " + std::to_string(m_runStart->line) +
                                  ", time_ms " + numberText(m_runStart->ms) +
                                  "): the log runs backwards");
            return;
        }
        m_runStop = Stamp{*t, stop.line};
        takeStatus(stop);
    }

    void blockStart(const Event& start)
    {
        const auto t = timeOf(start);
        if (!t)
            return;
        if (m_lastBlockStop && *t < m_lastBlockStop->ms) {
            refuse(start.line, "block_start at time_ms " + numberText(*t) +
                                   " is before the block_stop of the block before (line " +
                                   std::to_string(m_lastBlockStop->line) + ", time_ms " +
                                   numberText(m_lastBlockStop->ms) + "): the log runs backwards");
            return;
        }
        m_blockStart = start;
    }

    void blockStop(const Event& stop)
    {
        const auto stopMs = timeOf(stop);
        if (!m_blockStart || !stopMs)
            return;
        const Event start = *m_blockStart;
        m_blockStart.reset();
        const double startMs = *start.timeMs;
        if (*stopMs < startMs) {
            refuse(stop.line, "block_stop at time_ms " + numberText(*stopMs) +
                                  " is before its block_start (line " + std::to_string(start.line) +
                                  ", time_ms " + numberText(startMs) + "): the log runs backwards");
            return;
        }
        m_lastBlockStop = Stamp{*stopMs, stop.line};
        const auto from = integerOf(start.metadata.value("samples_count", json()));
        const auto to = integerOf(stop.metadata.value("samples_count", json()));
        if (!from || !to)
            return;
        if (*to <= *from) {
            refuse(stop.line, "block_stop's samples_count " + std::to_string(*to) +
                                  " is not above its block_start's (line " +
                                  std::to_string(start.line) + ", " + std::to_string(*from) + ")");
            return;
        }
        m_blocks.push_back({*to - *from, (*stopMs - startMs) / 1000, start.line, stop.line});
    }

    void countSteps()
    {
        const int64_t gbs = *m_globalBatch;
        if (m_trainSamples && *m_trainSamples > 0) {
            m_result.steps = (*m_trainSamples + gbs - 1) / gbs;
        } else if (m_lastSamples && *m_lastSamples > 0) {
            m_result.steps = (*m_lastSamples + gbs - 1) / gbs;
            m_report.note({m_log.file, 0, 0, ""}, "no train_samples event: steps counted from the "
                                                  "last samples_count");
        }
    }

    bool measureSteps()
    {
        const double gbs = double(*m_globalBatch);
        if (!m_stepTimes.empty()) {
            const size_t skip = std::min<size_t>(10, m_stepTimes.size() / 2);
            return use(afterWarmup(m_stepTimes, skip), "train_step_time",
                       "median of train_step_time over " +
                           std::to_string(m_stepTimes.size() - skip) + " steps, the first " +
                           std::to_string(skip) + " left out as warm-up");
        }
        if (!m_blocks.empty()) {
            std::vector<Logged> perStep;
            for (const Block& b : m_blocks)
                perStep.push_back({b.seconds / (double(b.samples) / gbs), b.stopLine});
            const size_t skip = perStep.size() > 1 ? 1 : 0;
            return use(afterWarmup(perStep, skip),
                       "the block stopping here (block_start to block_stop over samples_count / "
                       "global_batch_size steps)",
                       "median over " + std::to_string(perStep.size() - skip) +
                           " training blocks (block_start to block_stop, samples_count / " +
                           "global_batch_size steps each)" +
                           (skip ? ", the first block left out as warm-up" : ""));
        }
        if (!m_throughputs.empty()) {
            std::vector<Logged> perStep;
            for (const Logged& t : m_throughputs)
                perStep.push_back({gbs / t.value, t.line});
            const size_t skip = perStep.size() > 1 ? 1 : 0;
            return use(afterWarmup(perStep, skip), "global_batch_size over this throughput",
                       "global_batch_size over the median tracked_stats throughput");
        }
        if (m_result.runTimeS && m_result.steps && *m_result.steps > 0) {
            m_report.note({m_log.file, 0, 0, ""},
                          "the step time is the run time over the steps, evaluation included");
            return use({{*m_result.runTimeS / double(*m_result.steps), m_runStop->line}},
                       "run_start to run_stop over the steps",
                       "run_start to run_stop over the steps: evaluation and start-up included");
        }
        m_report.error({m_log.file, 0, 0, ""},
                       "no step times: expected train_step_time events, block_start/block_stop "
                       "with samples_count, tracked_stats throughput, or run_start/run_stop with "
                       "train_samples");
        return false;
    }

    // The step times measured, each checked (`what` says what gave it, at its line); their
    // median, and an even sample of them when there are very many (steptimes.h).
    bool use(const std::vector<Logged>& perStep, const std::string& what, std::string source)
    {
        std::vector<double> seconds;
        seconds.reserve(perStep.size());
        for (const Logged& s : perStep) {
            if (!checkStep(s.value, s.line, what))
                return false;
            seconds.push_back(std::round(s.value * 1e6) / 1e6); // to the microsecond
        }
        m_result.stepTimeS = median(seconds);
        m_result.stepTimesS = keptStepTimes(seconds);
        if (const std::string kept = keptStepTimesNote(seconds.size()); !kept.empty()) {
            m_report.note({m_log.file, 0, 0, ""}, kept);
            source += "; " + kept;
        }
        m_result.stepSource = std::move(source);
        return true;
    }

    const SourceText& m_log;
    ImportReport& m_report;
    MlperfResult m_result;
    std::optional<int64_t> m_globalBatch;
    std::optional<int64_t> m_trainSamples;
    std::optional<int64_t> m_lastSamples;
    std::optional<Stamp> m_runStart;
    std::optional<Stamp> m_runStop;
    std::optional<Event> m_blockStart;
    std::optional<Stamp> m_lastBlockStop;
    std::vector<Block> m_blocks;
    std::vector<Logged> m_stepTimes;
    std::vector<Logged> m_throughputs;
    size_t m_errorsBefore = m_report.errors.size();
};

// --- system descriptions -----------------------------------------------------------------------

// A count given as a number or as text ("1344").
std::optional<int64_t> countField(const json& system, const std::string& key)
{
    const auto it = system.find(key);
    if (it == system.end())
        return std::nullopt;
    if (const auto n = integerOf(*it))
        return *n;
    if (it->is_string()) {
        const std::string& s = it->get_ref<const std::string&>();
        if (!s.empty() && s.size() < 10 &&
            std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
            return std::stoll(s);
    }
    return std::nullopt;
}

std::string textField(const json& system, const std::string& key)
{
    const auto it = system.find(key);
    return it != system.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct Link {
    std::string name;
    double perGpu = 0; // Gb/s for NICs, GB/s for NVLink
};

// A rate a regex matched as its number and its unit's G or T, in G; nothing when the number is
// too large for a double.
std::optional<double> rateInG(const std::smatch& match)
{
    const std::optional<double> value = decimalOf(match[1].str());
    if (!value)
        return std::nullopt;
    return *value * (std::toupper(match[2].str()[0]) == 'T' ? 1000 : 1);
}

// The fastest item of "1x Ethernet 100Gb/Sec, 8x NVIDIA Quantum-2 CX7 InfiniBand (400Gb/s)",
// per GPU.
std::optional<Link> scaleOutFrom(const std::string& text, int gpusPerNode)
{
    static const std::regex kRate(R"(([0-9]+(?:\.[0-9]+)?)\s*([GT])(?:b/s|bps|b/sec|bit/s|b\b))",
                                  std::regex::icase);
    static const std::regex kCount(R"((?:^|\s)([0-9]+)\s*x\b)", std::regex::icase);
    std::optional<Link> best;
    double bestTotal = 0;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(',', start), text.size());
        std::string item = text.substr(start, end - start);
        start = end + 1;
        item.erase(0, item.find_first_not_of(' '));
        std::smatch rate;
        if (item.size() > 512 || !std::regex_search(item, rate, kRate))
            continue;
        const std::optional<double> gbps = rateInG(rate);
        if (!gbps)
            continue;
        std::smatch count;
        const double n = std::regex_search(item, count, kCount) && count[1].length() < 5
                             ? decimalOf(count[1].str()).value_or(1)
                             : 1;
        if (n * *gbps > bestTotal) {
            bestTotal = n * *gbps;
            best = Link{item, n * *gbps / gpusPerNode};
        }
    }
    return best;
}

// "18x 5th Gen NVLink, 1.8TB/s" -> 1800 GB/s per GPU.
std::optional<double> nvlinkFrom(const std::string& text)
{
    static const std::regex kRate(R"(([0-9]+(?:\.[0-9]+)?)\s*([GT])B/s)", std::regex::icase);
    std::smatch m;
    if (text.size() > 512 || !std::regex_search(text, m, kRate))
        return std::nullopt;
    return rateInG(m);
}

// The largest count of nodes per rack, at most `most`, that fills racks exactly.
int nodesPerRackFor(int64_t nodes, int most)
{
    for (int n = most; n > 1; --n) {
        if (nodes % n == 0)
            return n;
    }
    return 1;
}

} // namespace

std::optional<MlperfResult> readMllog(const SourceText& log, ImportReport& report)
{
    return MllogReader(log, report).read();
}

json mlperfResultJson(const MlperfResult& r)
{
    auto orNull = [](const auto& v) { return v ? json(*v) : json(nullptr); };
    return {{"step_time_s", r.stepTimeS},
            {"global_batch", r.globalBatch},
            {"seq_len", orNull(r.seqLen)},
            {"steps", orNull(r.steps)},
            {"run_time_s", orNull(r.runTimeS)},
            {"step_times_s", r.stepTimesS},
            {"source", r.stepSource}};
}

std::optional<json> clusterFromSystemDescription(const SourceText& system, ImportReport& report)
{
    const std::optional<json> j = parseJson(system.text, system.file, report.errors);
    if (!j)
        return std::nullopt;
    if (!j->is_object()) {
        report.error({system.file, 0, 0, ""}, "a system description is a JSON object");
        return std::nullopt;
    }
    const size_t before = report.errors.size();
    auto required = [&](const std::string& key, const std::string& what) {
        const auto n = countField(*j, key);
        if (!n || *n < 1 || *n > kMaxGpus)
            report.error({system.file, 0, 0, "/" + key},
                         j->contains(key) ? "expected " + what + ", got " + j->at(key).dump()
                                          : "missing: " + what);
        return n.value_or(0);
    };
    const int64_t nodes = required("number_of_nodes", "the number of nodes");
    const int64_t gpusPerNode = required("accelerators_per_node", "the GPUs per node");
    const std::string model = textField(*j, "accelerator_model_name");
    const GpuSpec* gpu = findGpuIn(model);
    if (!gpu)
        report.error({system.file, 0, 0, "/accelerator_model_name"},
                     cs::inQuotes(model) + " names no catalog GPU (" + catalogNames() + ")");
    const std::string networking = textField(*j, "host_networking");
    const auto nic = gpusPerNode > 0 ? scaleOutFrom(networking, int(gpusPerNode)) : std::nullopt;
    if (!nic)
        report.error({system.file, 0, 0, "/host_networking"},
                     "no NIC rate in " + cs::inQuotes(networking) +
                         ": expected one such as \"8x 400Gb/s InfiniBand\"");
    if (report.errors.size() != before || !gpu || !nic)
        return std::nullopt;
    if (nodes * gpusPerNode > kMaxGpus) {
        report.error({system.file, 0, 0, "/number_of_nodes"}, withThousands(nodes * gpusPerNode) +
                                                                  " GPUs: more than " +
                                                                  withThousands(kMaxGpus));
        return std::nullopt;
    }

    ClusterParts c;
    c.name = textField(*j, "system_name");
    if (c.name.empty())
        c.name = textField(*j, "submitter") + " " + model;
    c.gpu = gpu->name;
    c.gpusPerNode = int(gpusPerNode);
    c.rackDomain = isRackScale(*gpu);
    std::string notes = "Imported from the MLPerf system description " + system.file + ".";
    if (c.rackDomain) {
        // NVL72 racks hold 18 trays; submissions often use 16 of them (64 GPUs).
        const int full = 72 / c.gpusPerNode;
        c.nodesPerRack = nodes % full == 0 ? full : nodesPerRackFor(nodes, 64 / c.gpusPerNode);
        notes += " " + std::to_string(c.nodesPerRack) +
                 " trays per NVL72 rack (one NVLink domain "
                 "each), assumed.";
    } else {
        c.nodesPerRack = nodesPerRackFor(nodes, 4);
        notes += " " + std::to_string(c.nodesPerRack) + " nodes per rack, assumed.";
    }
    c.racks = int(nodes / c.nodesPerRack);
    const std::string interconnect = textField(*j, "accelerator_interconnect");
    c.scaleUpName = interconnect.empty() ? "NVLink" : interconnect;
    c.scaleUpGBps = nvlinkFrom(interconnect).value_or(gpu->nvlinkGBps);
    c.scaleOutName = nic->name;
    c.scaleOutGbps = nic->perGpu;
    const std::string topology = textField(*j, "host_networking_topology");
    const std::string lowerTopology = lowerCase(topology);
    const bool fatTree = lowerTopology.find("fat") != std::string::npos &&
                         lowerTopology.find("rail") == std::string::npos;
    // "2-tier", "3 tier": the fabric's depth when the submission says it.
    static const std::regex kTiers(R"(([1-3])[- ]tier)", std::regex::icase);
    std::smatch said;
    const bool tiersSaid = topology.size() < 512 && std::regex_search(topology, said, kTiers);
    const int tiers = tiersSaid ? std::stoi(said[1].str()) : fabricTiersFor(nodes * gpusPerNode);
    c.topology = {{"kind", fatTree ? "fat-tree" : "rail-optimized"}, {"tiers", tiers}};
    notes += " Fabric: " + std::string(fatTree ? "fat tree" : "rail-optimized") +
             (topology.empty() ? " (assumed)" : " (\"" + topology + "\")") + ", " +
             std::to_string(tiers) + " tiers" +
             (tiersSaid ? "" : " (the fewest of 64-port switches that reach every GPU)") +
             " at full bisection, assumed.";
    c.notes = notes;
    json cluster = clusterDocument(c);
    if (!checkImportedCluster(cluster, {system.file, 0, 0, ""}, report))
        return std::nullopt;
    return cluster;
}

} // namespace cs
