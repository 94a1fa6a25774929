#include "fabricviews.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QUndoStack>
#include <algorithm>
#include <memory>

#include "backgroundwork.h"
#include "document.h"
#include "editcheck.h"
#include "editcommands.h"
#include "goodputpanel.h"
#include "jobsviews.h"
#include "legendwidget.h"
#include "linkloadink.h"
#include "linkspanel.h"
#include "messagetext.h"
#include "onscreen.h"
#include "replan.h"
#include "text.h"
#include "topologyscene.h"
#include "topologyview.h"
#include "traffic.h"
#include "windowlayout.h"

namespace {

QString qtext(const std::string& s)
{
    return QString::fromStdString(s);
}

QString dimLabel(cs::Dim d)
{
    const auto label = cs::dimInfo(d).shortLabel;
    return QString::fromLatin1(label.data(), int(label.size()));
}

// Adds `item` to `list` when absent, else removes it; true when it was added (a failure).
template <typename T> bool toggle(std::vector<T>& list, const T& item)
{
    const auto it = std::find(list.begin(), list.end(), item);
    if (it != list.end()) {
        list.erase(it);
        return false;
    }
    list.push_back(item);
    std::sort(list.begin(), list.end());
    return true;
}

template <typename T>
FailureEdit toggled(const cs::ClusterDesc& cluster, std::vector<T> cs::Failures::*list,
                    const T& item, const QString& fail, const QString& repair)
{
    FailureEdit edit{cluster, {}};
    edit.text = toggle(edit.cluster.failures.*list, item) ? fail : repair;
    return edit;
}

// The groups of each dimension whose traffic crosses a link.
QString groupsOnLinkText(const Document& doc, int link)
{
    const cs::RunDesc& run = doc.run();
    const bool interleaved = run.parallelism.vp > 1;
    QStringList lines;
    for (const cs::DimInfo& d : cs::kDims) {
        if (!cs::usesDim(run, d.dim) || doc.placement().size(d.dim) <= 1)
            continue;
        const std::vector<int> leaders =
            cs::groupsOnLink(doc.router(), doc.placement(), link, d.dim, interleaved);
        if (leaders.empty())
            continue;
        QStringList ranks;
        for (size_t i = 0; i < std::min<size_t>(leaders.size(), 8); ++i)
            ranks << QString::number(leaders[i]);
        if (leaders.size() > 8)
            ranks << QStringLiteral("...");
        lines << QObject::tr("%1: %2 group(s), led by rank %3")
                     .arg(dimLabel(d.dim))
                     .arg(leaders.size())
                     .arg(ranks.join(QStringLiteral(", ")));
    }
    const QString name = qtext(doc.topology().linkName(link));
    return lines.isEmpty()
               ? QObject::tr("%1 carries no group's traffic").arg(name)
               : QObject::tr("%1 carries:\n%2").arg(name, lines.join(QLatin1Char('\n')));
}

// With several jobs evaluated: the names of those whose traffic the link carries.
QString jobsOnLink(const JobsResult& jobs, int link)
{
    QStringList names;
    for (size_t j = 0; j < jobs.runs.size(); ++j)
        if (jobs.traffic.carries(size_t(link), int(j)))
            names << QString::fromStdString(cs::printable(jobs.runs[j].name));
    return names.isEmpty() ? QStringLiteral("-") : names.join(QStringLiteral(", "));
}

QString jobsLine(const Document& doc, int link)
{
    const JobsResult* jobs = doc.jobsResult();
    return jobs && doc.hasJobs() ? QObject::tr("\nJobs on it: %1").arg(jobsOnLink(*jobs, link))
                                 : QString();
}

QString linkLoadLine(const cs::StepTraffic& traffic, int link)
{
    const cs::LinkTraffic& t = traffic.links[size_t(link)];
    QStringList dims;
    for (const cs::DimInfo& d : cs::kDims)
        if (t.carries(d.dim))
            dims << dimLabel(d.dim);
    return QObject::tr("In the step: %1 busy, %2 on average%3")
        .arg(utilizationText(t.utilization), rateText(t.bytes, traffic.stepTimeS),
             dims.isEmpty() ? QString()
                            : QObject::tr("; carries %1").arg(dims.join(QStringLiteral(", "))));
}

// What tooltips need beyond one link's traffic, worked out once per scene on the first hover:
// a pass over every link is too slow for each move of the pointer on the largest clusters.
struct LoadIndex {
    std::vector<BundleLoad> bundles;
    std::vector<int> busiestAtSwitch;   // per switch: a link index, -1 for none
    std::vector<int> busiestAtNvSwitch; // per NVSwitch

