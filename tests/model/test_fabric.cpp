// The fabric model: routes, contention, oversubscription, ECMP, failures, and the per-link
// traffic of a step.

#include <catch2/catch.hpp>

#include <set>
#include <thread>

#include "contention.h"
#include "costmodel.h"
#include "fabriccheck.h"
#include "fabricclusters.h"
#include "fabricfactors.h"
#include "linkloads.h"
#include "placement.h"
#include "routing.h"
#include "samplefiles.h"
#include "traffic.h"

using namespace cs;

namespace {

double stepOf(const ClusterDesc& c, const RunDesc& r)
{
    return evaluate(c, r).stepTimeS;
}

double dpFactor(const ClusterDesc& c, const RunDesc& r)
{
    const Topology t(c);
    return fabricFactors(t, placeRun(r, c), r.parallelism.vp > 1).fabric[Dim::DP];
}

// The first GPU (rail 0) of every node under a leaf, as flows to the same under another.
std::vector<ClassFlow> leafToLeaf(const Topology& t, int fromLeaf, int toLeaf)
{
    std::vector<int> from, to;
    for (const Nic& nic : t.nics()) {
        if (nic.leaf == fromLeaf)
            from.push_back(nic.firstGpu);
        if (nic.leaf == toLeaf)
            to.push_back(nic.firstGpu);
    }
    REQUIRE(from.size() == to.size());
    std::vector<ClassFlow> flows;
    for (size_t i = 0; i < from.size(); ++i)
        flows.push_back({from[i], to[i], 0});
    return flows;
}

double factorOf(const Topology& t, const std::vector<ClassFlow>& flows)
{
    const Router router(t);
    const Contention c = contention(router, flows, 1);
    REQUIRE(c.unroutable < 0);
    return c.factor[0];
}

// Sixteen nodes whose leaves have eight ports down and one uplink to each of eight spines (a
// 16-port radix closes the tier only with a spine per uplink).
ClusterDesc eightSpines()
{
    ClusterDesc c = hgxCluster(16, 8);
    c.scaleOut.topology.switchRadix = 16;
    return c;
}

bool touchesSwitch(const Link& l, int sw)
{
    return (l.a.kind == EndpointKind::Switch && l.a.index == sw) ||
           (l.b.kind == EndpointKind::Switch && l.b.index == sw);
}

} // namespace

TEST_CASE("rail-aligned traffic under one leaf is unaffected by spine oversubscription", "[fabric]")
{
    const ClusterDesc full = hgxCluster(16);
    const ClusterDesc oversubscribed = hgxCluster(16, 4, 4.0);
    const RunDesc run = hgxRun(full, kDpUnderOneLeaf);
    // Every data-parallel flow turns at its leaf.
    const Topology t(oversubscribed);
    const Router router(t);
    for (const Flow& f : dimensionFlows(t, placeRun(run, oversubscribed), Dim::DP, false)) {
        std::vector<Hop> hops;
        REQUIRE(router.route(f.src, f.dst, hops));
        for (const Hop& h : hops)
            CHECK(t.links()[size_t(h.link)].cls != LinkClass::ScaleOut2);
    }
    CHECK(dpFactor(oversubscribed, run) == 1.0);
    const Evaluation a = evaluate(full, run), b = evaluate(oversubscribed, run);
    CHECK(b.commTotalS[Dim::DP] == a.commTotalS[Dim::DP]);
    // The pipeline's hops go from node to node four apart, across leaves: they are slowed.
    CHECK(b.commTotalS[Dim::PP] > a.commTotalS[Dim::PP]);
}

