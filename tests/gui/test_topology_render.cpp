#include <catch2/catch.hpp>

#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <algorithm>
#include <iterator>
#include <set>

#include "document.h"
#include "documentio.h"
#include "gpucolors.h"
#include "guitestutil.h"
#include "inspectorpanel.h"
#include "render.h"
#include "scenetestutil.h"
#include "topologyscene.h"

namespace {

const char* const kSamples[] = {
    "fairwater-gb200-128.csession",      "fairwater-gb200-112-llama405b.run.json",
    "ndv5-h100-1344-gpt3-175b.csession", "ndv5-h100-128-gpt3-175b.run.json",
    "ndv5-h200-64-gpt3-175b.run.json",
};

// The colour a mode gives a GPU, worked out from the model, not from the renderer's palette.
QColor expectedColor(const std::string& mode, int gpu, const Document& doc)
{
    const cs::Placement& pl = doc.placement();
    // A dimension of size 1 groups every rank alone: one colour for all, not confetti.
    for (const auto& [name, dim] :
         {std::pair{"tp", cs::Dim::TP}, std::pair{"cp", cs::Dim::CP}, std::pair{"dp", cs::Dim::DP}})
        if (mode == name && pl.size(dim) <= 1)
            return categoricalColor(0);
    if (mode == "tp")
        return categoricalColor(pl.groupIndex(gpu, cs::Dim::TP) % kCategoricalColors);
    if (mode == "cp")
        return categoricalColor(pl.groupIndex(gpu, cs::Dim::CP) % kCategoricalColors);
    if (mode == "dp")
        return categoricalColor(pl.groupIndex(gpu, cs::Dim::DP) % kCategoricalColors);
    if (mode == "pp")
        return categoricalColor(pl.coord(gpu)[cs::Dim::PP]);
    if (mode == "domain")
        return categoricalColor(doc.topology().gpus()[size_t(gpu)].domain % kCategoricalColors);
    const double used = doc.evaluation().memoryGiBPerStage[size_t(pl.coord(gpu)[cs::Dim::PP])];
    const double fraction = used / doc.cluster().gpu.hbmGiB;
    const int step =
        fraction > 1 ? kMemorySteps : std::min(kMemorySteps - 1, int(fraction * kMemorySteps));
    return memoryColor(step == kMemorySteps ? 1.5 : (step + 0.5) / kMemorySteps);
}

QRgb pixelAtCell(const QImage& image, const ViewTransform& t, const QRectF& cell)
{
    return image.pixel(t.toScreen(cell.center()).toPoint());
}

} // namespace

TEST_CASE("each sample renders each colour mode with the model's colour in known GPU cells")
{
    for (const char* sample : kSamples) {
        auto doc = openSample(sample);
        TopologyScene scene(doc->topology(), doc->placement(), doc->evaluation(), 1.6);
        const int gpus = int(doc->topology().gpus().size());
        for (const std::string mode : {"tp", "cp", "pp", "dp", "domain", "memory"}) {
            cs::ViewState view;
            view.colorBy = *cs::colorModeFromString(mode);
            const QImage image = renderScene(scene, view, kRenderSize);
            const ViewTransform t = scene.transform(view, QSizeF(kRenderSize));
            REQUIRE(t.scale >= 2.0); // a GPU cell is at least a few pixels at fit-to-view
            for (int g : {0, 1, 5, gpus / 3, gpus / 2 + 7, gpus - 1}) {
                INFO(sample << " colour by " << mode << ", GPU " << g);
                CHECK(pixelAtCell(image, t, scene.layout().gpuRect(g)) ==
                      expectedColor(mode, g, *doc).rgb());
            }
        }
    }
}

TEST_CASE("on Fairwater, TP/CP/PP stay in the rack and DP repeats the same colours in every rack")
{
    auto doc = openSample("fairwater-gb200-128.csession");
    const cs::Placement& pl = doc->placement();
    CHECK(pl.dimension(cs::Dim::TP).insideDomain());
    CHECK(pl.dimension(cs::Dim::CP).insideDomain());
    CHECK(pl.dimension(cs::Dim::PP).insideDomain());
    CHECK_FALSE(pl.dimension(cs::Dim::DP).insideDomain());
    TopologyScene scene(doc->topology(), pl, doc->evaluation(), 1.6);
    cs::ViewState view;
    view.colorBy = *cs::colorModeFromString("dp");
    const QImage image = renderScene(scene, view, kRenderSize);
    const ViewTransform t = scene.transform(view, QSizeF(kRenderSize));
    const int perRack = 64;
    for (int local : {0, 9, 63})
        for (int rack : {1, 17, 127})
            CHECK(pixelAtCell(image, t, scene.layout().gpuRect(rack * perRack + local)) ==
                  pixelAtCell(image, t, scene.layout().gpuRect(local)));
    const Legend legend = scene.legend();
    REQUIRE(legend.notes.size() == 4);
    CHECK(legend.notes[0].contains("inside NVLink domain"));
    CHECK(legend.notes[3].contains("crosses fabric"));
}

