#include "inspectorpanel.h"

#include <QTextBrowser>
#include <QVBoxLayout>
#include <set>

#include "costmodel.h"
#include "gpucolors.h"
#include "placement.h"
#include "topology.h"
#include "topologyrenderer.h"

namespace {

QString row(const QString& key, const QString& value)
{
    return QStringLiteral("<tr><td style='color:#9aa3ad;padding-right:8px'>%1</td><td>%2</td></tr>")
        .arg(key.toHtmlEscaped(), value);
}

QString membersText(const std::vector<int>& members)
{
    constexpr size_t kShown = 8;
    QStringList parts;
    for (size_t i = 0; i < std::min(members.size(), kShown); ++i)
        parts << QString::number(members[i]);
    if (members.size() > kShown)
        parts << QStringLiteral("... %1 ranks").arg(members.size());
    return parts.join(QStringLiteral(", "));
}

QString dimLabel(const cs::DimInfo& d)
{
    return QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size()));
}

QString expertsText(const cs::ExpertRange& experts, const cs::Moe& moe, int etp)
{
    const QString range =
        experts.count == 1 ? QObject::tr("expert %1").arg(experts.first)
                           : QObject::tr("experts %1 to %2").arg(experts.first).arg(experts.last());
    QString text =
        QObject::tr("%1 of %2 routed (%3 per GPU)").arg(range).arg(moe.experts).arg(experts.count);
    if (etp > 1)
        text += QObject::tr(", each split over its %1 expert-TP ranks").arg(etp);
    if (moe.sharedExperts > 0)
        text += moe.sharedExperts == 1
                    ? QObject::tr("; the shared expert on every GPU")
                    : QObject::tr("; %1 shared experts on every GPU").arg(moe.sharedExperts);
    return text;
}

QString clusterSummary(const cs::Topology& topology, const cs::Placement& placement)
{
    const cs::ClusterDesc& c = topology.cluster();
    QString html =
        QStringLiteral("<h3>%1</h3><table>").arg(QString::fromStdString(c.name).toHtmlEscaped());
    html += row(QObject::tr("GPUs"), QObject::tr("%1 x %2 in %3 racks of %4 nodes")
                                         .arg(c.gpuCount())
                                         .arg(QString::fromStdString(c.gpu.name))
                                         .arg(c.racks)
                                         .arg(c.nodesPerRack));
    html += row(QObject::tr("NVLink domain"),
                QObject::tr("%1 GPUs (one %2)")
                    .arg(topology.domainSize())
                    .arg(c.scaleUp.domain == cs::DomainKind::Rack ? QObject::tr("rack")
                                                                  : QObject::tr("node")));
    for (const cs::DimInfo& d : cs::kDims)
        if (d.placed || placement.size(d.dim) > 1)
            html += row(dimLabel(d) + QStringLiteral(" %1").arg(placement.size(d.dim)),
                        placementSummary(placement, d.dim).toHtmlEscaped());
    html += QStringLiteral("</table><p style='color:#9aa3ad'>%1</p>")
                .arg(QObject::tr("Click a GPU to see its rank, groups and links."));
    return html;
}

} // namespace

