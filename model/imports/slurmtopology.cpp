// topology.conf as slurm.conf(5) and topology.conf(5) describe it: one record a line
// (continued by a trailing backslash), Key=Value pairs, '#' comments, hostlists.

#include "slurmtopology.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "clusterdocument.h"
#include "hostlist.h"
#include "importcheck.h"
#include "loader.h"
#include "text.h"

namespace cs {

using nlohmann::json;

namespace {

// The most tiers a cluster description has; a deeper tree is described with this many.
constexpr int kMaxTiers = 3;

// The deepest switch tree read: real fabrics have two to four tiers, so a chain of switches
// deeper than this is a mistake (or a loop too long to tell from one) and is refused.
constexpr int kMaxSwitchTiers = 64;

struct Pair {
    std::string key; // lower case: Slurm's keys are case-insensitive
    std::string written;
    std::string value;
    SourcePlace place;
};

struct Record {
    std::vector<Pair> pairs;
    SourcePlace place;

    const Pair* find(const std::string& key) const
    {
        for (const Pair& p : pairs) {
            if (p.key == key)
                return &p;
        }
        return nullptr;
    }
};

std::vector<Record> readRecords(const SourceText& source, ImportReport& report)
{
    std::vector<Record> records;
    Record current;
    const std::vector<std::string_view> lines = textLines(source.text);
    for (size_t n = 0; n < lines.size(); ++n) {
        const int line = int(n) + 1;
        std::string text(lines[n].substr(0, lines[n].find('#')));
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
            text.pop_back();
        const bool continued = !text.empty() && text.back() == '\\';
        if (continued)
            text.pop_back();
        size_t i = 0;
        while (i < text.size()) {
            while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
                ++i;
            if (i == text.size())
                break;
            const size_t wordEnd = std::min(text.find_first_of(" \t", i), text.size());
            const std::string word = text.substr(i, wordEnd - i);
            const SourcePlace place{source.file, line, int(i) + 1, ""};
            const size_t eq = word.find('=');
            if (eq == std::string::npos || eq == 0)
                report.note(place, cs::inQuotes(word) + " is not Key=Value: ignored");
            else
                current.pairs.push_back({lowerCase(word.substr(0, eq)), word.substr(0, eq),
                                         word.substr(eq + 1), place});
            if (current.pairs.size() == 1)
                current.place = place;
            i = wordEnd;
        }
        if (!continued && !current.pairs.empty()) {
            records.push_back(std::move(current));
            current = Record{};
        }
    }
    if (!current.pairs.empty())
        records.push_back(std::move(current));
    return records;
}

struct Switch {
    std::string name;
    std::vector<std::string> nodes;
    std::vector<std::string> children; // switches
    SourcePlace place;
};

struct Block {
    std::string name;
    std::vector<std::string> nodes;
    SourcePlace place;
};

class TopologyReader {
public:
    TopologyReader(const SourceText& source, const SlurmClusterOptions& options,
                   ImportReport& report)
        : m_source(source)
        , m_options(options)
        , m_report(report)
    {
    }

    std::optional<json> read()
    {
        for (const Record& r : readRecords(m_source, m_report))
            record(r);
        if (failed())
            return std::nullopt;
        if (m_switches.empty() && m_blocks.empty()) {
            m_report.error({m_source.file, 0, 0, ""},
                           "no SwitchName= or BlockName= lines: not a Slurm topology.conf");
            return std::nullopt;
        }
        const GpuSpec* gpu = findGpuIn(m_options.gpu);
        if (!gpu || gpu->name.size() != m_options.gpu.size()) {
            m_report.error({m_source.file, 0, 0, ""}, "--gpu " + cs::inQuotes(m_options.gpu) +
                                                          " is not a catalog GPU (" +
                                                          catalogNames() + ")");
            return std::nullopt;
        }
        return cluster(*gpu);
    }

private:
    bool failed() const { return m_report.errors.size() != m_errorsBefore; }