TEST_CASE("selecting a rank highlights exactly the members of its TP, CP, PP and DP groups")
{
    auto doc = openSample("fairwater-gb200-128.csession");
    const cs::Placement& pl = doc->placement();
    TopologyScene scene(doc->topology(), pl, doc->evaluation(), 1.6);
    for (int rank : {0, 77, 5000}) {
        INFO("rank " << rank);
        const GroupSelection sel = selectRank(rank, scene.layout(), pl);
        std::set<int> expected;
        for (cs::Dim d : cs::kAllDims) {
            const auto members = pl.groupMembers(rank, d);
            CHECK(sel.members[d] == members);
            expected.insert(members.begin(), members.end());
        }
        // DP crosses racks: its NIC links and the leaf uplinks are lit; TP uses NVLink only.
        CHECK(sel.bundles[cs::Dim::DP].size() > 1);
        CHECK(sel.bundles[cs::Dim::TP].empty());
        for (int link : sel.links[cs::Dim::TP])
            CHECK(doc->topology().links()[size_t(link)].cls == cs::LinkClass::NVLink);

        // In the picture, every GPU but the members is dimmed.
        cs::ViewState view;
        view.colorBy = *cs::colorModeFromString("pp");
        view.highlightRank = rank;
        const QImage image = renderScene(scene, view, kRenderSize);
        const ViewTransform t = scene.transform(view, QSizeF(kRenderSize));
        const GpuColors& colors = scene.renderer().gpuColors();
        std::set<int> lit;
        for (int g = 0; g < int(doc->topology().gpus().size()); ++g)
            if (pixelAtCell(image, t, scene.layout().gpuRect(g)) !=
                TopologyRenderer::dimmed(colors.colorOf(g)).rgb())
                lit.insert(g);
        std::vector<int> wrong;
        std::set_symmetric_difference(lit.begin(), lit.end(), expected.begin(), expected.end(),
                                      std::back_inserter(wrong));
        CHECK(wrong == std::vector<int>{});
    }
}

TEST_CASE("a frame drawn after a selection, hover and labels is the frame of a fresh view")
{
    // Frames are composed over the last one: whatever the overlays covered must be restored.
    auto doc = openSample("fairwater-gb200-128.csession");
    TopologyScene used(doc->topology(), doc->placement(), doc->evaluation(), 1.6);
    TopologyScene fresh(doc->topology(), doc->placement(), doc->evaluation(), 1.6);
    const QPointF rack = used.layout().rackRect(5).center();
    for (double zoom : {1.0, 8.0, 40.0}) { // far out; racks labelled; GPU labels and links
        INFO("zoom " << zoom);
        cs::ViewState plain;
        plain.zoom = zoom;
        plain.center = {rack.x(), rack.y()};
        cs::ViewState selected = plain;
        selected.highlightRank = 5 * 64 + 9;
        used.renderer().setHover({HitKind::Rack, 5});
        renderScene(used, selected, kRenderSize);
        used.renderer().setHover({HitKind::Gpu, 5 * 64 + 20});
        renderScene(used, plain, kRenderSize);
        used.renderer().setHover({});
        CHECK(renderScene(used, plain, kRenderSize) == renderScene(fresh, plain, kRenderSize));
    }
}

