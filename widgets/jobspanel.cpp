#include "jobspanel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "text.h"

namespace {

enum Column { Name, Gpus, Alone, Shared, SlowedBy, Allocation, Columns };

QString stepText(const std::optional<double>& seconds)
{
    return seconds ? QString::fromStdString(cs::stepTimeText(*seconds)) : QStringLiteral("...");
}

QTableWidgetItem* cell(const QString& text, bool editable = false, bool number = false)
{
    auto* item = new QTableWidgetItem(text);
    Qt::ItemFlags flags = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    if (editable)
        flags |= Qt::ItemIsEditable;
    item->setFlags(flags);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

JobsPanel::JobsPanel(QWidget* parent)
    : QWidget(parent)
    , m_table(new QTableWidget(0, Columns, this))
    , m_summary(new QLabel(this))
    , m_buttons(new QHBoxLayout)
{
    m_table->setObjectName(QStringLiteral("jobsTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("Job"), tr("GPUs"), tr("Alone"), tr("Shared"), tr("Slowed by"), tr("Allocation")});
    m_table->horizontalHeaderItem(Alone)->setToolTip(
        tr("The step of the job alone on its allocation, the rest of the cluster idle"));
    m_table->horizontalHeaderItem(Allocation)
        ->setToolTip(tr("Double-click to move the job: \"racks 0-7\" or \"nodes 0-31, 40\""));
    m_table->horizontalHeaderItem(Shared)->setToolTip(
        tr("The step with every other job running on the shared fabric"));
    m_table->horizontalHeaderItem(SlowedBy)->setToolTip(
        tr("How much of this job's shared step the other job that costs it most owes"));
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setWordWrap(false);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_summary->setWordWrap(true);
    m_summary->setMinimumHeight(m_summary->fontMetrics().lineSpacing() * 2);
    m_summary->setObjectName(QStringLiteral("jobsSummary"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addLayout(m_buttons);
    m_buttons->addStretch(1);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        if (m_filling)
            return;
        const int job = selectedJob();
        if (job > 0) // 0 is shown in detail already
            emit jobChosen(job);
    });
    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (!m_filling && item->column() == Allocation)
            emit allocationEdited(jobAt(item->row()), item->text());
    });
}

void JobsPanel::addButtons(const QList<QAction*>& actions)
{
    for (QAction* action : actions) {
        auto* button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        m_buttons->insertWidget(m_buttons->count() - 1, button);
    }
}

int JobsPanel::jobAt(int row) const
{
    const QTableWidgetItem* item = m_table->item(row, Name);
    return item ? item->data(Qt::UserRole).toInt() : -1;
}

int JobsPanel::rowOf(int job) const
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (jobAt(row) == job)
            return row;
    return -1;
}

int JobsPanel::selectedJob() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : jobAt(rows.front().row());
}

void JobsPanel::setSingleJob(const QString& name)
{
    m_filling = true;
    m_table->setRowCount(0);
    m_table->hide();
    m_summary->setText(tr("One job on this cluster (%1): it has the cluster's fabric to itself. "
                          "Jobs > Add Job puts another beside it, Tools > Place Job... finds "
                          "where one fits best.")
                           .arg(name));
    m_filling = false;
}

void JobsPanel::setRows(std::vector<Row> rows, bool evaluating)
{
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.firstIndex < b.firstIndex; });
    m_filling = true;
    m_table->show();
    m_table->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        const Row& row = rows[size_t(r)];
        auto* name = cell(row.name);
        name->setData(Qt::UserRole, row.job);
        m_table->setItem(r, Name, name);
        m_table->setItem(
            r, Gpus,
            cell(row.gpus ? QString::fromStdString(cs::withThousands(*row.gpus)) : QString(), false,
                 true));
        m_table->setItem(r, Allocation, cell(row.allocation, true));
        m_table->setItem(r, Alone, cell(stepText(row.aloneS), false, true));
        m_table->setItem(r, Shared, cell(stepText(row.sharedS), false, true));
        m_table->setItem(r, SlowedBy, cell(row.slowedBy));
        for (int c = 0; c < Columns; ++c) {
            QFont font = m_table->item(r, c)->font();
            font.setBold(row.job == 0);
            m_table->item(r, c)->setFont(font);
        }
    }
    for (int r = 0; r < m_table->rowCount(); ++r)
        for (int c = 0; c < Columns; ++c) // what an elided cell holds
            m_table->item(r, c)->setToolTip(m_table->item(r, c)->text());
    m_table->selectRow(rowOf(0));
    m_table->resizeColumnsToContents();
    // Long names give way to the figures and the allocation: the rest is in the tooltip.
    const int most = fontMetrics().averageCharWidth() * 28;
    for (int column : {int(Name), int(SlowedBy)})
        m_table->setColumnWidth(column, std::min(m_table->columnWidth(column), most));
    m_summary->setText(
        evaluating ? tr("%1 jobs on this cluster; evaluating them together...").arg(rows.size())
                   : tr("%1 jobs share this cluster's fabric. The bold one is shown in "
                        "detail; choose another to show it, double-click an allocation "
                        "to move a job.")
                         .arg(rows.size()));
    m_filling = false;
}
