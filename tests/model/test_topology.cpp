#include <catch2/catch.hpp>

#include <set>

#include "samplefiles.h"
#include "topology.h"

using namespace cs;

namespace {

struct ExpectedTopology {
    const char* file;
    int racks, nodes, gpus, domains, nvSwitches, leaves, spines, cores;
};

} // namespace

TEST_CASE("every sample cluster builds the expected device graph", "[topology]")
{
    // Leaves: one per rail per 32 nodes (64-port switches, half down at full bisection).
    // Two tiers: the fewest spines that reach every leaf (Fairwater's 256 leaves need spines
    // of 256 ports, one per leaf uplink). Three tiers (ND H100 v5): pods of 32 leaves with 32
    // spines each, and 32 planes of the fewest cores that reach the 11 pods (8 of 44 ports).
    const ExpectedTopology expected[] = {
        {"fairwater-gb200-128.cluster.json", 128, 2048, 8192, 128, 128 * 9, 4 * 64, 32, 0},
        {"fairwater-gb200-112.cluster.json", 112, 1792, 7168, 112, 112 * 9, 4 * 56, 32, 0},
        {"ndv5-h100-1344.cluster.json", 336, 1344, 10752, 1344, 1344, 8 * 42, 11 * 32, 32 * 8},
        {"ndv5-h100-128.cluster.json", 32, 128, 1024, 128, 128, 8 * 4, 16, 0},
        {"ndv5-h200-64.cluster.json", 16, 64, 512, 64, 64, 8 * 2, 8, 0},
    };
    for (const ExpectedTopology& e : expected) {
        SECTION(e.file)
        {
            const Topology t(*loadSample(e.file).cluster);
            CHECK(int(t.racks().size()) == e.racks);
            CHECK(int(t.nodes().size()) == e.nodes);
            CHECK(int(t.gpus().size()) == e.gpus);
            CHECK(t.domainCount() == e.domains);
            CHECK(int(t.nvSwitches().size()) == e.nvSwitches);
            CHECK(t.switchCount(1) == e.leaves);
            CHECK(t.switchCount(2) == e.spines);
            CHECK(t.switchCount(3) == e.cores);
            CHECK(t.linkCount(LinkClass::ScaleOut1) == e.gpus); // one NIC per GPU
            CHECK(t.linkCount(LinkClass::NVLink) == e.gpus * t.nvSwitchesPerDomain());
        }
    }
}

TEST_CASE("Fairwater: a rack is one NVLink domain of 64 GPUs with nine NVSwitch trays",
          "[topology]")
{
    const Topology t(*loadSample("fairwater-gb200-128.cluster.json").cluster);
    for (size_t g = 0; g < t.gpus().size(); ++g)
        REQUIRE(t.gpus()[g].domain == t.gpus()[g].rack);
    CHECK(t.domainSize() == 64);
    // NVLink: 900 GB/s per direction per GPU, split over the nine trays.
    CHECK(t.totalGBps(LinkClass::NVLink) == Approx(8192 * 900.0));
    CHECK(t.totalGBps(LinkClass::ScaleOut1) == Approx(8192 * 100.0));
    // Full bisection: leaves have as much bandwidth up as down.
    CHECK(t.totalGBps(LinkClass::ScaleOut2) == Approx(t.totalGBps(LinkClass::ScaleOut1)));
    const auto& racks = t.racks();
    CHECK(racks[0].row == 0);
    CHECK(racks[15].row == 0);
    CHECK(racks[15].column == 15);
    CHECK(racks[16].row == 1);
    CHECK(racks[127].row == 7);
}

TEST_CASE("a GPU's links: to each NVSwitch of its domain, and its NIC's to a leaf", "[topology]")
{
    const Topology t(*loadSample("ndv5-h100-128.cluster.json").cluster);
    for (int g : {0, 7, 8, 1023}) {
        for (int k = 0; k < t.nvSwitchesPerDomain(); ++k) {
            const Link& l = t.links()[size_t(t.nvLinkOf(g, k))];
            CHECK(l.cls == LinkClass::NVLink);
            CHECK(l.a == Endpoint{EndpointKind::Gpu, g});
        }
        // One NIC per GPU: NIC g is GPU g's.
        const Link& nic = t.links()[size_t(t.nicLinkOfGpu(g))];
        CHECK(nic.cls == LinkClass::ScaleOut1);
        CHECK(nic.a == Endpoint{EndpointKind::Nic, g});
        CHECK(nic.b.index == t.gpus()[size_t(g)].leaf);
        // Rail-optimized: a leaf serves one rail, the GPU's index in its node.
        CHECK(t.switches()[size_t(nic.b.index)].rail == t.gpus()[size_t(g)].local);
    }
}