    const cs::StepTraffic* source; // the traffic it was worked out from

    LoadIndex(const TopologyLayout& layout, const cs::StepTraffic& traffic)
        : bundles(bundleLoads(layout, traffic))
        , source(&traffic)
    {
        const cs::Topology& topo = layout.topology();
        busiestAtSwitch.assign(topo.switches().size(), -1);
        busiestAtNvSwitch.assign(topo.nvSwitches().size(), -1);
        for (size_t i = 0; i < topo.links().size(); ++i) {
            const cs::Link& l = topo.links()[i];
            for (const cs::Endpoint& e : {l.a, l.b}) {
                int* busiest =
                    e.kind == cs::EndpointKind::Switch     ? &busiestAtSwitch[size_t(e.index)]
                    : e.kind == cs::EndpointKind::NvSwitch ? &busiestAtNvSwitch[size_t(e.index)]
                                                           : nullptr;
                if (busiest && (*busiest < 0 || traffic.links[i].utilization >
                                                    traffic.links[size_t(*busiest)].utilization))
                    *busiest = int(i);
            }
        }
    }
};

QString busiestLine(const cs::Topology& topo, const cs::StepTraffic& traffic, int link)
{
    if (link < 0)
        return {};
    return QObject::tr("Busiest link %1: %2")
        .arg(qtext(topo.linkName(link)), linkLoadLine(traffic, link));
}

QString loadOf(const Document& doc, const LoadIndex& index, const Hit& hit)
{
    const cs::Topology& topo = doc.topology();
    const cs::StepTraffic& traffic = *index.source;
    QString out;
    switch (hit.kind) {
    case HitKind::Link:
        out = QObject::tr("%1%2\n%3")
                  .arg(qtext(topo.linkName(hit.index)))
                  .arg(topo.linkUsable(hit.index) ? QString() : QObject::tr(" (out of service)"))
                  .arg(linkLoadLine(traffic, hit.index)) +
              jobsLine(doc, hit.index);
        break;
    case HitKind::Bundle: {
        const BundleLoad& b = index.bundles[size_t(hit.index)];
        out = b.down
                  ? QObject::tr("Every link of the bundle is out of service")
                  : QObject::tr("In the step: busiest link %1, %2 on average in all")
                        .arg(utilizationText(b.utilization), rateText(b.bytes, traffic.stepTimeS));
        break;
    }
    case HitKind::Switch:
        out = qtext(topo.switchName(hit.index)) +
              (topo.switchFailed(hit.index) ? QObject::tr(" (out of service)") : QString()) +
              QLatin1Char('\n') +
              busiestLine(topo, traffic, index.busiestAtSwitch[size_t(hit.index)]);
        break;
    case HitKind::NvSwitch:
        out = qtext(topo.nvSwitchName(hit.index)) +
              (topo.nvSwitchFailed(hit.index) ? QObject::tr(" (out of service)") : QString()) +
              QLatin1Char('\n') +
              busiestLine(topo, traffic, index.busiestAtNvSwitch[size_t(hit.index)]);
        break;
    case HitKind::Gpu: {
        const int nic = topo.nicLinkOfGpu(hit.index);
        out = QObject::tr("NIC link %1: %2")
                  .arg(qtext(topo.linkName(nic)), linkLoadLine(traffic, nic)) +
              jobsLine(doc, nic);
        break;
    }
    case HitKind::Rack:
    case HitKind::None:
        break;
    }
    return out;
}

class FabricViews : public QObject {
public:
    FabricViews(QMainWindow* window, Document* doc, TopologyView* view, QMenu* tools)
        : QObject(window)
        , m_window(window)
        , m_doc(doc)
        , m_view(view)
        , m_links(new LinksPanel(window))
        , m_goodput(new GoodputPanel(window))
    {
        m_linksDock = addDock(m_links, tr("Links"), QStringLiteral("linksDock"));
        // Scrolled in a short window: its three charts keep the height their axes need.
        m_goodputDock = addDock(scrolledVertically(m_goodput, window), tr("Goodput"),
                                QStringLiteral("goodputDock"));
        view->setSceneHooks([this](TopologyScene& scene) {
            scene.setTrafficSource([this]() -> const cs::StepTraffic& {
                return sceneTraffic(*m_doc, m_doc->view().colorBy);
            });
            const TopologyLayout* layout = &scene.layout();
            auto index = std::make_shared<std::optional<LoadIndex>>();
            scene.setLoadDescriber([this, layout, index](const Hit& hit) {
                // The traffic is worked out for the views that show it, not for a tooltip.
                const bool shown = m_doc->view().colorBy.kind == cs::ColorKind::LinkLoad ||
                                   m_linksDock->isVisible();
                if (!shown)
                    return QString();
                // Again once the jobs' traffic has arrived.
                if (!*index || (*index)->source != &linkLoadTraffic(*m_doc))
                    index->emplace(*layout, linkLoadTraffic(*m_doc));
                return loadOf(*m_doc, **index, hit);
            });
        });
        connect(doc, &Document::modelChanged, this, &FabricViews::refresh);
        connect(doc, &Document::jobsEvaluated, this, [this] {
            recolorLinkLoads();
            m_linksStale = true;
            if (onScreen(m_linksDock))
                refreshLinks();
        });
        connect(m_linksDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible && m_linksStale)
                refreshLinks();
        });
        connect(m_goodputDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible && m_goodputStale)
                refreshGoodput();
        });
        connect(m_links, &LinksPanel::linkChosen, this, [this](int link) {
            m_view->markHit({HitKind::Link, link});
            m_links->showDetail(groupsOnLinkText(*m_doc, link));
        });
        connect(view, &TopologyView::contextMenuRequested, this, &FabricViews::showMenu);
        // A link clicked in the view is the Links dock's choice too.
        connect(view, &TopologyView::clicked, this, [this](const Hit& hit) {
            if (hit.kind != HitKind::Link || !m_linksDock->isVisible())
                return;
            m_view->markHit(hit);
            m_links->showLink(hit.index);
            m_links->showDetail(groupsOnLinkText(*m_doc, hit.index));
        });
        QAction* replan = tools->addAction(tr("&Re-plan on Healthy GPUs"), this,
                                           [this] { showReplan(replanDocument(m_window, m_doc)); });
        replan->setObjectName(QStringLiteral("replanHealthy"));
        replan->setStatusTip(tr("Search the fastest layout of this run on the GPUs in service, the "
                                "global batch kept, and apply it as one undo step"));
        m_replan = replan;
    }