TEST_CASE("traffic across leaves is slowed by spine oversubscription", "[fabric]")
{
    const ClusterDesc full = hgxCluster(16);
    const ClusterDesc oversubscribed = hgxCluster(16, 4, 4.0);
    const RunDesc run = hgxRun(full, kDpAcrossLeaves);
    // Four data-parallel flows leave each leaf; four uplinks carry them at full bisection,
    // one at 4:1.
    CHECK(dpFactor(full, run) == Approx(1.0));
    CHECK(dpFactor(oversubscribed, run) == Approx(0.25));
    const Evaluation a = evaluate(full, run), b = evaluate(oversubscribed, run);
    CHECK(b.commTotalS[Dim::DP] > 2 * a.commTotalS[Dim::DP]);
    CHECK(b.stepTimeS > a.stepTimeS);

    SECTION("and only at the boundary that is oversubscribed")
    {
        ClusterDesc threeTiers = hgxCluster(16);
        threeTiers.scaleOut.topology.tiers = 3;
        threeTiers.scaleOut.topology.oversubscription = {1.0, 4.0}; // leaf->spine, spine->core
        const Topology t(threeTiers);
        REQUIRE(t.shape().pods == 1); // every leaf under the same spines: no core on the way
        CHECK(dpFactor(threeTiers, run) == Approx(1.0));
    }
}

TEST_CASE("ECMP never beats adaptive routing and collides on a leaf's uplinks", "[fabric]")
{
    ClusterDesc adaptive = eightSpines();
    ClusterDesc ecmp = adaptive;
    ecmp.scaleOut.topology.routing = Routing::Ecmp;
    const Topology ta(adaptive), te(ecmp);
    REQUIRE(ta.shape().spinesPerPod == 8);
    REQUIRE(ta.shape().cablesLeafSpine == 1);
    // Rail 0: leaf 0 serves nodes 0-7, leaf 8 nodes 8-15. Eight flows, eight uplinks.
    const std::vector<ClassFlow> flows = leafToLeaf(ta, 0, 8);
    REQUIRE(flows.size() == 8);
    CHECK(factorOf(ta, flows) == Approx(1.0));
    const double hashed = factorOf(te, flows);
    CHECK(hashed <= 0.5); // at least two flows share an uplink or a downlink
    // Which uplinks: fewer than eight distinct spines carry the eight flows.
    const Router router(te);
    std::set<int> uplinks;
    for (const ClassFlow& f : flows) {
        std::vector<Hop> hops;
        REQUIRE(router.route(f.src, f.dst, hops));
        for (const Hop& h : hops)
            if (te.links()[size_t(h.link)].cls == LinkClass::ScaleOut2 && !h.down)
                uplinks.insert(h.link);
    }
    CHECK(uplinks.size() < 8);

    SECTION("over runs and layouts")
    {
        for (const ClusterDesc& base : {hgxCluster(16), hgxCluster(16, 4, 2.0), eightSpines()}) {
            for (const PlacementOrder& order : {kDpUnderOneLeaf, kDpAcrossLeaves}) {
                ClusterDesc hashedCluster = base;
                hashedCluster.scaleOut.topology.routing = Routing::Ecmp;
                const RunDesc run = hgxRun(base, order);
                const Topology t1(base), t2(hashedCluster);
                const Placement p = placeRun(run, base);
                const FabricFactors fa = fabricFactors(t1, p, false);
                const FabricFactors fe = fabricFactors(t2, p, false);
                for (Dim d : kAllDims)
                    CHECK(fe.fabric[d] <= fa.fabric[d] + 1e-12);
                CHECK(stepOf(hashedCluster, run) >= stepOf(base, run));
            }
        }
    }
}

TEST_CASE("failing half the spines slows cross-leaf traffic, failed switches carry nothing",
          "[fabric]")
{
    ClusterDesc healthy = eightSpines();
    ClusterDesc failed = healthy;
    failed.failures.switches = {"spine0", "spine2", "spine4", "spine6"};
    const Topology th(healthy), tf(failed);
    const std::vector<ClassFlow> flows = leafToLeaf(th, 0, 8);
    CHECK(factorOf(th, flows) == Approx(1.0));
    CHECK(factorOf(tf, flows) == Approx(0.5)); // eight flows on four uplinks

    SECTION("a run's step: slower, and no byte on a failed spine")
    {
        ClusterDesc c = hgxCluster(16); // two spines, two cables from each leaf to each
        const RunDesc run = hgxRun(c, kDpAcrossLeaves);
        const double before = stepOf(c, run);
        c.failures.switches = {"spine1"};
        Diagnostics diags;
        checkFabric(c, "c", "", diags);
        checkRunOnFabric(c, run, "c", "", diags);
        REQUIRE(diags.empty());
        CHECK(dpFactor(c, run) == Approx(0.5));
        const Evaluation e = evaluate(c, run);
        CHECK(e.stepTimeS > before);
        const Topology t(c);
        const StepTraffic traffic = stepTraffic(t, run, e.stepTimeS);
        const int spine1 = t.findSwitch("spine1")->index;
        double toFailed = 0, toOther = 0;
        for (size_t l = 0; l < t.links().size(); ++l) {
            if (t.links()[l].cls != LinkClass::ScaleOut2)
                continue;
            (touchesSwitch(t.links()[l], spine1) ? toFailed : toOther) += traffic.links[l].bytes;
        }
        CHECK(toFailed == 0);
        CHECK(toOther > 0);
    }
}

