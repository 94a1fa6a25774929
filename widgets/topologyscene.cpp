#include "topologyscene.h"

#include <QObject>

#include "activitylinks.h"
#include "costmodel.h"
#include "description.h"
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

void TopologyScene::applyView(const cs::ViewState& view)
{
    const bool activity = view.colorBy.kind == cs::ColorKind::Activity;
    if (view.colorBy != m_colorBy || !m_colorsApplied) {
        m_colorBy = view.colorBy;
        m_colorsApplied = true;
        if (!activity)
            m_renderer.setGpuColors(
                colorGpus(m_colorBy, m_layout.topology(), m_placement, m_evaluation));
    }
    if (activity) {
        if (!m_activity)
            m_activity.emplace(m_evaluation, m_placement, m_layout.topology());
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
        paintActivityLinks(painter, m_layout, transform, m_activity->linkUseAt(m_timeS));
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
    return legendFor(m_colorBy, m_layout.topology(), m_placement, m_evaluation);
}

QString TopologyScene::describe(const Hit& hit) const
{
    const cs::Topology& topo = m_layout.topology();
    const cs::ClusterDesc& c = topo.cluster();
    switch (hit.kind) {
    case HitKind::Gpu: {
        const cs::Gpu& g = topo.gpus()[size_t(hit.index)];
        const QString where = QObject::tr("GPU %1: rack %2, node %3, GPU %4 in node\n")
                                  .arg(hit.index)
                                  .arg(g.rack)
                                  .arg(g.node)
                                  .arg(g.local);
        const QString fabric = QObject::tr("NVLink domain %1, leaf L%2")
                                   .arg(g.domain)
                                   .arg(topo.switches()[size_t(g.leaf)].index);
        const int rank = m_placement.rankOfGpu(hit.index);
        if (rank < 0)
            return where + QObject::tr("holds no rank\n") + fabric;
        const cs::RankCoord rc = m_placement.coord(rank);
        QStringList coords;
        for (const cs::DimInfo& d : cs::kDims)
            if (d.placed || m_placement.size(d.dim) > 1)
                coords << QStringLiteral("%1 %2")
                              .arg(QString::fromLatin1(d.key.data(), int(d.key.size())))
                              .arg(rc[d.dim]);
        return where +
               QObject::tr("rank %1: %2\n").arg(rank).arg(coords.join(QStringLiteral("  "))) +
               fabric;
    }
    case HitKind::NvSwitch: {
        const cs::NvSwitch& s = topo.nvSwitches()[size_t(hit.index)];
        return QObject::
            tr("NVSwitch %1 of NVLink domain %2 (rack %3)\n%4: %5 GB/s per GPU, both directions")
                .arg(s.indexInDomain)
                .arg(s.domain)
                .arg(s.rack)
                .arg(QString::fromStdString(c.scaleUp.name))
                .arg(c.scaleUp.GBpsPerGpu);
    }
    case HitKind::Rack: {
        const cs::Rack& r = topo.racks()[size_t(hit.index)];
        return QObject::tr("Rack %1 (row %2, column %3): %4 nodes x %5 %6\nGPUs %7 to %8")
            .arg(hit.index)
            .arg(r.row)
            .arg(r.column)
            .arg(c.nodesPerRack)
            .arg(c.gpusPerNode)
            .arg(QString::fromStdString(c.gpu.name))
            .arg(r.firstGpu)
            .arg(r.firstGpu + c.nodesPerRack * c.gpusPerNode - 1);
    }
    case HitKind::Switch: {
        const cs::Switch& s = topo.switches()[size_t(hit.index)];
        static const char* const names[] = {"", "Leaf", "Spine", "Core"};
        QString text = QObject::tr("%1 switch %2 (tier %3)")
                           .arg(names[std::clamp(s.tier, 1, 3)])
                           .arg(s.index)
                           .arg(s.tier);
        if (s.rail >= 0)
            text += QObject::tr("\nrail %1, node group %2").arg(s.rail).arg(s.group);
        return text;
    }
    case HitKind::Link: {
        const cs::Link& l = topo.links()[size_t(hit.index)];
        return QObject::tr("%1 link: %2 cable(s), %3 GB/s per direction, %4 us")
            .arg(QString::fromLatin1(cs::labelOf(l.cls).data(), int(cs::labelOf(l.cls).size())))
            .arg(l.cables)
            .arg(l.GBps)
            .arg(l.latencyUs);
    }
    case HitKind::Bundle: {
        const LinkBundle& b = m_layout.bundles()[size_t(hit.index)];
        const QString from = b.rack >= 0 ? QObject::tr("rack %1").arg(b.rack)
                                         : QObject::tr("%1 switch(es)").arg(b.lowerSwitches.size());
        return QObject::tr("%1 bundle from %2 to %3 switch(es): %4 links, %5 GB/s per direction")
            .arg(QString::fromLatin1(cs::labelOf(b.cls).data(), int(cs::labelOf(b.cls).size())))
            .arg(from)
            .arg(b.upperSwitches.size())
            .arg(b.links)
            .arg(b.GBps);
    }
    case HitKind::None:
        break;
    }
    return {};
}
