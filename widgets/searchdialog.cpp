#include "searchdialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "costmodel.h"
#include "validation.h"

namespace {

// Rows in the table: enough to compare alternatives, few enough to sort at once. Every
// configuration faster than the run's own is listed too.
constexpr size_t kRowsKept = 500;
constexpr int kProgressMax = 1000;

QString withSeparators(qint64 n)
{
    return QLocale(QLocale::English).toString(n);
}

std::optional<cs::Evaluation> evaluateOwn(const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    cs::Diagnostics diags;
    cs::checkRunOnCluster(run, cluster, "", "", diags);
    if (!diags.empty())
        return std::nullopt;
    return cs::evaluate(cluster, run);
}

} // namespace

SearchResultsModel::SearchResultsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void SearchResultsModel::setResults(std::vector<cs::SearchResult> results)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(results.size());
    for (size_t i = 0; i < results.size(); ++i)
        m_rows.push_back({int(i) + 1, std::move(results[i])});
    endResetModel();
}

const cs::SearchResult& SearchResultsModel::resultAt(int row) const
{
    return m_rows.at(size_t(row)).result;
}

int SearchResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SearchResultsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

double SearchResultsModel::sortKey(const Row& row, int column)
{
    const cs::SearchResult& r = row.result;
    const cs::Parallelism& p = r.layout.parallelism;
    if (column >= BreakdownFirst && column < Memory)
        return r.breakdown.parts()[size_t(column - BreakdownFirst)].seconds;
    switch (column) {
    case Rank:
        return row.rank;
    case Tp:
        return p.tp;
    case Cp:
        return p.cp;
    case Pp:
        return p.pp;
    case Vp:
        return p.vp;
    case Dp:
        return p.dp;
    case MicroBatch:
        return r.layout.microBatch;
    case Recompute:
        return double(p.recompute.mode) * 256 + p.recompute.modules;
    case Placement: {
        double key = 0; // the placement as a base-4 number, innermost digit first
        for (cs::Dim d : r.layout.placement)
            key = key * 4 + double(d);
        return key;
    }
    case StepTime:
        return r.stepTimeS;
    case Memory:
        return r.memoryGiBPerGpu;
    case Mfu:
        return r.mfu;
    default:
        return 0;
    }
}

QString SearchResultsModel::text(const Row& row, int column)
{
    const cs::SearchResult& r = row.result;
    if (column >= BreakdownFirst && column < Memory)
        return QString::number(sortKey(row, column), 'f', 4);
    switch (column) {
    case Recompute:
        return QString::fromStdString(cs::toString(r.layout.parallelism.recompute));
    case Placement:
        return QString::fromStdString(cs::placementText(r.layout.placement));
    case StepTime:
        return QString::number(r.stepTimeS, 'f', 4);
    case Memory:
        return QString::number(r.memoryGiBPerGpu, 'f', 1);
    case Mfu:
        return QString::number(100 * r.mfu, 'f', 1) + QStringLiteral(" %");
    default:
        return withSeparators(qint64(sortKey(row, column)));
    }
}

QVariant SearchResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& row = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return text(row, index.column());
    case Qt::UserRole:
        return sortKey(row, index.column());
    case Qt::TextAlignmentRole:
        if (index.column() == Recompute || index.column() == Placement)
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant SearchResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (section >= BreakdownFirst && section < Memory) {
        const QString name =
            QString::fromStdString(cs::Breakdown().parts()[size_t(section - BreakdownFirst)].label);
        if (role == Qt::DisplayRole)
            return name;
        if (role == Qt::ToolTipRole)
            return tr("Seconds of %1 on the step's critical path").arg(name);
        return {};
    }
    if (role == Qt::ToolTipRole && section == Placement)
        return tr("How ranks are laid on GPUs, innermost dimension first");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Rank:
        return tr("Rank");
    case Tp:
        return QStringLiteral("TP");
    case Cp:
        return QStringLiteral("CP");
    case Pp:
        return QStringLiteral("PP");
    case Vp:
        return QStringLiteral("VP");
    case Dp:
        return QStringLiteral("DP");
    case MicroBatch:
        return tr("Micro");
    case Recompute:
        return tr("Recompute");
    case Placement:
        return tr("Placement");
    case StepTime:
        return tr("Step (s)");
    case Memory:
        return tr("GiB/GPU");
    case Mfu:
        return tr("MFU");
    default:
        return {};
    }
}

void SearchResultsModel::sort(int column, Qt::SortOrder order)
{
    emit layoutAboutToBeChanged();
    // Stable on the rank, so that equal values keep the step-time order.
    std::stable_sort(m_rows.begin(), m_rows.end(), [&](const Row& a, const Row& b) {
        const double ka = sortKey(a, column), kb = sortKey(b, column);
        return order == Qt::AscendingOrder ? ka < kb : ka > kb;
    });
    emit layoutChanged();
}