TEST_CASE("bytes are conserved: what leaves the NICs arrives, every switch passes on what it gets",
          "[fabric]")
{
    ClusterDesc c = hgxCluster(64, 2);
    c.scaleOut.topology.tiers = 3;
    c.scaleOut.topology.switchRadix = 16; // pods of 8 leaves: traffic crosses the cores
    for (Routing routing : {Routing::Adaptive, Routing::Ecmp}) {
        for (bool failures : {false, true}) {
            c.scaleOut.topology.routing = routing;
            c.failures.switches.clear();
            if (failures)
                c.failures.switches = {"spine1", "core3"};
            const Topology t(c);
            REQUIRE(t.shape().pods > 1);
            const Router router(t);
            LinkLoadSum sum(router);
            double sent = 0;
            const int gpus = int(t.gpus().size());
            for (int i = 0; i < 2000; ++i) {
                const int src = (i * 7919) % gpus, dst = (i * 104729 + 13) % gpus;
                if (src == dst || !router.throughFabric(src, dst))
                    continue;
                const double volume = 1 + i % 5;
                REQUIRE(sum.add(src, dst, volume));
                sent += volume;
            }
            sum.finish();
            INFO("routing " << toString(routing) << (failures ? ", with failures" : ""));
            std::vector<double> in(t.switches().size(), 0), out(t.switches().size(), 0);
            double leftNics = 0, reachedNics = 0;
            for (size_t l = 0; l < t.links().size(); ++l) {
                const Link& link = t.links()[l];
                if (link.cls == LinkClass::NVLink)
                    continue;
                if (link.cls == LinkClass::ScaleOut1) {
                    leftNics += sum.up(l);
                    reachedNics += sum.down(l);
                } else {
                    out[size_t(link.a.index)] += sum.up(l);
                    in[size_t(link.a.index)] += sum.down(l);
                }
                in[size_t(link.b.index)] += sum.up(l);
                out[size_t(link.b.index)] += sum.down(l);
                const bool failedEnd =
                    t.switchFailed(link.b.index) ||
                    (link.a.kind == EndpointKind::Switch && t.switchFailed(link.a.index));
                if (failures && failedEnd)
                    CHECK(sum.up(l) + sum.down(l) == 0);
            }
            CHECK(leftNics == Approx(sent));
            CHECK(reachedNics == Approx(sent));
            for (size_t s = 0; s < t.switches().size(); ++s)
                CHECK(in[s] == Approx(out[s]).margin(1e-9));
        }
    }
}

TEST_CASE("utilization stays in 0..1: no link is busy longer than the step", "[fabric]")
{
    std::vector<std::pair<ClusterDesc, RunDesc>> cases;
    for (const char* file :
         {"fairwater-gb200-128-llama405b.run.json", "ndv5-h100-1344-gpt3-175b.run.json"}) {
        const LoadedFile f = loadSample(file);
        cases.emplace_back(*f.cluster, *f.run);
        ClusterDesc hashed = *f.cluster;
        hashed.scaleOut.topology.routing = Routing::Ecmp;
        cases.emplace_back(hashed, *f.run);
    }
    for (const ClusterDesc& c : {hgxCluster(16, 4, 4.0), eightSpines()})
        for (const PlacementOrder& order : {kDpUnderOneLeaf, kDpAcrossLeaves})
            cases.emplace_back(c, hgxRun(c, order));
    for (const auto& [cluster, run] : cases) {
        const Evaluation e = evaluate(cluster, run);
        const Topology t(cluster);
        const StepTraffic traffic = stepTraffic(t, run, e.stepTimeS);
        double busiest = 0;
        for (const LinkTraffic& l : traffic.links) {
            REQUIRE(l.utilization >= 0);
            REQUIRE(l.utilization <= 1);
            busiest = std::max(busiest, l.busyS);
        }
        INFO(cluster.name << ", " << run.name);
        CHECK(busiest <= e.stepTimeS);
        CHECK(busiest > 0);
    }
}

