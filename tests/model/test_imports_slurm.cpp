// Slurm topology.conf files: leaves, tiers and racks as the file describes them.

#include <catch2/catch.hpp>

#include "importdata.h"
#include "loader.h"
#include "slurmtopology.h"

using namespace cs;
using nlohmann::json;

namespace {

std::optional<json> import(const std::string& text, ImportReport& report,
                           const SourceText* down = nullptr, const std::string& gpu = "H100",
                           int gpusPerNode = 8)
{
    return importSlurmTopology({"topology.conf", text}, {gpu, gpusPerNode, down}, report);
}

// The cluster without the newer fabric and failure fields, which the loader reads as the
// description library learns them.
ClusterDesc loadedCore(json cluster)
{
    cluster["scale_out"]["topology"].erase("nodes_per_leaf");
    cluster.erase("failures");
    Diagnostics diags;
    const auto c = clusterFromJson(cluster, "imported.cluster.json", "", diags);
    INFO(diags.formatAll() << cluster.dump(2));
    REQUIRE(c);
    return *c;
}

} // namespace

TEST_CASE("a tree topology of 128 nodes of 8 GPUs gives its leaves, spines and core",
          "[imports][slurm]")
{
    ImportReport report;
    const SourceText down = importSource("down-nodes.txt");
    const auto cluster = importSlurmTopology(importSource("h100-128nodes-topology.conf"),
                                             {"H100", 8, &down}, report);
    INFO(report.errors.formatAll());
    REQUIRE(cluster);
    const json& c = *cluster;
    CHECK(c["racks"] == 8); // one per leaf
    CHECK(c["nodes_per_rack"] == 16);
    CHECK(c["scale_out"]["topology"]["nodes_per_leaf"] == 16);
    CHECK(c["scale_out"]["topology"]["tiers"] == 3); // leaves, two spines, a core
    CHECK(c["scale_up"]["domain"] == "node");
    // gpu017 opens leaf 2; gpu040 and gpu041 are the 8th and 9th of leaf 3.
    CHECK(c["failures"]["nodes"] == json::array({16, 39, 40}));
    CHECK(hasLine(report.notes, {"down-nodes.txt:4:1:", "\"gpu999\" is not in the topology"}));
    const ClusterDesc core = loadedCore(c);
    CHECK(core.gpuCount() == 1024);
    CHECK(core.scaleOut.topology.tiers == 3);
}

TEST_CASE("blocks are racks, each an NVLink domain, short blocks leave places out of service",
          "[imports][slurm]")
{
    ImportReport report;
    const auto cluster =
        importSlurmTopology(importSource("gb200-nvl72-blocks.conf"), {"GB200", 4, nullptr}, report);
    INFO(report.errors.formatAll());
    REQUIRE(cluster);
    CHECK((*cluster)["racks"] == 4);
    CHECK((*cluster)["nodes_per_rack"] == 18);
    CHECK((*cluster)["scale_up"]["domain"] == "rack");
    CHECK((*cluster)["failures"]["nodes"] == json::array({52, 53})); // rack03's last two places
    CHECK(hasLine(report.notes, {"gb200-nvl72-blocks.conf:5:1:", "block rack03 lists 16 of 18"}));
    CHECK(loadedCore(*cluster).domainSize() == 72);
}

TEST_CASE("uneven leaves and separate trees are noted", "[imports][slurm]")
{
    ImportReport report;
    const auto cluster = import("SwitchName=a Nodes=n[1-4]\n"
                                "SwitchName=b Nodes=n[5-7]\n",
                                report);
    REQUIRE(cluster);
    CHECK((*cluster)["scale_out"]["topology"]["nodes_per_leaf"] == 4);
    CHECK((*cluster)["scale_out"]["topology"]["tiers"] == 1);
    CHECK((*cluster)["failures"]["nodes"] == json::array({7}));
    CHECK(hasLine(report.notes, {"uneven leaves: 3 to 4 nodes"}));
    CHECK(hasLine(report.notes, {"2 switches have no parent"}));
}

TEST_CASE("topology.conf mistakes are refused with their line", "[imports][slurm]")
{
    auto refusal = [](const std::string& text) {
        ImportReport report;
        CHECK_FALSE(import(text, report));
        return report.errors.formatAll();
    };
    CHECK(refusal("SwitchName=a Nodes=n[3-1]\n").find("topology.conf:1:14: Nodes=n[3-1]:") == 0);
    CHECK(refusal("SwitchName=a Nodes=n1\nSwitchName=t Switches=a,x\n")
              .find("topology.conf:2:1: switch \"t\" names an undefined switch \"x\"") == 0);
    CHECK(refusal("SwitchName=a Switches=b\nSwitchName=b Switches=a\n").find("loop") !=
          std::string::npos);
    CHECK(refusal("SwitchName=a Nodes=n1\nSwitchName=a Nodes=n2\n").find("defined twice") !=
          std::string::npos);
    CHECK(refusal("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n2\n").find("in two leaves") !=
          std::string::npos);
    CHECK(refusal("# nothing\n").find("not a Slurm topology.conf") != std::string::npos);
    ImportReport report;
    CHECK_FALSE(import("SwitchName=a Nodes=n1\n", report, nullptr, "MI300X"));
    CHECK(hasLine(report.errors, {"--gpu \"MI300X\" is not a catalog GPU"}));
}

