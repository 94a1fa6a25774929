#include "fabriccheck.h"

#include "fabricfactors.h"
#include "text.h"
#include "topology.h"

namespace cs {

namespace {

// "leaf0 to leaf255, spine0 to spine31 and nvsw-d0-0 to nvsw-d127-8"
std::string switchRanges(const Topology& t)
{
    std::vector<std::string> ranges;
    for (int tier = 1; tier <= 3; ++tier) {
        const int n = t.switchCount(tier);
        if (n == 0)
            continue;
        const int first = t.firstSwitchOfTier(tier);
        ranges.push_back(t.switchName(first) +
                         (n > 1 ? " to " + t.switchName(first + n - 1) : std::string()));
    }
    if (!t.nvSwitches().empty())
        ranges.push_back(t.nvSwitchName(0) + " to " +
                         t.nvSwitchName(int(t.nvSwitches().size()) - 1));
    return wordList(ranges, " and ");
}

std::string linkKinds(const Topology& t)
{
    std::vector<std::string> kinds;
    if (t.nvSwitchesPerDomain() > 0)
        kinds.push_back("nvl" + std::to_string(t.gpus().size() - 1) + "-" +
                        std::to_string(t.nvSwitchesPerDomain() - 1) + " (GPU to NVSwitch)");
    kinds.push_back("nic" + std::to_string(t.nics().size() - 1) + " (NIC to leaf)");
    if (t.linkCount(LinkClass::ScaleOut2) > 0)
        kinds.push_back("leaf0-spine0");
    if (t.linkCount(LinkClass::ScaleOut3) > 0)
        kinds.push_back("spine0-core0");
    return wordList(kinds, " and ");
}

constexpr const char* kListed = " (clusterscope-cli describe --json lists every name)";

} // namespace

void checkFabric(const ClusterDesc& cluster, const std::string& file, const std::string& base,
                 Diagnostics& diags)
{
    const FabricTopology& f = cluster.scaleOut.topology;
    if (f.rails > cluster.gpusPerNode)
        diags.atPointer(file, base + "/scale_out/topology/rails",
                        "rails = " + std::to_string(f.rails) +
                            " is more than gpus_per_node = " + std::to_string(cluster.gpusPerNode) +
                            ": a node has one NIC per GPU at most");
    const Failures& failures = cluster.failures;
    if (failures.switches.empty() && failures.links.empty())
        return;
    const Topology& t = *cachedTopology(cluster);
    for (size_t i = 0; i < failures.switches.size(); ++i) {
        const std::string& name = failures.switches[i];
        if (!t.findSwitch(name))
            diags.atPointer(file, base + "/failures/switches/" + std::to_string(i),
                            "no switch is named " + inQuotes(name) + "; the fabric has " +
                                switchRanges(t) + kListed);
    }
    for (size_t i = 0; i < failures.links.size(); ++i) {
        const std::string& name = failures.links[i];
        if (!t.findLink(name))
            diags.atPointer(file, base + "/failures/links/" + std::to_string(i),
                            "no link is named " + inQuotes(name) + "; links are named like " +
                                linkKinds(t) + kListed);
    }
}

void checkRunOnFabric(const ClusterDesc& cluster, const RunDesc& run, const std::string& file,
                      const std::string& base, Diagnostics& diags)
{
    if (!fabricCanContend(cluster))
        return;
    const std::shared_ptr<const FabricFactors> factors = cachedFabricFactors(cluster, run);
    if (factors->routable())
        return;
    const Failures& f = cluster.failures;
    const bool failed = !f.switches.empty() || !f.links.empty();
    diags.atPointer(file, base + (failed ? "/failures" : "/scale_out/topology/tiers"),
                    "the run " + inQuotes(run.name) + " cannot run: its " + factors->noPath);
}

} // namespace cs