TEST_CASE("while zooming the static layer is a scaled preview, and exact once zooming rests")
{
    auto doc = openSample("ndv5-h100-1344-gpt3-175b.csession");
    TopologyScene zooming(doc->topology(), doc->placement(), doc->evaluation(), 1.6);
    TopologyScene fresh(doc->topology(), doc->placement(), doc->evaluation(), 1.6);
    cs::ViewState start, zoomed;
    zoomed.zoom = 1.3;
    zoomed.center = {40, -20};
    renderScene(zooming, start, kRenderSize);
    zooming.renderer().setScalingPreview(true);
    const QImage preview = renderScene(zooming, zoomed, kRenderSize);
    zooming.renderer().setScalingPreview(false);
    const QImage exact = renderScene(fresh, zoomed, kRenderSize);
    CHECK(preview != exact);
    CHECK(renderScene(zooming, zoomed, kRenderSize) == exact);
    // The GPU cells are exact in the preview too: only the layer under them is scaled.
    const ViewTransform t = fresh.transform(zoomed, QSizeF(kRenderSize));
    for (int g : {0, 777, 5000, 10751})
        if (t.visibleWorld().contains(fresh.layout().gpuRect(g).center()))
            CHECK(pixelAtCell(preview, t, fresh.layout().gpuRect(g)) ==
                  pixelAtCell(exact, t, fresh.layout().gpuRect(g)));
}

TEST_CASE("inspector says where each group of the selected rank runs")
{
    auto doc = openSample("ndv5-h100-1344-gpt3-175b.csession");
    InspectorPanel panel;
    panel.showRank(doc->topology(), doc->placement(), doc->evaluation(), doc->run(), 9);
    const QString text = panel.text();
    CHECK(text.contains("Rank 9"));
    CHECK(text.contains("tp 1, cp 0, pp 2, dp 0"));
    CHECK(text.contains("inside NVLink domain")); // TP 4 in the 8-GPU node
    CHECK(text.contains("crosses fabric"));       // PP and DP leave the node
}

TEST_CASE("render writes a PNG of the asked size, and reports bad input")
{
    QTemporaryDir dir;
    for (QSize size : {QSize(800, 500), QSize(333, 777)}) {
        RenderRequest request;
        request.input = sampleFile("fairwater-gb200-128.csession");
        request.output = dir.filePath(QStringLiteral("out.png"));
        request.size = size;
        request.colorBy = QStringLiteral("dp");
        request.selectRank = 3;
        REQUIRE(renderToPng(request) == 0);
        const QImage image(request.output);
        CHECK(image.size() == size);
    }
    RenderRequest missing;
    missing.input = dir.filePath(QStringLiteral("nothing.csession"));
    missing.output = dir.filePath(QStringLiteral("never.png"));
    CHECK(renderToPng(missing) == 1);
    CHECK_FALSE(QFile::exists(missing.output));
    RenderRequest badRank;
    badRank.input = sampleFile("ndv5-h200-64-gpt3-175b.run.json");
    badRank.output = missing.output;
    badRank.selectRank = 512;
    CHECK(renderToPng(badRank) == 1);
}

TEST_CASE("a selection's lit links pass under the names of racks, which stay legible")
{
    auto doc = openSample("gb200-16-deepseek-v3.csession");
    TopologyScene scene(doc->topology(), doc->placement(), doc->evaluation(), 1.6);
    cs::ViewState plain = doc->view(); // the session's: EP colours, the whole data hall
    plain.highlightRank = -1;
    cs::ViewState selected = plain;
    selected.highlightRank = 22; // its data-parallel links run down to racks 0 to 3
    const QImage before = renderScene(scene, plain, kRenderSize);
    const QImage after = renderScene(scene, selected, kRenderSize);
    const ViewTransform t = scene.transform(plain, QSizeF(kRenderSize));
    std::set<QRgb> lit;
    for (cs::Dim d : cs::kAllDims)
        lit.insert(TopologyRenderer::selectionColor(d).rgb());
    auto litPixels = [&](const QImage& image, const QRect& area) {
        REQUIRE(image.rect().contains(area));
        int n = 0;
        for (int y = area.top(); y <= area.bottom(); ++y)
            for (int x = area.left(); x <= area.right(); ++x)
                n += int(lit.count(image.pixel(x, y)));
        return n;
    };
    // Rack 1's name ("rack 1: ...") is written above the rack, where the links to its NICs
    // come down: they are lit just above the name, and not in it.
    const QRectF rack = t.toScreen(scene.layout().rackRect(1));
    const int bottom = int(rack.top() - t.scale * 0.2) - 2;
    const QRect name(int(rack.left()) + 2, bottom - 6, 200, 6);
    const QRect above = name.translated(0, -int(t.scale * 2.6));
    CHECK(litPixels(before, above) == 0);
    CHECK(litPixels(after, above) > 0);
    CHECK(litPixels(after, name) == 0);
}