TEST_CASE("every switch and link has a name that finds it again", "[fabric][names]")
{
    ClusterDesc threeTiers = hgxCluster(64, 2);
    threeTiers.scaleOut.topology.tiers = 3;
    threeTiers.scaleOut.topology.switchRadix = 16;
    ClusterDesc fatTree = hgxCluster(16);
    fatTree.scaleOut.topology.kind = FabricKind::FatTree;
    ClusterDesc sharedNics = hgxCluster(16);
    sharedNics.scaleOut.topology.rails = 2;
    for (const ClusterDesc& c : {*loadSample("fairwater-gb200-128.cluster.json").cluster,
                                 threeTiers, fatTree, sharedNics}) {
        const Topology t(c);
        std::set<std::string> names;
        for (size_t s = 0; s < t.switches().size(); ++s) {
            const std::string name = t.switchName(int(s));
            REQUIRE(t.findSwitch(name) == Endpoint{EndpointKind::Switch, int(s)});
            names.insert(name);
        }
        for (size_t s = 0; s < t.nvSwitches().size(); ++s)
            REQUIRE(t.findSwitch(t.nvSwitchName(int(s))) ==
                    Endpoint{EndpointKind::NvSwitch, int(s)});
        for (size_t l = 0; l < t.links().size(); ++l) {
            const std::string name = t.linkName(int(l));
            REQUIRE(t.findLink(name) == int(l));
            names.insert(name);
        }
        CHECK(names.size() == t.switches().size() + t.links().size());
    }
    const Topology t(threeTiers);
    CHECK(t.linkName(t.nicLinkOfGpu(17)) == "nic17");
    CHECK(t.linkName(t.nvLinkOf(17, 0)) == "nvl17-0");
    CHECK(t.switchName(t.gpus()[17].leaf) == "leaf9"); // node 2, rail 1: group 1 of 8 rails
    CHECK(t.findLink("spine0-core1").has_value());     // spine 0 and core 1 share plane 0
    for (const char* wrong : {"leaf012", "leaf-1", "leaf+1", " leaf0", "leaf0 ", "leaf", "Leaf0",
                              "spine", "nic", "nvl0", "nvl0-8", "nvsw-d0-1", "core99999",
                              "leaf0-core0", "leaf0-spine40", "spine1-core0", "leaf99999999999"}) {
        INFO(wrong);
        CHECK_FALSE((t.findSwitch(wrong) || t.findLink(wrong)));
    }
}

TEST_CASE("unknown failure names are refused with their pointer", "[fabric][failures]")
{
    ClusterDesc c = hgxCluster(16);
    c.failures.switches = {"leaf0", "spine1", "nvsw-d3-0", "leaf999"};
    c.failures.links = {"nic5", "leaf3-spine0", "nvl8-0", "spine0-core0", "bogus"};
    Diagnostics diags;
    checkFabric(c, "my.cluster.json", "", diags);
    REQUIRE(diags.size() == 3);
    CHECK(diags.items()[0].pointer == "/failures/switches/3");
    CHECK(diags.items()[0].message.find("\"leaf999\"") != std::string::npos);
    CHECK(diags.items()[1].pointer == "/failures/links/3");
    CHECK(diags.items()[1].message.find("\"spine0-core0\"") != std::string::npos);
    CHECK(diags.items()[2].pointer == "/failures/links/4");
    CHECK(diags.items()[0].format().find("my.cluster.json: /failures/switches/3: ") == 0);

    SECTION("inside a session")
    {
        Diagnostics inSession;
        checkFabric(c, "s.csession", "/cluster", inSession);
        CHECK(inSession.items()[0].pointer == "/cluster/failures/switches/3");
    }
    SECTION("rails beyond the GPUs of a node")
    {
        ClusterDesc wide = hgxCluster(16);
        wide.scaleOut.topology.rails = 16;
        Diagnostics railDiags;
        checkFabric(wide, "w", "", railDiags);
        REQUIRE(railDiags.size() == 1);
        CHECK(railDiags.items()[0].pointer == "/scale_out/topology/rails");
    }
}