    void record(const Record& r)
    {
        if (const Pair* name = r.find("switchname")) {
            Switch s{name->value, {}, {}, r.place};
            for (const Pair& p : r.pairs) {
                if (p.key == "nodes")
                    s.nodes = hostsOf(p, "Nodes");
                else if (p.key == "switches")
                    s.children = hostsOf(p, "Switches");
                else if (p.key != "switchname" && p.key != "linkspeed")
                    m_report.note(p.place, p.written + "= ignored");
            }
            addSwitch(std::move(s));
        } else if (const Pair* block = r.find("blockname")) {
            Block b{block->value, {}, r.place};
            for (const Pair& p : r.pairs) {
                if (p.key == "nodes")
                    b.nodes = hostsOf(p, "Nodes");
                else if (p.key != "blockname")
                    m_report.note(p.place, p.written + "= ignored");
            }
            if (b.nodes.empty())
                m_report.note(b.place, "block " + cs::inQuotes(b.name) + " lists no nodes");
            else
                m_blocks.push_back(std::move(b));
        } else if (const Pair* sizes = r.find("blocksizes")) {
            m_blockSizes = *sizes;
        } else {
            m_report.note(r.place, r.pairs.front().written + "= ignored: not a topology record");
        }
    }

    std::vector<std::string> hostsOf(const Pair& p, const std::string& key)
    {
        std::string problem;
        auto list = expandHostlist(p.value, size_t(kMaxGpus), problem);
        if (!list) {
            m_report.error(p.place, key + "=" + printable(p.value) + ": " + problem);
            return {};
        }
        return *list;
    }

    void addSwitch(Switch s)
    {
        if (m_switchIndex.count(s.name)) {
            m_report.error(s.place, "switch " + cs::inQuotes(s.name) + " is defined twice");
            return;
        }
        if (s.nodes.empty() && s.children.empty())
            m_report.note(s.place, "switch " + cs::inQuotes(s.name) + " has no nodes or switches");
        m_switchIndex[s.name] = m_switches.size();
        m_switches.push_back(std::move(s));
    }

    // Tier of each switch: 1 for a leaf, one more than its highest child for the others.
    std::optional<int> tiers()
    {
        std::vector<int> tier(m_switches.size(), 0); // 0 unknown, -1 on the path being walked
        int most = 0;
        for (size_t top = 0; top < m_switches.size(); ++top) {
            if (!walkBelow(top, tier))
                return std::nullopt;
            most = std::max(most, tier[top]);
        }
        return most;
    }

    // Sets the tiers of `top` and of the switches below it, depth first without recursion (a
    // chain as long as the file may write must not exhaust the stack); false, with an error
    // naming the switch, on an undefined switch, a loop or a chain deeper than kMaxSwitchTiers.
    bool walkBelow(size_t top, std::vector<int>& tier)
    {
        struct Step {
            size_t index;
            size_t nextChild = 0;
            int tier = 1;
        };
        if (tier[top] > 0)
            return true;
        std::vector<Step> path{{top}};
        tier[top] = -1;
        while (!path.empty()) {
            Step& step = path.back();
            const Switch& s = m_switches[step.index];
            if (step.nextChild == s.children.size()) {
                const Step done = step;
                tier[done.index] = done.tier;
                path.pop_back();
                if (!path.empty())
                    path.back().tier = std::max(path.back().tier, done.tier + 1);
                if (done.tier > kMaxSwitchTiers)
                    return tooDeep(s, "has more than " + std::to_string(kMaxSwitchTiers) +
                                          " tiers of switches below it");
                continue;
            }
            const std::string& child = s.children[step.nextChild++];
            const auto it = m_switchIndex.find(child);
            if (it == m_switchIndex.end()) {
                m_report.error(s.place, "switch " + cs::inQuotes(s.name) +
                                            " names an undefined switch " + cs::inQuotes(child));
                return false;
            }
            const size_t c = it->second;
            if (tier[c] < 0) {
                m_report.error(s.place, "the switches loop: " + cs::inQuotes(s.name) +
                                            " is below itself (through " + cs::inQuotes(child) +
                                            ")");
                return false;
            }
            if (tier[c] > 0) {
                step.tier = std::max(step.tier, tier[c] + 1);
            } else if (path.size() == size_t(kMaxSwitchTiers)) {
                return tooDeep(m_switches[c], "is more than " + std::to_string(kMaxSwitchTiers) +
                                                  " tiers below switch " +
                                                  cs::inQuotes(m_switches[top].name) + " (line " +
                                                  std::to_string(m_switches[top].place.line) + ")");
            } else {
                tier[c] = -1;
                path.push_back({c});
            }
        }
        return true;
    }

    bool tooDeep(const Switch& s, const std::string& where)
    {
        m_report.error(s.place, "switch " + cs::inQuotes(s.name) + " " + where +
                                    ": a chain of switches this long, or a loop, is no fabric "
                                    "(at most " +
                                    std::to_string(kMaxSwitchTiers) + " tiers are read)");
        return false;
    }