private:
    QDockWidget* addDock(QWidget* content, const QString& title, const QString& name)
    {
        auto* dock = new QDockWidget(title, m_window);
        dock->setObjectName(name);
        dock->setWidget(content);
        m_window->addDockWidget(Qt::RightDockWidgetArea, dock);
        return dock;
    }

    void refresh()
    {
        m_linksStale = m_goodputStale = true;
        m_view->markHit({});
        if (onScreen(m_linksDock))
            refreshLinks();
        if (onScreen(m_goodputDock))
            refreshGoodput();
    }
    void refreshLinks()
    {
        m_linksStale = false;
        // Several jobs: every job's traffic, each link naming the jobs on it.
        if (const JobsResult* jobs = m_doc->jobsResult(); jobs && m_doc->hasJobs())
            m_links->setTraffic(m_doc->topology(), jobs->traffic.total,
                                [jobs](int link) { return jobsOnLink(*jobs, link); });
        else
            m_links->setTraffic(m_doc->topology(), m_doc->stepTraffic());
    }
    // The link-load colours and legend again, from every job's traffic now evaluated.
    void recolorLinkLoads()
    {
        TopologyScene* scene = m_view->scene();
        if (!scene || m_doc->view().colorBy.kind != cs::ColorKind::LinkLoad)
            return;
        scene->recolor();
        m_view->viewStateChanged();
        if (auto* legend = m_window->findChild<LegendWidget*>())
            legend->setLegend(scene->legend());
    }
    void refreshGoodput()
    {
        m_goodputStale = false;
        m_goodput->setEvaluation(m_doc->evaluation());
    }

    void showMenu(const Hit& hit, const QPoint& globalPos)
    {
        QMenu menu(m_window);
        for (const FailureEdit& edit : failureEdits(m_doc->cluster(), m_doc->topology(), hit))
            menu.addAction(edit.text, this, [this, edit] { apply(edit); });
        if (!menu.isEmpty())
            menu.addSeparator();
        menu.addAction(m_replan);
        menu.exec(globalPos);
    }

    void apply(const FailureEdit& edit)
    {
        const QString problem = problemsOf(edit.cluster, m_doc->run());
        const bool replan =
            !problem.isEmpty() &&
            QMessageBox::question(
                m_window, tr("The run no longer fits"),
                tr("%1\n\nRe-plan the run on the healthy GPUs (the search, kept as one undo step "
                   "with this change)?")
                    .arg(problem)) == QMessageBox::Yes;
        if (!problem.isEmpty() && !replan)
            return;
        std::optional<Replan> replanned;
        const QString refused = applyFailureEdit(m_window, m_doc, edit, &replanned);
        if (!refused.isEmpty())
            QMessageBox::warning(m_window, tr("Not applied"), refused + QLatin1Char('.'));
        else
            showReplan(replanned);
    }

    // What the re-plan changed and the three step times, in a box and, short, in the status
    // bar.
    void showReplan(const std::optional<Replan>& replan)
    {
        if (!replan)
            return;
        m_window->statusBar()->showMessage(
            tr("Re-planned: %1")
                .arg(replan->changes.isEmpty() ? tr("the layout is kept")
                                               : replan->changes.join(QStringLiteral(", "))),
            15'000);
        QMessageBox::information(m_window, tr("Re-planned"), replanSummary(*replan));
    }

    QMainWindow* m_window;
    Document* m_doc;
    TopologyView* m_view;
    LinksPanel* m_links;
    GoodputPanel* m_goodput;
    QDockWidget* m_linksDock = nullptr;
    QDockWidget* m_goodputDock = nullptr;
    QAction* m_replan = nullptr;
    bool m_linksStale = true;
    bool m_goodputStale = true;
};

} // namespace

