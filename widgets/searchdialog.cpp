#include "searchdialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "costmodel.h"
#include "dialogsize.h"
#include "text.h"
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

void SearchResultsModel::setResults(std::vector<cs::SearchResult> results,
                                    std::vector<cs::Uncertainty> ranges)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(results.size());
    ranges.resize(results.size());
    for (size_t i = 0; i < results.size(); ++i) {
        const bool tie = i > 0 && cs::tied(ranges[i], ranges[0]);
        m_rows.push_back({int(i) + 1, std::move(results[i]), ranges[i], tie});
    }
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

void SearchResultsModel::setReference(const cs::Layout& layout, std::optional<double> stepTimeS)
{
    beginResetModel();
    m_reference = layout;
    m_referenceS = stepTimeS;
    endResetModel();
}

// "TP 4 -> 8, PP 8 -> 4": the layout's differences from the run's own, in words.
QString SearchResultsModel::changes(const cs::Layout& layout) const
{
    QStringList parts;
    const auto changed = [&parts](const QString& name, const QString& was, const QString& is) {
        if (was != is)
            parts << QStringLiteral("%1 %2 -> %3").arg(name, was, is);
    };
    const cs::Parallelism& a = m_reference.parallelism;
    const cs::Parallelism& b = layout.parallelism;
    for (const cs::DimInfo& d : cs::kDims)
        changed(QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size())),
                QString::number(a.size(d.dim)), QString::number(b.size(d.dim)));
    changed(QStringLiteral("VP"), QString::number(a.vp), QString::number(b.vp));
    changed(QStringLiteral("ETP"), QString::number(a.etp), QString::number(b.etp));
    changed(tr("micro-batch"), QString::number(m_reference.microBatch),
            QString::number(layout.microBatch));
    changed(tr("recompute"), QString::fromStdString(cs::toString(a.recompute)),
            QString::fromStdString(cs::toString(b.recompute)));
    changed(tr("placement"), QString::fromStdString(cs::placementText(m_reference.placement)),
            QString::fromStdString(cs::placementText(layout.placement)));
    return parts.isEmpty() ? tr("the run's own layout") : parts.join(QStringLiteral(", "));
}

double SearchResultsModel::sortKey(const Row& row, int column) const
{
    const cs::SearchResult& r = row.result;
    const cs::Parallelism& p = r.layout.parallelism;
    if (column >= BreakdownFirst && column < Memory)
        return r.breakdown.parts()[size_t(column - BreakdownFirst)].seconds;
    if (column >= DimFirst && column < Vp)
        return p.size(cs::kDims[size_t(column - DimFirst)].dim);
    switch (column) {
    case Rank:
        return row.rank;
    case Vp:
        return p.vp;
    case Etp:
        return p.etp;
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
    case Range:
        return row.range.known() ? row.range.lowS : 0;
    case VsCurrent:
        return m_referenceS ? r.stepTimeS - *m_referenceS : 0;
    case Memory:
        return r.memoryGiBPerGpu;
    case Mfu:
        return r.mfu;
    default:
        return 0;
    }
}