TEST_CASE("a GPU's NIC rate when the topology gives none: ConnectX-8 on Blackwell Ultra",
          "[imports][slurm]")
{
    auto nicOf = [](const std::string& gpu) {
        ImportReport report;
        const auto cluster = import("SwitchName=a Nodes=n[1-2]\n", report, nullptr, gpu);
        REQUIRE(cluster);
        return std::pair{(*cluster)["gpu"].get<std::string>(),
                         (*cluster)["scale_out"]["Gbps_per_gpu"].get<int>()};
    };
    CHECK(nicOf("B300") == std::pair<std::string, int>{"B300", 800});
    CHECK(nicOf("GB300") == std::pair<std::string, int>{"GB300", 800});
    CHECK(nicOf("B200") == std::pair<std::string, int>{"B200", 400});
    CHECK(nicOf("A100") == std::pair<std::string, int>{"A100", 200});
}

TEST_CASE("continued lines, unknown keys and comments", "[imports][slurm]")
{
    ImportReport report;
    const auto cluster = import("SwitchName=leaf1 \\\n"
                                "   Nodes=gpu[01-02] # two nodes\n"
                                "SwitchName=leaf2 Nodes=gpu[03-04] Colour=blue\n"
                                "SwitchName=top Switches=leaf[1-2]\n",
                                report);
    REQUIRE(cluster);
    CHECK((*cluster)["racks"] == 2);
    CHECK((*cluster)["scale_out"]["topology"]["tiers"] == 2);
    CHECK(hasLine(report.notes, {"topology.conf:3:35:", "Colour= ignored"}));
}

TEST_CASE("a switch chain too deep for a fabric, or a loop, is refused by name without recursion",
          "[imports][slurm]")
{
    // 50,000 switches, each above the one before: the recursive walk this replaced overflowed the
    // stack. Written from the top down and from the bottom up, and closed into a loop.
    const int n = 50000;
    std::vector<std::string> lines{"SwitchName=s0 Nodes=n1\n"};
    for (int i = 1; i < n; ++i)
        lines.push_back("SwitchName=s" + std::to_string(i) + " Switches=s" + std::to_string(i - 1) +
                        "\n");
    std::string bottomUp, topDown;
    for (size_t i = 0; i < lines.size(); ++i) {
        bottomUp += lines[i];
        topDown += lines[lines.size() - 1 - i];
    }
    std::string loop = bottomUp;
    loop.replace(0, loop.find('\n'), "SwitchName=s0 Switches=s" + std::to_string(n - 1));
    struct Case {
        std::string name;
        std::string text;
        std::string place;
        std::string says;
    };
    const std::vector<Case> cases{
        {"bottom up", bottomUp, "topology.conf:65:1:",
         "switch \"s64\" has more than 64 tiers of switches below it: a chain of switches this "
         "long, or a loop, is no fabric (at most 64 tiers are read)"},
        {"top down", topDown, "topology.conf:65:1:",
         "switch \"s49935\" is more than 64 tiers below switch \"s49999\" (line 1)"},
        {"loop", loop, "topology.conf:49937:1:",
         "switch \"s49936\" is more than 64 tiers below switch \"s0\" (line 1)"},
        {"short loop",
         "SwitchName=a Switches=b\nSwitchName=b Switches=c\nSwitchName=c Switches=a\n",
         "topology.conf:3:1:", "the switches loop: \"c\" is below itself (through \"a\")"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        ImportReport report;
        CHECK_FALSE(import(c.text, report));
        INFO(report.errors.formatAll().substr(0, 2000));
        CHECK(report.errors.size() == 1);
        CHECK(hasLine(report.errors, {c.place, c.says}));
    }
}

TEST_CASE("a chain of 64 switch tiers is read, described with the tiers a cluster has",
          "[imports][slurm]")
{
    std::string text = "SwitchName=s1 Nodes=n[1-2]\n";
    for (int i = 2; i <= 64; ++i)
        text += "SwitchName=s" + std::to_string(i) + " Switches=s" + std::to_string(i - 1) + "\n";
    ImportReport report;
    const auto cluster = import(text, report);
    INFO(report.errors.formatAll());
    REQUIRE(cluster);
    CHECK((*cluster)["scale_out"]["topology"]["tiers"] == 3);
    CHECK(hasLine(report.notes, {"64 switch tiers described as 3"}));
}