SearchDialog::SearchDialog(const cs::ClusterDesc& cluster, const cs::RunDesc& run, QWidget* parent)
    : QDialog(parent)
    , m_cluster(cluster)
    , m_run(run)
    , m_own(evaluateOwn(cluster, run))
{
    setWindowTitle(tr("Search parallelism"));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, kProgressMax);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelSearch"));
    connect(m_cancelButton, &QPushButton::clicked, this, &SearchDialog::cancelSearch);

    m_model = new SearchResultsModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SearchResultsModel::StepTime, Qt::AscendingOrder);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Apply | QDialogButtonBox::Close, this);
    m_applyButton = buttons->button(QDialogButtonBox::Apply);
    m_applyButton->setEnabled(false);
    m_applyButton->setToolTip(tr("Use the selected configuration for the run"));
    connect(m_applyButton, &QPushButton::clicked, this, &SearchDialog::applySelected);
    connect(buttons, &QDialogButtonBox::rejected, this, &SearchDialog::reject);
    connect(this, &QDialog::rejected, this, &SearchDialog::cancelSearch);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { m_applyButton->setEnabled(m_table->selectionModel()->hasSelection()); });
    connect(m_table, &QTableView::doubleClicked, this, &SearchDialog::applySelected);

    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_cancelButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addLayout(progressRow);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(1180, 560);

    startSearch();
}

SearchDialog::~SearchDialog()
{
    stopWorker();
}

void SearchDialog::stopWorker()
{
    m_cancel = true;
    if (m_worker.joinable())
        m_worker.join();
}

void SearchDialog::startSearch()
{
    m_status->setText(tr("Searching every valid TP, CP, PP, VP, micro-batch, recompute and "
                         "placement for %1 on %2 (%3 GPUs)…")
                          .arg(QString::fromStdString(m_run.model.name),
                               QString::fromStdString(m_cluster.name),
                               withSeparators(m_cluster.gpuCount())));
    cs::SearchOptions options;
    options.keep = kRowsKept;
    if (m_own && m_own->fitsMemory)
        options.alsoKeepFasterThanS = m_own->stepTimeS;
    options.cancel = &m_cancel;
    // Both callbacks run on the worker; queued onto this dialog, they are dropped if it is
    // gone (its destructor joins the worker first).
    options.progress = [this](int64_t done, int64_t total) {
        QMetaObject::invokeMethod(
            this, [this, done, total] { showProgress(done, total); }, Qt::QueuedConnection);
    };
    m_worker = std::thread([this, options] {
        auto outcome =
            std::make_shared<cs::SearchOutcome>(cs::searchParallelism(m_cluster, m_run, options));
        QMetaObject::invokeMethod(
            this, [this, outcome] { showOutcome(*outcome); }, Qt::QueuedConnection);
    });
}

void SearchDialog::cancelSearch()
{
    if (!isSearching())
        return;
    m_cancel = true;
    m_cancelButton->setEnabled(false);
    m_status->setText(tr("Cancelling…"));
}

void SearchDialog::showProgress(qint64 done, qint64 total)
{
    if (total > 0)
        m_progress->setValue(int(done * kProgressMax / total));
}

void SearchDialog::showOutcome(const cs::SearchOutcome& outcome)
{
    m_worker.join();
    m_cancelled = outcome.cancelled;
    m_cancelButton->setEnabled(false);
    if (!m_cancelled)
        m_progress->setValue(kProgressMax);
    m_model->setResults(outcome.results);
    const QHeaderView* header = m_table->horizontalHeader();
    m_model->sort(header->sortIndicatorSection(), header->sortIndicatorOrder());
    m_table->resizeColumnsToContents();

    QString summary =
        m_cancelled ? tr("Cancelled: the fastest found so far. ")
                    : tr("%1 configurations fit in memory (%2 cost-model "
                         "evaluations). ")
                          .arg(withSeparators(outcome.fitting), withSeparators(outcome.evaluated));
    if (outcome.results.empty())
        summary += tr("No configuration fits in memory.");
    else
        summary += tr("The fastest %1 are listed: %2 s per step at best. ")
                       .arg(withSeparators(qint64(outcome.results.size())))
                       .arg(outcome.results.front().stepTimeS, 0, 'f', 4);
    m_status->setText(summary + ownLayoutSummary(outcome));
    emit searchFinished();
}

QString SearchDialog::ownLayoutSummary(const cs::SearchOutcome& outcome) const
{
    if (!m_own)
        return tr("The run's own layout is not valid on this cluster.");
    if (!m_own->fitsMemory)
        return tr("The run's own layout does not fit in memory (%1 GiB per GPU).")
            .arg(m_own->memoryGiBPerGpu, 0, 'f', 1);
    const double own = m_own->stepTimeS;
    const auto faster =
        std::count_if(outcome.results.begin(), outcome.results.end(),
                      [own](const cs::SearchResult& r) { return r.stepTimeS < own; });
    return tr("The run's own layout: %1 s per step, rank %2.")
        .arg(own, 0, 'f', 4)
        .arg(withSeparators(qint64(faster) + 1));
}

void SearchDialog::applySelected()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    emit layoutChosen(m_model->resultAt(rows.front().row()).layout);
    accept();
}
