#include <catch2/catch.hpp>

#include <QPointF>

#include "topology.h"
#include "topologylayout.h"

namespace {

cs::ClusterDesc clusterOf(int racks, int nodesPerRack, int gpusPerNode, cs::DomainKind domain,
                          int tiers)
{
    cs::ClusterDesc c;
    c.name = "test";
    c.gpu = *cs::findCatalogGpu("GB200");
    c.racks = racks;
    c.nodesPerRack = nodesPerRack;
    c.gpusPerNode = gpusPerNode;
    c.scaleUp = {"NVLink", domain, 1800, 1.0};
    c.scaleOut.name = "Ethernet";
    c.scaleOut.GbpsPerGpu = 800;
    c.scaleOut.topology.tiers = tiers;
    return c;
}

// Pixels per world unit for each zoom the hit tests run at: far out, middle, close in.
const double kScales[] = {3.0, 12.0, 60.0};

Hit hitAt(const TopologyLayout& layout, QPointF world, double scale)
{
    return layout.hitTest(world, 4.0 / scale, levelOfDetail(scale));
}

} // namespace

TEST_CASE("view transform maps world to screen and back, and zooms about the anchor")
{
    const QRectF world(-100, -50, 200, 100);
    const ViewTransform t = viewTransformFor(world, QSizeF(1000, 500), 1.0, QPointF(0, 0));
    // 60 px above and below stay free for the names over the top switch row.
    CHECK(t.scale == Approx(0.97 * (500 - 2 * 60) / 100.0));
    CHECK(t.toScreen(world.topLeft()).y() >= 60);
    CHECK(t.toScreen(QPointF(0, 0)) == QPointF(500, 250));
    for (QPointF p : {QPointF(-100, -50), QPointF(37.5, 12), QPointF(100, 50)}) {
        const QPointF back = t.toWorld(t.toScreen(p));
        CHECK(back.x() == Approx(p.x()));
        CHECK(back.y() == Approx(p.y()));
    }
    const QPointF anchor(120, 400);
    const QPointF under = t.toWorld(anchor);
    const ViewTransform z = t.zoomedAt(anchor, 3.0);
    CHECK(z.scale == Approx(3 * t.scale));
    CHECK(z.toWorld(anchor).x() == Approx(under.x()));
    CHECK(z.toWorld(anchor).y() == Approx(under.y()));
    CHECK(t.visibleWorld().contains(world));
}

TEST_CASE("level of detail adds detail as GPUs grow on screen")
{
    struct Row {
        double px;
        bool rackLabels, trays, gpuLinks, gpuLabels, coordinates;
    };
    const Row rows[] = {
        {1, false, false, false, false, false}, {4, true, false, false, false, false},
        {8, true, true, false, false, false},   {20, true, true, true, false, false},
        {40, true, true, true, true, false},    {80, true, true, true, true, true},
    };
    for (const Row& r : rows) {
        INFO("pixels per GPU " << r.px);
        const LevelOfDetail lod = levelOfDetail(r.px);
        CHECK(lod.rackLabels == r.rackLabels);
        CHECK(lod.trayOutlines == r.trays);
        CHECK(lod.gpuLinks == r.gpuLinks);
        CHECK(lod.gpuLabels == r.gpuLabels);
        CHECK(lod.gpuCoordinates == r.coordinates);
    }
}

TEST_CASE("layout is centred, racks follow their row and column, GPUs stay in their tray")
{
    const cs::Topology topo(clusterOf(128, 16, 4, cs::DomainKind::Rack, 2));
    const TopologyLayout layout(topo);
    CHECK(layout.bounds().center().x() == Approx(0).margin(1e-9));
    CHECK(layout.bounds().center().y() == Approx(0).margin(1e-9));
    for (int r : {0, 1, 15, 16, 127}) {
        const cs::Rack& rack = topo.racks()[size_t(r)];
        const QRectF rect = layout.rackRect(r);
        CHECK(layout.hallBounds().contains(rect));
        if (rack.column > 0)
            CHECK(layout.rackRect(r - 1).right() < rect.left());
        for (int g = rack.firstGpu; g < rack.firstGpu + 64; g += 7)
            CHECK(layout.trayRect(topo.gpus()[size_t(g)].node).contains(layout.gpuRect(g)));
    }
    // The fabric is drawn apart from the racks: above the hall.
    for (size_t s = 0; s < topo.switches().size(); ++s)
        CHECK(layout.switchRect(int(s)).bottom() < layout.hallBounds().top());
}

TEST_CASE("hit testing finds GPUs, NVSwitches, racks and switches at every zoom")
{
    struct Case {
        const char* name;
        cs::ClusterDesc cluster;
    };
    const Case cases[] = {
        {"NVL72 racks", clusterOf(128, 16, 4, cs::DomainKind::Rack, 2)},
        {"HGX nodes, 3 tiers", clusterOf(48, 4, 8, cs::DomainKind::Node, 3)},
    };
    for (const Case& c : cases) {
        const cs::Topology topo(c.cluster);
        for (RackOrientation o : {RackOrientation::TraysAcross, RackOrientation::TraysDown}) {
            const TopologyLayout layout(topo, o);
            const int gpus = int(topo.gpus().size());
            for (double scale : kScales) {
                INFO(c.name << ", orientation " << int(o) << ", scale " << scale);
                for (int g : {0, 1, 5, gpus / 2 + 3, gpus - 1})
                    CHECK(hitAt(layout, layout.gpuRect(g).center(), scale) == Hit{HitKind::Gpu, g});
                for (int s : {0, int(topo.nvSwitches().size()) - 1})
                    CHECK(hitAt(layout, layout.nvSwitchRect(s).center(), scale) ==
                          Hit{HitKind::NvSwitch, s});
                for (int r : {0, int(topo.racks().size()) - 1}) {
                    const QRectF rack = layout.rackRect(r);
                    CHECK(hitAt(layout, rack.topLeft() + QPointF(0.1, 0.1), scale) ==
                          Hit{HitKind::Rack, r});
                }
                for (int s : {0, int(topo.switches().size()) / 2, int(topo.switches().size()) - 1})
                    CHECK(hitAt(layout, layout.switchRect(s).center(), scale) ==
                          Hit{HitKind::Switch, s});
                // Far above the fabric there is nothing.
                CHECK(hitAt(layout, layout.bounds().topLeft() - QPointF(10, 10), scale).kind ==
                      HitKind::None);
            }
        }
    }
}

TEST_CASE("hit testing finds links: bundles far out, single links close in")
{
    // Two racks of one GPU under one leaf: the two NIC links are apart everywhere but at the leaf.
    const cs::Topology topo(clusterOf(2, 1, 1, cs::DomainKind::Node, 1));
    const TopologyLayout layout(topo);
    REQUIRE(layout.bundles().size() == 2);
    for (int gpu : {0, 1}) {
        const int link = topo.nicLinkOfGpu(gpu);
        REQUIRE(topo.links()[size_t(link)].cls == cs::LinkClass::ScaleOut1);
        const int bundle = layout.bundleOfGpuLink(gpu);
        INFO("GPU " << gpu);
        const QPointF onBundle = layout.bundles()[size_t(bundle)].line.pointAt(0.5);
        CHECK(hitAt(layout, onBundle, 3.0) == Hit{HitKind::Bundle, bundle});
        const QPointF onLink = layout.linkLine(link).pointAt(0.5);
        CHECK(hitAt(layout, onLink, 60.0) == Hit{HitKind::Link, link});
    }
}