TEST_CASE("a run whose traffic has no path left is refused with the reason", "[fabric][failures]")
{
    ClusterDesc c = hgxCluster(16);
    const RunDesc across = hgxRun(c, kDpAcrossLeaves);
    const RunDesc under = hgxRun(c, kDpUnderOneLeaf);
    auto problems = [](const ClusterDesc& cluster, const RunDesc& run) {
        Diagnostics diags;
        checkFabric(cluster, "c.json", "", diags);
        checkRunOnFabric(cluster, run, "c.json", "", diags);
        return diags;
    };
    CHECK(problems(c, across).empty());

    c.failures.switches = {"spine0", "spine1"};
    Diagnostics noSpine = problems(c, across);
    REQUIRE(noSpine.size() == 1);
    CHECK(noSpine.items()[0].pointer == "/failures");
    CHECK(noSpine.contains("has no path"));
    CHECK(noSpine.contains("no spine that leaf"));

    c.failures.switches = {"leaf8"};
    const Diagnostics noLeaf = problems(c, under);
    REQUIRE(noLeaf.size() == 1);
    CHECK(noLeaf.contains("leaf8, the leaf of GPU"));
    CHECK(noLeaf.contains("is out of service"));

    SECTION("leaves that no tier joins")
    {
        ClusterDesc oneTier = hgxCluster(16, 8);
        oneTier.scaleOut.topology.tiers = 1;
        const Diagnostics disjoint = problems(oneTier, hgxRun(oneTier, kDpAcrossLeaves));
        REQUIRE(disjoint.size() == 1);
        CHECK(disjoint.items()[0].pointer == "/scale_out/topology/tiers");
        CHECK(disjoint.contains("joined by no switch"));
        // Leaves of sixteen nodes each: one leaf holds everything.
        ClusterDesc oneLeaf = hgxCluster(16, 16);
        oneLeaf.scaleOut.topology.tiers = 1;
        CHECK(problems(oneLeaf, hgxRun(oneLeaf, kDpAcrossLeaves)).empty());
    }
}

TEST_CASE("failed nodes hold no rank and their NICs carry nothing", "[fabric][failures]")
{
    ClusterDesc c = hgxCluster(20);
    c.failures.nodes = {3};
    RunDesc run = hgxRun(hgxCluster(16), kDpAcrossLeaves); // 128 of the 152 healthy GPUs
    Diagnostics diags;
    validateClusterRun(c, run, diags);
    REQUIRE(diags.empty());
    const Evaluation e = evaluate(c, run);
    const Topology t(c);
    const StepTraffic traffic = stepTraffic(t, run, e.stepTimeS);
    for (int g = 3 * 8; g < 4 * 8; ++g) {
        CHECK_FALSE(t.gpuInService(g));
        CHECK(traffic.links[size_t(t.nicLinkOfGpu(g))].bytes == 0);
        CHECK(traffic.links[size_t(t.nvLinkOf(g, 0))].bytes == 0);
    }
    CHECK(traffic.links[size_t(t.nicLinkOfGpu(4 * 8))].bytes > 0); // node 4 holds node 3's ranks
}