QString SearchResultsModel::text(const Row& row, int column) const
{
    const cs::SearchResult& r = row.result;
    if (column >= BreakdownFirst && column < Memory)
        return QString::fromStdString(cs::inStepTimeText(sortKey(row, column)));
    switch (column) {
    case VsCurrent: {
        if (!m_referenceS)
            return QStringLiteral("-");
        const double d = r.stepTimeS - *m_referenceS;
        return QStringLiteral("%1%2 (%3%4 %)")
            .arg(d > 0 ? "+" : "", QString::fromStdString(cs::inStepTimeText(d)), d > 0 ? "+" : "")
            .arg(d / *m_referenceS * 100, 0, 'f', 1);
    }
    case Changes:
        return changes(r.layout);
    case Recompute:
        return QString::fromStdString(cs::toString(r.layout.parallelism.recompute));
    case Placement:
        return QString::fromStdString(cs::placementText(r.layout.placement));
    case StepTime:
        return QString::fromStdString(cs::stepTimeText(r.stepTimeS));
    case Range:
        return row.range.known() ? QStringLiteral("%1-%2 s")
                                       .arg(row.range.lowS, 0, 'f', 3)
                                       .arg(row.range.highS, 0, 'f', 3)
                                 : QStringLiteral("-");
    case Rank:
        return (row.tiesBest ? QStringLiteral("~") : QString()) + QString::number(row.rank);
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
    case Qt::ToolTipRole:
        if (index.column() == Rank && row.tiesBest)
            return tr("A tie with the fastest: their ranges of the measured step overlap.");
        if (index.column() == Range)
            return QString::fromStdString(cs::rangeText(row.range));
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == Recompute || index.column() == Placement || index.column() == Changes)
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
            return tr("Time of %1 on the step's critical path").arg(name);
        return {};
    }
    if (section >= DimFirst && section < Vp) {
        const cs::DimInfo& d = cs::kDims[size_t(section - DimFirst)];
        if (role == Qt::DisplayRole)
            return QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size()));
        if (role == Qt::ToolTipRole)
            return tr("Size of the %1 dimension")
                .arg(QString::fromLatin1(d.label.data(), int(d.label.size())));
        return {};
    }
    if (role == Qt::ToolTipRole && section == Etp)
        return tr("Expert tensor parallel: how many GPUs split each expert");
    if (role == Qt::ToolTipRole && section == Placement)
        return tr("How ranks are laid on GPUs, innermost dimension first");
    if (role == Qt::ToolTipRole && section == Range)
        return tr("Where the measured step should lie, from the model's errors on the measured "
                  "runs most like this layout; ~ beside a rank: a tie with the fastest");
    if (role == Qt::ToolTipRole && section == VsCurrent)
        return tr("Step time against the run's own layout: negative is faster");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Rank:
        return tr("Rank");
    case Vp:
        return QStringLiteral("VP");
    case Etp:
        return QStringLiteral("ETP");
    case MicroBatch:
        return tr("Micro");
    case Recompute:
        return tr("Recompute");
    case Placement:
        return tr("Placement");
    case StepTime:
        return tr("Step");
    case Range:
        return tr("Range");
    case VsCurrent:
        return tr("Against current");
    case Changes:
        return tr("Changes from current");
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
        if (column == Changes) {
            const QString ta = changes(a.result.layout), tb = changes(b.result.layout);
            return order == Qt::AscendingOrder ? ta < tb : ta > tb;
        }
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

    // Constraints: any dimension held at a size, memory kept free.
    auto* holds = new QHBoxLayout;
    holds->addWidget(new QLabel(tr("Hold:"), this));
    const auto holdBox = [this, holds](const QString& name, const QString& tip) {
        auto* box = new QSpinBox(this);
        box->setRange(0, 1 << 20);
        box->setSpecialValueText(tr("any"));
        box->setToolTip(tip);
        box->setObjectName(name);
        holds->addWidget(new QLabel(name, this));
        holds->addWidget(box);
        return box;
    };
    for (const cs::DimInfo& d : cs::kDims) {
        if (!cs::usesDim(m_run, d.dim))
            continue;
        const QString name = QString::fromLatin1(d.shortLabel.data(), int(d.shortLabel.size()));
        m_fixed[d.dim] =
            holdBox(name, tr("Only layouts with this %1 size (any: free)")
                              .arg(QString::fromLatin1(d.label.data(), int(d.label.size()))));
    }
    m_fixedVp = holdBox(QStringLiteral("VP"), tr("Only this many virtual stages (any: free)"));
    m_fixedMicro = holdBox(tr("Micro-batch"), tr("Only this micro-batch (any: free)"));
    holds->addSpacing(12);
    holds->addWidget(new QLabel(tr("Keep free:"), this));
    m_headroom = new QDoubleSpinBox(this);
    m_headroom->setRange(0, 1000);
    m_headroom->setDecimals(1);
    m_headroom->setSuffix(tr(" GiB per GPU"));
    m_headroom->setObjectName(QStringLiteral("headroom"));
    m_headroom->setToolTip(tr("Memory each GPU must keep free: layouts that leave less are left "
                              "out"));
    holds->addWidget(m_headroom);
    m_searchButton = new QPushButton(tr("Search"), this);
    m_searchButton->setToolTip(tr("Search again with these constraints"));
    connect(m_searchButton, &QPushButton::clicked, this, &SearchDialog::startSearch);
    holds->addWidget(m_searchButton);
    holds->addStretch();

    m_model = new SearchResultsModel(this);
    cs::Layout own{m_run.parallelism, m_run.placement, m_run.batch.micro};
    own.parallelism.dp = m_run.dpFor(m_cluster.healthyGpuCount());
    m_model->setReference(own, m_own ? std::optional(m_own->stepTimeS) : std::nullopt);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SearchResultsModel::StepTime, Qt::AscendingOrder);
    for (const cs::DimInfo& d : cs::kDims)
        m_table->setColumnHidden(SearchResultsModel::dimColumn(d.dim), !cs::usesDim(m_run, d.dim));
    m_table->setColumnHidden(SearchResultsModel::Etp, !cs::usesDim(m_run, cs::Dim::EP));

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
    layout->addLayout(holds);
    layout->addWidget(m_status);
    layout->addLayout(progressRow);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resizeWithinScreen(this, {1180, 560});

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

