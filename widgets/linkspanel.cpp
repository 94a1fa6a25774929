#include "linkspanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include "linkloadink.h"
#include "linkloads.h"
#include "numberitem.h"
#include "text.h"
#include "topology.h"

namespace {

enum LinkColumn { kLink, kTier, kUtilization, kRate, kDims, kJobs, kLinkColumns };

QString dimsText(const cs::LinkTraffic& t)
{
    QStringList words;
    for (const cs::DimInfo& d : cs::kDims)
        if (t.carries(d.dim))
            words << QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size()));
    return words.isEmpty() ? QStringLiteral("-") : words.join(QStringLiteral(", "));
}

} // namespace

LinksPanel::LinksPanel(QWidget* parent)
    : QWidget(parent)
    , m_table(new QTableWidget(0, kLinkColumns, this))
    , m_summary(new QLabel(this))
    , m_detail(new QLabel(this))
{
    m_table->setHorizontalHeaderLabels({tr("Link"), tr("Tier"), tr("Utilization"),
                                        tr("Average rate"), tr("Dimensions"), tr("Jobs")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSortingEnabled(true);
    m_table->setObjectName(QStringLiteral("linksTable"));
    m_summary->setWordWrap(true);
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setObjectName(QStringLiteral("linkDetail"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_detail);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_table->selectionModel()->selectedRows();
        if (!rows.isEmpty() && linkAt(rows.front().row()) >= 0)
            emit linkChosen(linkAt(rows.front().row()));
    });
}

int LinksPanel::linkAt(int row) const
{
    const QTableWidgetItem* item = m_table->item(row, kLink);
    return item ? item->data(Qt::UserRole).toInt() : -1;
}

void LinksPanel::showLink(int link)
{
    const QSignalBlocker quiet(m_table);
    m_table->clearSelection();
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (linkAt(row) == link) {
            m_table->selectRow(row);
            m_table->scrollToItem(m_table->item(row, 0));
        }
}

void LinksPanel::clear()
{
    m_table->setRowCount(0);
    m_summary->clear();
    m_detail->clear();
}

void LinksPanel::showDetail(const QString& text)
{
    m_detail->setText(text);
}

void LinksPanel::setTraffic(const cs::Topology& topology, const cs::StepTraffic& traffic,
                            const std::function<QString(int link)>& jobsOn)
{
    m_table->setColumnHidden(kJobs, !jobsOn);
    const std::vector<int> hottest = traffic.hottest(kRows);
    m_table->setSortingEnabled(false);
    m_table->clearContents();
    m_table->setRowCount(int(hottest.size()));
    for (int row = 0; row < int(hottest.size()); ++row) {
        const int link = hottest[size_t(row)];
        const cs::LinkTraffic& t = traffic.links[size_t(link)];
        auto* name = new QTableWidgetItem(QString::fromStdString(topology.linkName(link)));
        name->setData(Qt::UserRole, link);
        const auto tier = cs::labelOf(topology.links()[size_t(link)].cls);
        m_table->setItem(row, kLink, name);
        m_table->setItem(row, kTier,
                         new QTableWidgetItem(QString::fromLatin1(tier.data(), int(tier.size()))));
        m_table->setItem(row, kUtilization,
                         sortableNumber(t.utilization, utilizationText(t.utilization)));
        m_table->setItem(row, kRate, sortableNumber(t.bytes, rateText(t.bytes, traffic.stepTimeS)));
        m_table->setItem(row, kDims, new QTableWidgetItem(dimsText(t)));
        if (jobsOn)
            m_table->setItem(row, kJobs, new QTableWidgetItem(jobsOn(link)));
    }
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(kUtilization, Qt::DescendingOrder);
    m_table->resizeColumnsToContents();
    m_summary->setText(
        (jobsOn ? tr("Every job's traffic: the %1 busiest of %2 links in a step of %3 s")
                : tr("The %1 busiest of %2 links in a step of %3 s"))
            .arg(hottest.size())
            .arg(QString::fromStdString(cs::withThousands(int64_t(traffic.links.size()))))
            .arg(QString::fromStdString(cs::fixed(traffic.stepTimeS, 3))));
    m_detail->setText(
        tr("Choose a link to see it in the view and the groups whose traffic uses it."));
}