std::vector<FailureEdit> failureEdits(const cs::ClusterDesc& cluster, const cs::Topology& topology,
                                      const Hit& hit)
{
    using F = cs::Failures;
    std::vector<FailureEdit> edits;
    auto named = [&](std::vector<std::string> F::*list, const std::string& name,
                     const QString& kind) {
        edits.push_back(toggled(cluster, list, name,
                                QObject::tr("Fail %1 %2").arg(kind, qtext(name)),
                                QObject::tr("Repair %1 %2").arg(kind, qtext(name))));
    };
    auto indexed = [&](std::vector<int> F::*list, int index, const QString& kind) {
        edits.push_back(toggled(cluster, list, index,
                                QObject::tr("Take %1 %2 out of service").arg(kind).arg(index),
                                QObject::tr("Return %1 %2 to service").arg(kind).arg(index)));
    };
    switch (hit.kind) {
    case HitKind::Switch:
        named(&F::switches, topology.switchName(hit.index), QObject::tr("switch"));
        break;
    case HitKind::NvSwitch:
        named(&F::switches, topology.nvSwitchName(hit.index), QObject::tr("NVSwitch"));
        break;
    case HitKind::Link:
        named(&F::links, topology.linkName(hit.index), QObject::tr("link"));
        break;
    case HitKind::Gpu: {
        const cs::Gpu& g = topology.gpus()[size_t(hit.index)];
        indexed(&F::gpus, hit.index, QObject::tr("GPU"));
        indexed(&F::nodes, g.node, QObject::tr("node"));
        indexed(&F::racks, g.rack, QObject::tr("rack"));
        named(&F::links, topology.linkName(topology.nicLinkOfGpu(hit.index)), QObject::tr("link"));
        break;
    }
    case HitKind::Rack:
        indexed(&F::racks, hit.index, QObject::tr("rack"));
        break;
    case HitKind::Bundle:
    case HitKind::None:
        break;
    }
    return edits;
}

QString problemsOf(const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    cs::Diagnostics diags;
    cs::checkEdit(cluster, run, diags);
    return problemsForPeople(diags);
}

QString applyFailureEdit(QWidget* parent, Document* doc, const FailureEdit& edit,
                         std::optional<Replan>* replanned)
{
    cs::RunDesc run = doc->run();
    QString text = edit.text;
    if (!problemsOf(edit.cluster, run).isEmpty()) {
        const auto replan = replanWithProgress(parent, edit.cluster, run);
        if (!replan)
            return QObject::tr("No layout of the run fits the healthy GPUs");
        run = replan->run;
        text +=
            replan->changes.isEmpty()
                ? QObject::tr(" and re-plan")
                : QObject::tr(" and re-plan (%1)").arg(replan->changes.join(QStringLiteral(", ")));
        if (replanned)
            *replanned = replan;
    }
    doc->undoStack()->push(new EditModelCommand(doc, edit.cluster, run, text));
    return {};
}

void addFabricViews(QMainWindow* window, Document* document, TopologyView* view, QMenu* toolsMenu)
{
    new FabricViews(window, document, view, toolsMenu);
}