QString inspectorHtml(const cs::Topology& topology, const cs::Placement& placement,
                      const cs::Evaluation& evaluation, const cs::RunDesc& run, int rank)
{
    if (rank < 0 || rank >= placement.worldSize())
        return clusterSummary(topology, placement);
    const cs::ClusterDesc& c = topology.cluster();
    const int gpu = placement.gpuOfRank(rank);
    const cs::Gpu& g = topology.gpus()[size_t(gpu)];
    const cs::RankCoord coord = placement.coord(rank);
    QString html = QObject::tr("<h3>Rank %1</h3><table>").arg(rank);
    html += row(QObject::tr("GPU"), QObject::tr("%1 (%2), GPU %3 of node %4, rack %5")
                                        .arg(gpu)
                                        .arg(QString::fromStdString(c.gpu.name))
                                        .arg(g.local)
                                        .arg(g.node)
                                        .arg(g.rack));
    html += row(QObject::tr("NVLink domain"), QString::number(g.domain));
    QStringList coords;
    for (const cs::DimInfo& d : cs::kDims)
        if (d.placed || placement.size(d.dim) > 1)
            coords << QStringLiteral("%1 %2")
                          .arg(QString::fromLatin1(d.key.data(), int(d.key.size())))
                          .arg(coord[d.dim]);
    html += row(QObject::tr("Coordinates"), coords.join(QStringLiteral(", ")));
    if (const cs::ExpertRange experts = cs::expertsOfRank(placement, run.model, rank);
        experts.count > 0)
        html += row(QObject::tr("Experts"), expertsText(experts, *run.model.moe, placement.etp()));
    const int stage = coord[cs::Dim::PP];
    if (size_t(stage) < evaluation.memoryGiBPerStage.size()) {
        const double mem = evaluation.memoryGiBPerStage[size_t(stage)];
        html += row(QObject::tr("Memory"),
                    QObject::tr("%1 GiB of %2 GiB HBM (stage %3)%4")
                        .arg(mem, 0, 'f', 1)
                        .arg(c.gpu.hbmGiB)
                        .arg(stage)
                        .arg(mem > c.gpu.hbmGiB ? QObject::tr(": does not fit") : QString()));
    }
    html += QStringLiteral("</table><h4>%1</h4><table>").arg(QObject::tr("Groups"));
    bool usesNvLink = false, usesFabric = false;
    auto groupRow = [&](const QString& name, const QColor& color, const std::vector<int>& members) {
        std::set<int> domains;
        for (int r : members)
            domains.insert(topology.gpus()[size_t(placement.gpuOfRank(r))].domain);
        const bool crosses = domains.size() > 1;
        if (members.size() > 1)
            (crosses ? usesFabric : usesNvLink) = true;
        const QString where =
            members.size() <= 1 ? QObject::tr("size 1")
            : crosses ? QObject::tr("<b style='color:#ff9e9e'>crosses fabric</b> (%1 domains)")
                            .arg(domains.size())
                      : QObject::tr("<b style='color:#a8e07a'>inside NVLink domain</b>");
        return row(name, QStringLiteral("<span style='color:%1'>&#9632;</span> %2<br>%3")
                             .arg(color.name(), where, membersText(members)));
    };
    for (const cs::DimInfo& info : cs::kDims) {
        const cs::Dim d = info.dim;
        if (!info.placed && placement.size(d) <= 1)
            continue;
        html += groupRow(
            QStringLiteral("%1 group %2").arg(dimLabel(info)).arg(placement.groupIndex(rank, d)),
            TopologyRenderer::selectionColor(d), placement.groupMembers(rank, d));
        // Expert gradients are reduced over the expert data-parallel group, not over DP.
        if (d == cs::Dim::EP)
            html += groupRow(QObject::tr("Expert DP group %1").arg(placement.expertDataIndex(rank)),
                             TopologyRenderer::selectionColor(cs::Dim::DP),
                             placement.expertDataMembers(rank));
    }
    html += QStringLiteral("</table><h4>%1</h4><table>").arg(QObject::tr("Links its traffic uses"));
    if (usesNvLink)
        html += row(QString::fromStdString(c.scaleUp.name).toHtmlEscaped(),
                    QObject::tr("%1 GB/s per direction per GPU, %2 us")
                        .arg(c.nvlinkGBpsPerDirection())
                        .arg(c.scaleUp.latencyUs));
    if (usesFabric) {
        html += row(QObject::tr("NIC to leaf L%1").arg(topology.switches()[size_t(g.leaf)].index),
                    QObject::tr("%1 GB/s per direction (%2 Gb/s), %3 us")
                        .arg(c.nicGBpsPerDirection())
                        .arg(c.scaleOut.GbpsPerGpu)
                        .arg(c.scaleOut.latencyUs));
        for (int tier = 2; tier <= c.scaleOut.topology.tiers; ++tier)
            html += row(QObject::tr("Tier %1 uplinks").arg(tier),
                        QObject::tr("oversubscription %1:1")
                            .arg(c.scaleOut.topology.oversubscriptionAt(tier - 2)));
    }
    html += QStringLiteral("</table>");
    return html;
}

InspectorPanel::InspectorPanel(QWidget* parent)
    : QWidget(parent)
    , m_text(new QTextBrowser(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text);
}

void InspectorPanel::showRank(const cs::Topology& topology, const cs::Placement& placement,
                              const cs::Evaluation& evaluation, const cs::RunDesc& run, int rank)
{
    m_html = inspectorHtml(topology, placement, evaluation, run, rank);
    m_text->setHtml(m_html + m_appendix);
}

void InspectorPanel::setAppendix(const QString& html)
{
    if (html == m_appendix)
        return;
    m_appendix = html;
    m_text->setHtml(m_html + m_appendix);
}

void InspectorPanel::clear()
{
    m_html.clear();
    m_text->clear();
}

QString InspectorPanel::text() const
{
    return m_text->toPlainText();
}
