#include "topologyscene.h"

#include <QObject>
#include <algorithm>

#include "activitylinks.h"
#include "costmodel.h"
#include "description.h"
#include "linkloadink.h"
#include "placement.h"
#include "topology.h"

TopologyScene::TopologyScene(const cs::Topology& topology, const cs::Placement& placement,
                             const cs::Evaluation& evaluation, double aspect)
    : m_placement(placement)
    , m_evaluation(evaluation)
    , m_layout(topology, aspect)
    , m_renderer(m_layout, placement)
{
}

TopologyScene::TopologyScene(TopologyLayout layout, const cs::Placement& placement,
                             const cs::Evaluation& evaluation)
    : m_placement(placement)
    , m_evaluation(evaluation)
    , m_layout(std::move(layout))
    , m_renderer(m_layout, placement)
{
}

void TopologyScene::applyView(const cs::ViewState& view)
{
    const bool activity = view.colorBy.kind == cs::ColorKind::Activity;
    if (view.colorBy != m_colorBy || !m_colorsApplied) {
        m_colorBy = view.colorBy;
        m_colorsApplied = true;
        const bool loads = m_colorBy.kind == cs::ColorKind::LinkLoad && m_traffic;
        if (loads || !m_renderer.linkInk().empty())
            m_renderer.setLinkInk(loads ? linkLoadInk(m_layout, m_traffic()) : LinkInk{});
        const auto own = m_colorSource ? m_colorSource(m_colorBy) : std::nullopt;
        if (!activity)
            m_renderer.setGpuColors(
                own ? own->colors
                    : colorGpus(m_colorBy, m_layout.topology(), m_placement, m_evaluation));
    }
    if (activity) {
        if (!m_activity) {
            m_activity.emplace(m_evaluation, m_placement, m_layout.topology());
            if (m_traffic)
                m_routes = dimRoutes(m_layout, m_traffic());
        }
        m_timeS = view.timeS;
        m_renderer.setGpuColors(m_activity->colorsAt(view.timeS));
    }
    if (view.highlightRank != m_selectedRank) {
        m_selectedRank = view.highlightRank;
        m_renderer.setSelection(selectRank(view.highlightRank, m_layout, m_placement));
    }
}

void TopologyScene::paintOverlay(QPainter& painter, const ViewTransform& transform) const
{
    if (m_colorBy.kind == cs::ColorKind::Activity && m_activity)
        paintActivityLinks(painter, m_layout, transform, m_activity->linkUseAt(m_timeS),
                           m_routes ? &*m_routes : nullptr);
}

ViewTransform TopologyScene::transform(const cs::ViewState& view, QSizeF viewport) const
{
    return viewTransformFor(m_layout.bounds(), viewport, view.zoom,
                            QPointF(view.center[0], view.center[1]));
}

void TopologyScene::storeTransform(const ViewTransform& transform, cs::ViewState* view) const
{
    view->zoom = transform.scale / fitScale(m_layout.bounds(), transform.viewport);
    view->center = {transform.center.x(), transform.center.y()};
}

Legend TopologyScene::legend() const
{
    const cs::Topology& topo = m_layout.topology();
    const auto own = m_colorSource ? m_colorSource(m_colorBy) : std::nullopt;
    Legend legend = own ? own->legend
                    : m_colorBy.kind == cs::ColorKind::LinkLoad && m_traffic
                        ? linkLoadLegend(m_traffic())
                        : legendFor(m_colorBy, topo, m_placement);
    QStringList out;
    if (m_evaluation.gpusFailed > 0)
        out << QObject::tr("%1 GPUs (dark)").arg(m_evaluation.gpusFailed);
    if (topo.hasFabricFailures())
        out << QObject::tr("switches (crossed) or links (dashed)");
    if (!out.isEmpty())
        legend.notes << QObject::tr("out of service: %1").arg(out.join(QObject::tr(" and ")));
    return legend;
}