TEST_CASE("fabric shape follows kind, tiers and oversubscription", "[topology]")
{
    ClusterDesc c = *loadSample("ndv5-h100-128.cluster.json").cluster;
    SECTION("a fat tree's leaves take consecutive NICs of every rail")
    {
        c.scaleOut.topology.kind = FabricKind::FatTree;
        const Topology t(c);
        CHECK(t.switchCount(1) == 1024 / 32);
        CHECK(t.switches()[size_t(t.gpus()[0].leaf)].rail == -1);
        CHECK(t.gpus()[0].leaf == t.gpus()[31].leaf);
        CHECK(t.gpus()[0].leaf != t.gpus()[32].leaf);
    }
    SECTION("oversubscription 3 puts three quarters of a leaf's ports down")
    {
        c.scaleOut.topology.oversubscription = {3.0};
        const Topology t(c);
        CHECK(t.switchCount(1) == 8 * 3); // 128 nodes / 48 per leaf, rounded up, per rail
        CHECK(t.totalGBps(LinkClass::ScaleOut2) < t.totalGBps(LinkClass::ScaleOut1) / 2.5);
    }
    SECTION("one tier has no spines")
    {
        c.scaleOut.topology.tiers = 1;
        const Topology t(c);
        CHECK(t.switchCount(2) == 0);
        CHECK(t.linkCount(LinkClass::ScaleOut2) == 0);
    }
}

TEST_CASE(
    "a topology retimed to other rates is the one built for them, and other devices are refused",
    "[topology]")
{
    const ClusterDesc before = *loadSample("ndv5-h100-1344.cluster.json").cluster;
    Topology t(before);
    const uint64_t id = t.devicesId();
    ClusterDesc after = before;
    after.scaleOut.GbpsPerGpu = 200;
    after.scaleOut.latencyUs = 9;
    after.scaleUp.GBpsPerGpu = 600;
    after.scaleUp.latencyUs = 2;
    after.gpu.hbmGiB = 141;
    after.reliability = Reliability{1000};
    REQUIRE(t.retime(after));
    CHECK(t.devicesId() == id);
    CHECK(t.cluster() == after);
    const Topology fresh(after);
    CHECK(fresh.devicesId() != id);
    REQUIRE(t.links().size() == fresh.links().size());
    for (size_t i = 0; i < t.links().size(); ++i) {
        // Exactly: one definition of a link's rate, not two that agree closely.
        REQUIRE(t.links()[i].GBps == fresh.links()[i].GBps);
        REQUIRE(t.links()[i].latencyUs == fresh.links()[i].latencyUs);
    }
    // Whatever builds the graph (places, domains, the fabric, failures) builds it anew.
    const std::pair<const char*, void (*)(ClusterDesc&)> others[] = {
        {"racks", [](ClusterDesc& c) { c.racks = 300; }},
        {"rows", [](ClusterDesc& c) { c.layoutRows = 3; }},
        {"GPUs per node", [](ClusterDesc& c) { c.gpusPerNode = 4; }},
        {"NVLink domain", [](ClusterDesc& c) { c.scaleUp.domain = DomainKind::Rack; }},
        {"oversubscription", [](ClusterDesc& c) { c.scaleOut.topology.oversubscription = {3.0}; }},
        {"a failed rack", [](ClusterDesc& c) { c.failures.racks = {2}; }},
        {"a failed switch", [](ClusterDesc& c) { c.failures.switches = {"leaf3"}; }},
    };
    for (const auto& [what, change] : others) {
        INFO(what);
        ClusterDesc other = after;
        change(other);
        CHECK_FALSE(sameDevices(after, other));
        CHECK_FALSE(t.retime(other));
        CHECK(t.cluster() == after);
    }
}

TEST_CASE("the largest accepted cluster builds within bounded memory", "[topology][limits]")
{
    ClusterDesc c = *loadSample("fairwater-gb200-128.cluster.json").cluster;
    c.racks = 2048; // 2,048 x 16 x 4 = 131,072 GPUs, the limit
    c.layoutRows = 32;
    const Topology t(c);
    CHECK(int64_t(t.gpus().size()) == kMaxGpus);
    CHECK(t.memoryBytes() < size_t(256) << 20);
}