    struct Rack {
        std::string name;
        std::vector<std::string> nodes;
        SourcePlace place;
    };

    // Racks as groups of nodes, in file order: the blocks, or else the leaves.
    std::vector<Rack> racks() const
    {
        std::vector<Rack> out;
        if (!m_blocks.empty()) {
            for (const Block& b : m_blocks)
                out.push_back({"block " + b.name, b.nodes, b.place});
            return out;
        }
        for (const Switch& s : m_switches) {
            if (!s.nodes.empty())
                out.push_back({"leaf " + s.name, s.nodes, s.place});
        }
        return out;
    }

    std::optional<json> cluster(const GpuSpec& gpu)
    {
        const auto tierCount = tiers();
        if (failed())
            return std::nullopt;
        std::vector<std::string> notes;
        auto assume = [&](const SourcePlace& at, const std::string& message) {
            m_report.note(at, message);
            notes.push_back(message);
        };
        const auto groups = racks();
        size_t perRack = 0;
        for (const Rack& rack : groups)
            perRack = std::max(perRack, rack.nodes.size());
        if (!m_blocks.empty() && m_blockSizes) {
            const auto base = m_blockSizes->value.substr(0, m_blockSizes->value.find(','));
            if (!base.empty() && base.size() < 6 &&
                std::all_of(base.begin(), base.end(),
                            [](unsigned char c) { return std::isdigit(c); }) &&
                size_t(std::stoi(base)) >= perRack)
                perRack = size_t(std::stoi(base));
        }
        // Every node once, numbered rack-major; the places a short rack leaves are out of service.
        std::map<std::string, int64_t> index;
        json outOfService = json::array();
        for (size_t r = 0; r < groups.size(); ++r) {
            const auto& [name, nodes, place] = groups[r];
            for (size_t k = 0; k < nodes.size(); ++k) {
                if (!index.emplace(nodes[k], int64_t(r * perRack + k)).second) {
                    m_report.error(m_blocks.empty() ? m_switches.front().place
                                                    : m_blocks.front().place,
                                   "node " + cs::inQuotes(nodes[k]) + " is in two " +
                                       (m_blocks.empty() ? "leaves" : "blocks"));
                    return std::nullopt;
                }
            }
            for (size_t k = nodes.size(); k < perRack; ++k)
                outOfService.push_back(int64_t(r * perRack + k));
            if (nodes.size() < perRack)
                assume(place, name + " lists " + std::to_string(nodes.size()) + " of " +
                                  std::to_string(perRack) +
                                  " nodes: the other places are out of "
                                  "service");
        }
        const int64_t gpus = int64_t(groups.size() * perRack) * m_options.gpusPerNode;
        if (perRack > 1024 || groups.size() > 65536 || gpus > kMaxGpus) {
            m_report.error({m_source.file, 0, 0, ""},
                           withThousands(int64_t(groups.size())) + " racks of " +
                               std::to_string(perRack) + " nodes: more than a cluster may hold (" +
                               withThousands(kMaxGpus) + " GPUs, 1,024 nodes a rack)");
            return std::nullopt;
        }
        if (m_blocks.size() > 0 && !m_switches.empty()) {
            for (const Switch& s : m_switches)
                for (const std::string& n : s.nodes)
                    if (!index.count(n)) {
                        m_report.error(s.place, "node " + cs::inQuotes(n) + " of switch " +
                                                    cs::inQuotes(s.name) + " is in no block");
                        return std::nullopt;
                    }
        }
        readDown(index, outOfService);
        if (failed())
            return std::nullopt;

        ClusterParts c;
        c.name = "Slurm topology " + m_source.file.substr(m_source.file.find_last_of('/') + 1);
        c.gpu = gpu.name;
        c.racks = int(groups.size());
        c.nodesPerRack = int(perRack);
        c.gpusPerNode = m_options.gpusPerNode;
        c.rackDomain = !m_blocks.empty();
        c.scaleUpName = "NVLink";
        c.scaleUpGBps = gpu.nvlinkGBps;
        c.scaleOutName = "scale-out fabric";
        c.scaleOutGbps = typicalNicGbps(gpu);
        assume({m_source.file, 0, 0, ""}, "NIC rate assumed: scale_out.Gbps_per_gpu " +
                                              numberText(c.scaleOutGbps) + ", the " + gpu.name +
                                              "'s usual NIC (topology.conf gives no rates)");
        int tiers = tierCount.value_or(0);
        if (tiers == 0)
            tiers = fabricTiersFor(gpus);
        if (tiers > kMaxTiers) {
            assume(m_switches.front().place, std::to_string(tiers) + " switch tiers described as " +
                                                 std::to_string(kMaxTiers));
            tiers = kMaxTiers;
        }
        c.topology = {{"kind", "rail-optimized"}, {"tiers", tiers}};
        leaves(c.topology, assume);
        if (!outOfService.empty()) {
            std::vector<int64_t> nodes = outOfService.get<std::vector<int64_t>>();
            std::sort(nodes.begin(), nodes.end());
            nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
            c.failures = {{"nodes", nodes}};
        }
        std::string text = "Imported from the Slurm topology " + m_source.file + ": " +
                           std::to_string(c.racks) + " " +
                           (m_blocks.empty() ? "leaves" : "blocks") + " as racks.";
        for (const std::string& n : notes)
            text += " " + asSentence(n);
        c.notes = text;
        json cluster = clusterDocument(c);
        if (!checkImportedCluster(cluster, {m_source.file, 0, 0, ""}, m_report))
            return std::nullopt;
        return cluster;
    }

