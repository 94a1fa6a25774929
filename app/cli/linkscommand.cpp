// links: the traffic of one step on every link of the cluster.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <ostream>

#include <nlohmann/json.hpp>

#include "common.h"
#include "costmodel.h"
#include "jobcommands.h"
#include "jobs.h"
#include "linkloads.h"
#include "options.h"
#include "text.h"
#include "topology.h"

namespace cs::cli {

const CommandSpec kLinksSpec{
    "links",
    "CLUSTER RUN [RUN...]",
    2,
    SIZE_MAX,
    {{"--json", "",
      "print {step_time_s, links: [{name, tier, bytes, busy_s, utilization, dims}], "
      "tiers}"},
     {"--top", "N", "only the N busiest links (text: 20 unless given)"}},
    "the traffic of one step on every link, busiest first",
    "Routes the traffic of one predicted step of RUN over CLUSTER's links: every NVLink, NIC,\n"
    "leaf-spine and spine-core link with the bytes it carries (both directions together), its\n"
    "busy time (the busier direction's bytes over its bandwidth), its utilization (busy time\n"
    "over the step time, 0 to 1) and the parallel dimensions whose traffic it carries; then\n"
    "per tier the links, bytes and highest utilization. Links are listed busiest first.\n\n"
    "With several RUNs, several jobs on one cluster (each on its `allocation`): every job's\n"
    "traffic together, each job at its step with the others running, and each link names the\n"
    "jobs whose traffic it carries (--json: `jobs` per link, and {name, step_time_s} per job)."};

namespace {

constexpr size_t kTextTop = 20;

// With several jobs: which carry each link's traffic, by name.
struct LinkJobs {
    const JobsTraffic& traffic;
    const ClusterJobs& jobs;
    const JobsEvaluation& evaluation;