void SearchDialog::setConstraints(const cs::SearchConstraints& c)
{
    for (cs::Dim d : cs::kAllDims)
        if (m_fixed[d])
            m_fixed[d]->setValue(c.fixed[d]);
    m_fixedVp->setValue(c.fixedVp);
    m_fixedMicro->setValue(c.fixedMicroBatch);
    m_headroom->setValue(c.memoryHeadroomGiB);
}

cs::SearchConstraints SearchDialog::constraints() const
{
    cs::SearchConstraints c;
    for (cs::Dim d : cs::kAllDims)
        if (m_fixed[d])
            c.fixed[d] = m_fixed[d]->value();
    c.fixedVp = m_fixedVp->value();
    c.fixedMicroBatch = m_fixedMicro->value();
    c.memoryHeadroomGiB = m_headroom->value();
    return c;
}

void SearchDialog::startSearch()
{
    stopWorker(); // a search under way gives way to the new one
    m_cancel = false;
    m_cancelled = false;
    m_cancelButton->setEnabled(true);
    m_progress->setValue(0);
    m_status->setText(tr("Searching every valid TP, CP, PP, VP, micro-batch, recompute and "
                         "placement for %1 on %2 (%3 GPUs)…")
                          .arg(QString::fromStdString(m_run.model.name),
                               QString::fromStdString(m_cluster.name),
                               withSeparators(m_cluster.gpuCount())));
    cs::SearchOptions options;
    options.keep = kRowsKept;
    options.constraints = constraints();
    if (m_own && m_own->fitsMemory)
        options.alsoKeepFasterThanS = m_own->stepTimeS;
    options.cancel = &m_cancel;
    // Both callbacks run on the worker; queued onto this dialog, they are dropped if it is
    // gone (its destructor joins the worker first).
    // A search that a new one replaced may still have its last reports queued: they are
    // dropped by their generation.
    const int generation = ++m_generation;
    options.progress = [this, generation](int64_t done, int64_t total) {
        QMetaObject::invokeMethod(
            this,
            [this, generation, done, total] {
                if (generation == m_generation)
                    showProgress(done, total);
            },
            Qt::QueuedConnection);
    };
    m_worker = std::thread([this, options, generation] {
        auto outcome =
            std::make_shared<cs::SearchOutcome>(cs::searchParallelism(m_cluster, m_run, options));
        QMetaObject::invokeMethod(
            this,
            [this, outcome, generation] {
                if (generation == m_generation)
                    showOutcome(*outcome);
            },
            Qt::QueuedConnection);
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
    std::vector<cs::Uncertainty> ranges;
    const std::vector<cs::ReferenceRun>& references =
        cs::shippedReferenceRuns(cs::defaultCalibration());
    for (const cs::SearchResult& r : outcome.results)
        ranges.push_back(cs::uncertaintyOf(
            r.stepTimeS, cs::likenessOf(m_cluster, cs::withLayout(m_run, r.layout)), references));
    m_model->setResults(outcome.results, std::move(ranges));
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
        summary +=
            tr("The fastest %1 are listed: %2 per step at best. ")
                .arg(withSeparators(qint64(outcome.results.size())),
                     QString::fromStdString(cs::stepTimeText(outcome.results.front().stepTimeS)));
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
    return tr("The run's own layout: %1 per step, rank %2.")
        .arg(QString::fromStdString(cs::stepTimeText(own)), withSeparators(qint64(faster) + 1));
}

void SearchDialog::applySelected()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    emit layoutChosen(m_model->resultAt(rows.front().row()).layout);
    accept();
}