TEST_CASE("fewer rails than GPUs: GPUs share a NIC of their rates together", "[fabric]")
{
    ClusterDesc c = hgxCluster(16);
    c.scaleOut.topology.rails = 2;
    const Topology t(c);
    REQUIRE(t.nics().size() == 16 * 2);
    CHECK(t.gpus()[3].nic == 0);
    CHECK(t.gpus()[4].nic == 1);
    CHECK(t.nics()[1].firstGpu == 4);
    CHECK(t.links()[size_t(t.nicLinkOf(0))].GBps == Approx(4 * 50.0));
    CHECK(t.totalGBps(LinkClass::ScaleOut1) == Approx(128 * 50.0)); // the nodes' rate is kept
    const RunDesc run = hgxRun(c, kDpAcrossLeaves);
    CHECK(dpFactor(c, run) == 1.0); // full bisection: nothing but the NICs
    CHECK(stepOf(c, run) == Approx(stepOf(hgxCluster(16), run)));
}

TEST_CASE("dimensions running together share the links where they meet", "[fabric]")
{
    // Pipeline hops and data-parallel rings both leave every node by its NICs.
    const ClusterDesc c = hgxCluster(16);
    const RunDesc run = hgxRun(c, kDpAcrossLeaves);
    const Topology t(c);
    const Placement p = placeRun(run, c);
    const FabricFactors alone = fabricFactors(t, p, false);
    const FabricFactors together = concurrentFactors(t, p, false, {Dim::DP, Dim::PP});
    CHECK(alone.fabric[Dim::DP] == Approx(1.0));
    CHECK(together.fabric[Dim::DP] < 0.75);
    CHECK(together.fabric[Dim::PP] < 0.75);
    const FabricFactors dpOnly = concurrentFactors(t, p, false, {Dim::DP});
    CHECK(dpOnly.fabric[Dim::DP] == Approx(alone.fabric[Dim::DP]));
}

TEST_CASE("cached factors are those of the placement, from any thread", "[fabric]")
{
    ClusterDesc c = hgxCluster(16, 4, 4.0);
    c.scaleOut.topology.routing = Routing::Ecmp;
    std::vector<RunDesc> runs{hgxRun(c, kDpUnderOneLeaf), hgxRun(c, kDpAcrossLeaves)};
    runs.push_back(runs[1]);
    runs[2].parallelism.vp = 2; // the pipeline wraps round
    std::vector<FabricFactors> expected;
    const Topology t(c);
    for (const RunDesc& r : runs)
        expected.push_back(fabricFactors(t, placeRun(r, c), r.parallelism.vp > 1));
    CHECK(expected[0].fabric[Dim::DP] != expected[1].fabric[Dim::DP]);
    std::vector<std::vector<double>> seen(2);
    auto work = [&](size_t thread) {
        for (int repeat = 0; repeat < 20; ++repeat)
            for (const RunDesc& r : runs) {
                const auto f = cachedFabricFactors(c, r);
                seen[thread].push_back(f->fabric[Dim::DP]);
                seen[thread].push_back(f->hopFabric.back());
            }
    };
    std::thread other(work, 1);
    work(0);
    other.join();
    for (const std::vector<double>& values : seen) {
        REQUIRE(values.size() == 20 * runs.size() * 2);
        for (size_t i = 0; i < values.size(); i += 2) {
            const FabricFactors& e = expected[(i / 2) % runs.size()];
            CHECK(values[i] == e.fabric[Dim::DP]);
            CHECK(values[i + 1] == e.hopFabric.back());
        }
    }
}

TEST_CASE("a group's routed links, and the groups on a link", "[fabric]")
{
    const ClusterDesc c = hgxCluster(16);
    const RunDesc run = hgxRun(c, kDpAcrossLeaves);
    const Topology t(c);
    const Router router(t);
    const Placement p = placeRun(run, c);
    // Rank 0's data-parallel group: GPU 0 of nodes 0, 4, 8 and 12, a ring over four leaves.
    const std::vector<GroupLink> links = groupLinks(router, p, 0, Dim::DP, false);
    int nics = 0;
    double uplinkShare = 0;
    for (const GroupLink& l : links) {
        const LinkClass cls = t.links()[size_t(l.link)].cls;
        nics += cls == LinkClass::ScaleOut1;
        uplinkShare += cls == LinkClass::ScaleOut2 ? l.flows : 0;
        CHECK(cls != LinkClass::NVLink);
    }
    CHECK(nics == 4);
    CHECK(uplinkShare == Approx(4 * 2)); // four flows, each up one leaf and down another
    // The leaf-spine links the group uses carry no other data-parallel group but those of
    // GPU 0's rail that share its leaves: the four pipeline stages of tp rank 0.
    const int uplink = [&] {
        for (const GroupLink& l : links)
            if (t.links()[size_t(l.link)].cls == LinkClass::ScaleOut2)
                return l.link;
        return -1;
    }();
    REQUIRE(uplink >= 0);
    const std::vector<int> groups = groupsOnLink(router, p, uplink, Dim::DP, false);
    CHECK(std::find(groups.begin(), groups.end(), 0) != groups.end());
    CHECK(groups.size() == 4);
    CHECK(groupsOnLink(router, p, uplink, Dim::TP, false).empty());
}