QString TopologyScene::describeGpu(int gpu) const
{
    const cs::Topology& topo = m_layout.topology();
    const cs::ClusterDesc& c = topo.cluster();
    const cs::Gpu& g = topo.gpus()[size_t(gpu)];
    const cs::Node& node = topo.nodes()[size_t(g.node)];
    QStringList lines;
    // Positions one-based ("tray 1 of 16"); the GPU and the rack by their index, as labelled.
    // A rack-wide NVLink domain's nodes are its compute trays; other racks hold servers.
    const bool trays = c.scaleUp.domain == cs::DomainKind::Rack;
    lines << (trays ? QObject::tr("GPU %1 (%2): rack %3, compute tray %4 of %5, GPU %6 of %7 on it")
                    : QObject::tr("GPU %1 (%2): rack %3, node %4 of %5, GPU %6 of %7 in it"))
                 .arg(gpu)
                 .arg(QString::fromStdString(c.gpu.name))
                 .arg(g.rack)
                 .arg(node.indexInRack + 1)
                 .arg(c.nodesPerRack)
                 .arg(g.local + 1)
                 .arg(c.gpusPerNode);
    lines << QObject::tr("NVLink domain %1; its NIC (rail %2) goes to leaf switch %3")
                 .arg(g.domain)
                 .arg(g.local)
                 .arg(topo.switches()[size_t(g.leaf)].index);
    const int rank = m_placement.rankOfGpu(gpu);
    if (rank < 0) {
        lines << QObject::tr("holds no rank (idle or out of service)");
        return lines.join(QLatin1Char('\n'));
    }
    const cs::RankCoord rc = m_placement.coord(rank);
    QStringList coords;
    for (const cs::DimInfo& d : cs::kDims)
        if (d.placed || m_placement.size(d.dim) > 1)
            coords << QStringLiteral("%1 %2")
                          .arg(QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size())))
                          .arg(rc[d.dim]);
    lines << QObject::tr("rank %1: %2").arg(rank).arg(coords.join(QStringLiteral(", ")));
    auto groupLine = [&](const QString& name, int index, const std::vector<int>& members) {
        std::vector<int> domains;
        for (int member : members)
            domains.push_back(topo.gpus()[size_t(m_placement.gpuOfRank(member))].domain);
        std::sort(domains.begin(), domains.end());
        const auto span = std::unique(domains.begin(), domains.end()) - domains.begin();
        return QObject::tr("%1 group %2 of %3 ranks: %4")
            .arg(name)
            .arg(index)
            .arg(members.size())
            .arg(span == 1 ? QObject::tr("inside its NVLink domain")
                           : QObject::tr("crosses the fabric (%1 domains)").arg(span));
    };
    for (const cs::DimInfo& d : cs::kDims) {
        if (m_placement.size(d.dim) <= 1)
            continue;
        lines << groupLine(QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size())),
                           m_placement.groupIndex(rank, d.dim),
                           m_placement.groupMembers(rank, d.dim));
        // Expert gradients are reduced over the expert data-parallel group.
        if (d.dim == cs::Dim::EP && m_placement.expertData().size > 1)
            lines << groupLine(QObject::tr("expert DP"), m_placement.expertDataIndex(rank),
                               m_placement.expertDataMembers(rank));
    }
    return lines.join(QLatin1Char('\n'));
}

QString TopologyScene::describe(const Hit& hit) const
{
    const cs::Topology& topo = m_layout.topology();
    const cs::ClusterDesc& c = topo.cluster();
    QString text;
    switch (hit.kind) {
    case HitKind::Gpu:
        text = describeGpu(hit.index);
        break;
    case HitKind::NvSwitch: {
        const cs::NvSwitch& s = topo.nvSwitches()[size_t(hit.index)];
        text =
            QObject::tr(
                "NVSwitch %1 of NVLink domain %2 (rack %3)\n%4: %5 GB/s per GPU, both directions")
                .arg(s.indexInDomain)
                .arg(s.domain)
                .arg(s.rack)
                .arg(QString::fromStdString(c.scaleUp.name))
                .arg(c.scaleUp.GBpsPerGpu);
        break;
    }
    case HitKind::Rack: {
        const cs::Rack& r = topo.racks()[size_t(hit.index)];
        const int last = r.firstGpu + c.nodesPerRack * c.gpusPerNode - 1;
        text = QObject::tr("Rack %1 (row %2, column %3): %4 trays x %5 %6\nGPUs %7 to %8")
                   .arg(hit.index)
                   .arg(r.row)
                   .arg(r.column)
                   .arg(c.nodesPerRack)
                   .arg(c.gpusPerNode)
                   .arg(QString::fromStdString(c.gpu.name))
                   .arg(r.firstGpu)
                   .arg(last);
        const int first = m_placement.rankOfGpu(r.firstGpu), end = m_placement.rankOfGpu(last);
        if (first >= 0 && end >= 0)
            text += QObject::tr("; ranks %1 to %2").arg(first).arg(end);
        break;
    }
    case HitKind::Switch: {
        const cs::Switch& s = topo.switches()[size_t(hit.index)];
        static const char* const names[] = {"", "Leaf", "Spine", "Core"};
        text = QObject::tr("%1 switch %2 (tier %3 of the scale-out fabric, %4)")
                   .arg(names[std::clamp(s.tier, 1, 3)])
                   .arg(s.index)
                   .arg(s.tier)
                   .arg(QString::fromStdString(c.scaleOut.name));
        if (s.rail >= 0)
            text += QObject::tr("\nrail %1: the NICs of GPU %1 of every tray in node group %2")
                        .arg(s.rail)
                        .arg(s.group);
        break;
    }
    case HitKind::Link: {
        const cs::Link& l = topo.links()[size_t(hit.index)];
        text =
            QObject::tr("%1 link: %2 cable(s), %3 GB/s per direction, %4 us")
                .arg(QString::fromLatin1(cs::labelOf(l.cls).data(), int(cs::labelOf(l.cls).size())))
                .arg(l.cables)
                .arg(l.GBps)
                .arg(l.latencyUs);
        break;
    }
    case HitKind::Bundle: {
        const LinkBundle& b = m_layout.bundles()[size_t(hit.index)];
        const QString from = b.rack >= 0 ? QObject::tr("rack %1").arg(b.rack)
                                         : QObject::tr("%1 switch(es)").arg(b.lowerSwitches.size());
        text =
            QObject::tr("%1 bundle from %2 to %3 switch(es): %4 links, %5 GB/s per direction")
                .arg(QString::fromLatin1(cs::labelOf(b.cls).data(), int(cs::labelOf(b.cls).size())))
                .arg(from)
                .arg(b.upperSwitches.size())
                .arg(b.links)
                .arg(b.GBps);
        break;
    }
    case HitKind::None:
        return {};
    }
    if (m_load) {
        const QString load = m_load(hit);
        if (!load.isEmpty())
            text += QLatin1Char('\n') + load;
    }
    return text;
}