    std::vector<std::string> on(int link) const
    {
        std::vector<std::string> names;
        for (size_t j = 0; j < jobs.runs.size(); ++j)
            if (traffic.carries(size_t(link), int(j)))
                names.push_back(jobs.names[j]);
        return names;
    }
};

std::vector<std::string> dimWords(const LinkTraffic& t)
{
    std::vector<std::string> words;
    for (Dim d : kAllDims)
        if (t.carries(d))
            words.emplace_back(toString(d));
    return words;
}

// 32.75 GB, 262.10 TB, 2.25 PB
std::string bytesText(double bytes)
{
    static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    size_t unit = 0;
    while (bytes >= 1000 && unit + 1 < std::size(kUnits)) {
        bytes /= 1000;
        ++unit;
    }
    return fixed(bytes, unit == 0 ? 0 : 2) + " " + kUnits[unit];
}

void printText(const Topology& topo, const StepTraffic& traffic, size_t top, std::ostream& out,
               const LinkJobs* jobs = nullptr)
{
    if (jobs) {
        out << "step time with the others running:\n";
        size_t width = 0;
        for (const std::string& name : jobs->jobs.names)
            width = std::max(width, characters(printable(name)));
        for (size_t j = 0; j < jobs->jobs.runs.size(); ++j)
            out << "  " << padRight(printable(jobs->jobs.names[j]), width) << "  "
                << fixed(jobs->evaluation.jobs[j].shared.stepTimeS, 4) << " s\n";
    } else {
        out << "step time " << fixed(traffic.stepTimeS, 4) << " s\n";
    }
    out << "tier          links            bytes   max utilization\n";
    for (LinkClass cls : enumValues<LinkClass>()) {
        const TierTraffic& tier = traffic.tier(cls);
        if (tier.links == 0)
            continue;
        char line[160];
        std::snprintf(line, sizeof line, "%-11s %10s %16s   %s\n", toString(cls),
                      withThousands(tier.links).c_str(), bytesText(tier.bytes).c_str(),
                      percent(tier.maxUtilization).c_str());
        out << line;
    }
    const std::vector<int> hottest = traffic.hottest(top);
    out << "\nbusiest " << hottest.size() << " links:\n";
    out << "  name                  tier        utilization     busy          bytes  dims"
        << (jobs ? "  jobs" : "") << "\n";
    for (int l : hottest) {
        const LinkTraffic& t = traffic.links[size_t(l)];
        char line[200];
        std::snprintf(line, sizeof line, "  %-21s %-11s %11s %8s s %14s  ",
                      topo.linkName(l).c_str(), toString(topo.links()[size_t(l)].cls),
                      percent(t.utilization).c_str(), fixed(t.busyS, 4).c_str(),
                      bytesText(t.bytes).c_str());
        out << line << (t.dims ? wordList(dimWords(t), ", ") : "-");
        if (jobs) {
            std::vector<std::string> names = jobs->on(l);
            for (std::string& name : names)
                name = printable(name);
            out << "  " << (names.empty() ? "-" : wordList(names, ", "));
        }
        out << "\n";
    }
}

void printJson(const Topology& topo, const StepTraffic& traffic, size_t top, std::ostream& out,
               const LinkJobs* jobs = nullptr)
{
    using nlohmann::json;
    const std::vector<int> links = traffic.hottest(top);
    JsonObjectStream doc(out);
    if (jobs) {
        json steps = json::array();
        for (size_t j = 0; j < jobs->jobs.runs.size(); ++j)
            steps.push_back({{"name", jobs->jobs.names[j]},
                             {"step_time_s", jobs->evaluation.jobs[j].shared.stepTimeS}});
        doc.member("jobs", steps);
    } else {
        doc.member("step_time_s", traffic.stepTimeS);
    }
    doc.arrayMember("links", links.size(), [&](size_t i) {
        const int l = links[i];
        const LinkTraffic& t = traffic.links[size_t(l)];
        nlohmann::ordered_json link{{"name", topo.linkName(l)},
                                    {"tier", toString(topo.links()[size_t(l)].cls)},
                                    {"bytes", t.bytes},
                                    {"busy_s", t.busyS},
                                    {"utilization", t.utilization},
                                    {"dims", dimWords(t)}};
        if (jobs)
            link["jobs"] = jobs->on(l);
        return link.dump();
    });
    json tiers = json::object();
    for (LinkClass cls : enumValues<LinkClass>()) {
        const TierTraffic& tier = traffic.tier(cls);
        if (tier.links > 0)
            tiers[toString(cls)] = {{"links", tier.links},
                                    {"bytes", tier.bytes},
                                    {"max_utilization", tier.maxUtilization}};
    }
    doc.member("tiers", tiers);
    doc.close();
    out << "\n";
}

size_t linksShown(int top, bool asJson, const StepTraffic& traffic)
{
    return top > 0 ? size_t(top) : asJson ? traffic.links.size() : kTextTop;
}

int linksOfJobs(const ParsedArgs& p, size_t top, Io io)
{
    const std::optional<ClusterJobs> jobs =
        loadJobs(p.positional[0], {p.positional.begin() + 1, p.positional.end()}, true, io);
    if (!jobs)
        return kExitBadInput;
    const JobsEvaluation e = evaluateJobs(jobs->cluster, jobs->runs, {nullptr, false});
    const Topology topo(jobs->cluster);
    const JobsTraffic traffic = jobsTraffic(topo, jobs->runs, e);
    const LinkJobs linkJobs{traffic, *jobs, e};
    const size_t count = linksShown(int(top), p.has("--json"), traffic.total);
    if (p.has("--json"))
        printJson(topo, traffic.total, count, io.out, &linkJobs);
    else
        printText(topo, traffic.total, count, io.out, &linkJobs);
    return kExitOk;
}

} // namespace

int runLinks(const Args& args, Io io)
{
    auto parsed = parseCommand(kLinksSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const bool asJson = p.has("--json");
    const std::optional<int> top = p.positiveInt("--top", 0, io);
    if (!top)
        return kExitUsage;
    if (p.positional.size() > 2)
        return linksOfJobs(p, size_t(*top), io);
    const std::optional<ClusterRun> l =
        loadClusterAndRun(p.positional[0], p.positional[1], true, io);
    if (!l)
        return kExitBadInput;
    const Evaluation e = evaluate(l->cluster, l->run);
    const Topology topo(l->cluster);
    const StepTraffic traffic = stepTraffic(topo, l->run, e.stepTimeS);
    const size_t count = linksShown(*top, asJson, traffic);
    if (asJson)
        printJson(topo, traffic, count, io.out);
    else
        printText(topo, traffic, count, io.out);
    return kExitOk;
}

} // namespace cs::cli