TEST_CASE("collective flows: rings inside domains then across, all-to-all for experts", "[fabric]")
{
    const Topology t(hgxCluster(4)); // 4 nodes of 8 GPUs, a domain each
    Parallelism par;
    par.ep = 16;
    const Placement p(par, 16, kPlacedDims, 8); // 16 ranks: dp 16, one expert group
    auto count = [](const std::vector<Flow>& flows, FlowPhase phase) {
        return std::count_if(flows.begin(), flows.end(),
                             [&](const Flow& f) { return f.phase == phase; });
    };
    // Data parallelism over two nodes: a ring of 8 in each, then 8 rings of 2 across them,
    // each between the GPUs at the same position (the same rail).
    const std::vector<Flow> dp = dimensionFlows(t, p, Dim::DP, false);
    CHECK(count(dp, FlowPhase::Inner) == 2 * 8);
    CHECK(count(dp, FlowPhase::Outer) == 8 * 2);
    for (const Flow& f : dp)
        if (f.phase == FlowPhase::Outer)
            CHECK(t.gpus()[size_t(f.src)].local == t.gpus()[size_t(f.dst)].local);
    // Experts: every pair inside each node, and each position to the other node's.
    const std::vector<Flow> ep = dimensionFlows(t, p, Dim::EP, false);
    CHECK(count(ep, FlowPhase::Inner) == 2 * 8 * 7);
    CHECK(count(ep, FlowPhase::Outer) == 8 * 2);
    for (const Flow& f : ep)
        CHECK(f.share == Approx(f.phase == FlowPhase::Inner ? 1.0 / 7 : 1.0));
}

TEST_CASE("NVLink domains are part of the graph: a failed NVSwitch or NVLink slows its domain",
          "[fabric][failures]")
{
    const LoadedFile f = loadSample("fairwater-gb200-128-llama405b.run.json");
    const RunDesc& run = *f.run;
    auto tpFactor = [&](const std::vector<std::string>& switches,
                        const std::vector<std::string>& links) {
        ClusterDesc c = *f.cluster;
        c.failures.switches = switches;
        c.failures.links = links;
        const Topology t(c);
        return fabricFactors(t, placeRun(run, c), true).nvlink[Dim::TP];
    };
    CHECK(tpFactor({}, {}) == 1.0);
    CHECK(tpFactor({"nvsw-d0-3"}, {}) == Approx(8.0 / 9)); // eight trays of nine left in rack 0
    CHECK(tpFactor({}, {"nvl5-0"}) == Approx(8.0 / 9));    // GPU 5 reaches eight of them
    ClusterDesc slowed = *f.cluster;
    slowed.failures.switches = {"nvsw-d0-3"};
    CHECK(evaluate(slowed, run).commTotalS[Dim::TP] >
          evaluate(*f.cluster, run).commTotalS[Dim::TP]);

    SECTION("an HGX board without its NVSwitch leaves its GPUs no path to each other")
    {
        ClusterDesc c = hgxCluster(16);
        c.failures.switches = {"nvsw-d2-0"};
        Diagnostics diags;
        checkRunOnFabric(c, hgxRun(c, kDpAcrossLeaves), "c", "", diags);
        REQUIRE(diags.size() == 1);
        CHECK(diags.contains("TP traffic from GPU 16 to GPU 17 has no path: no NVSwitch of NVLink "
                             "domain 2 that both reach is in service"));
    }
}