    template <typename Assume> void leaves(json& topology, Assume assume) const
    {
        size_t most = 0;
        size_t fewest = SIZE_MAX;
        size_t count = 0;
        for (const Switch& s : m_switches) {
            if (s.nodes.empty())
                continue;
            ++count;
            most = std::max(most, s.nodes.size());
            fewest = std::min(fewest, s.nodes.size());
        }
        if (count == 0)
            return;
        topology["nodes_per_leaf"] = most;
        if (fewest != most)
            assume(m_switches.front().place, "uneven leaves: " + std::to_string(fewest) + " to " +
                                                 std::to_string(most) +
                                                 " nodes each; nodes_per_leaf is the largest");
        size_t roots = 0;
        std::set<std::string> children;
        for (const Switch& s : m_switches)
            children.insert(s.children.begin(), s.children.end());
        for (const Switch& s : m_switches)
            roots += children.count(s.name) ? 0 : 1;
        if (roots > 1)
            assume(m_switches.front().place,
                   std::to_string(roots) + " switches have no parent: Slurm sees separate trees; "
                                           "described as one fabric");
    }

    // --down FILE: one hostname or hostlist a line (anything after it on the line is ignored,
    // as in sinfo output).
    void readDown(const std::map<std::string, int64_t>& index, json& outOfService)
    {
        if (!m_options.down)
            return;
        const SourceText& down = *m_options.down;
        const std::vector<std::string_view> lines = textLines(down.text);
        for (size_t n = 0; n < lines.size(); ++n) {
            const int line = int(n) + 1;
            const std::string text(lines[n].substr(0, lines[n].find('#')));
            const size_t first = text.find_first_not_of(" \t\r");
            if (first == std::string::npos)
                continue;
            const std::string word = text.substr(first, text.find_first_of(" \t\r", first) - first);
            const SourcePlace place{down.file, line, int(first) + 1, ""};
            std::string problem;
            const auto hosts = expandHostlist(word, size_t(kMaxGpus), problem);
            if (!hosts) {
                m_report.error(place, problem);
                continue;
            }
            for (const std::string& h : *hosts) {
                const auto it = index.find(h);
                if (it == index.end())
                    m_report.note(place, cs::inQuotes(h) + " is not in the topology: ignored");
                else
                    outOfService.push_back(it->second);
            }
        }
    }

    const SourceText& m_source;
    const SlurmClusterOptions& m_options;
    ImportReport& m_report;
    size_t m_errorsBefore = m_report.errors.size();
    std::vector<Switch> m_switches;
    std::map<std::string, size_t> m_switchIndex;
    std::vector<Block> m_blocks;
    std::optional<Pair> m_blockSizes;
};

} // namespace

std::optional<json> importSlurmTopology(const SourceText& topology,
                                        const SlurmClusterOptions& options, ImportReport& report)
{
    if (options.gpusPerNode < 1 || options.gpusPerNode > 72) {
        report.error({topology.file, 0, 0, ""},
                     "--gpus-per-node must be 1 to 72, got " + std::to_string(options.gpusPerNode));
        return std::nullopt;
    }
    return TopologyReader(topology, options, report).read();
}

} // namespace cs
