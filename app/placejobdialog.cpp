#include "placejobdialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "allocationtext.h"
#include "backgroundwork.h"
#include "dialogsize.h"
#include "documentio.h"
#include "text.h"

namespace {

enum Column { Where, Step, Others, Cost, Leaves, Held, Columns };

QString seconds(double s)
{
    return QString::fromStdString(cs::stepTimeText(s));
}

QTableWidgetItem* number(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

PlaceJobDialog::PlaceJobDialog(cs::ClusterDesc cluster, cs::RunDesc copy,
                               std::vector<cs::RunDesc> running, QWidget* parent)
    : QDialog(parent)
    , m_cluster(std::move(cluster))
    , m_copy(std::move(copy))
    , m_running(std::move(running))
    , m_fromCopy(new QRadioButton(tr("A copy of the job shown in detail (%1)")
                                      .arg(QString::fromStdString(cs::printable(m_copy.name))),
                                  this))
    , m_fromFile(new QRadioButton(tr("A run file..."), this))
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(0, Columns, this))
    , m_apply(new QPushButton(tr("&Apply"), this))
{
    setWindowTitle(tr("Place Job"));
    setObjectName(QStringLiteral("placeJobDialog"));
    m_table->setObjectName(QStringLiteral("placementsTable"));
    m_table->setHorizontalHeaderLabels({tr("Allocation"), tr("Its step"), tr("Others slowed"),
                                        tr("Cost a step"), tr("Leaves"), tr("GPUs held")});
    m_table->horizontalHeaderItem(Cost)->setToolTip(
        tr("Its step with every job running, plus the seconds it adds to the others' steps: "
           "the ranking, best first"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_summary->setWordWrap(true);
    // Two lines of summary stay whole however many rows the table has.
    m_summary->setMinimumHeight(m_summary->fontMetrics().lineSpacing() * 3);
    m_summary->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_fromCopy->setChecked(true);
    auto* source = new QHBoxLayout;
    source->addWidget(new QLabel(tr("New job:"), this));
    source->addWidget(m_fromCopy);
    source->addWidget(m_fromFile);
    source->addStretch(1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_apply, QDialogButtonBox::AcceptRole);
    m_apply->setEnabled(false);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(source);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_apply, &QPushButton::clicked, this, &PlaceJobDialog::apply);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_apply->setEnabled(!m_table->selectionModel()->selectedRows().isEmpty()); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &PlaceJobDialog::apply);
    connect(m_fromCopy, &QRadioButton::clicked, this, [this] { rank(m_copy); });
    connect(m_fromFile, &QRadioButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("New Job from a Run"), QString(),
            tr("Runs and sessions (*.json *.csession);;All files (*)"));
        if (path.isEmpty() || !chooseFile(path))
            m_fromCopy->setChecked(true);
    });
    resizeWithinScreen(this, {780, 460});
    m_summary->setText(tr("Ranking the free allocations..."));
}

bool PlaceJobDialog::chooseFile(const QString& path)
{
    QString problems;
    const auto session = loadSessionFromFile(path, &problems);
    if (!session) {
        m_summary->setText(tr("%1 cannot be read:\n%2").arg(QFileInfo(path).fileName(), problems));
        return false;
    }
    cs::RunDesc job = session->run;
    if (job.parallelism.dp <= 0)
        job.parallelism.dp = m_copy.parallelism.dp; // sized like the job shown in detail
    m_fromFile->setChecked(true);
    return rank(job);
}

bool PlaceJobDialog::rank(const cs::RunDesc& job)
{
    m_job = job;
    cs::PlaceJobResult result;
    const bool finished = runWithProgress(
        this,
        tr("Timing %1 on every free allocation that fits, beside %2 running jobs...")
            .arg(QString::fromStdString(cs::printable(job.name)))
            .arg(m_running.size()),
        [&](TaskProgress& progress) {
            cs::PlaceJobOptions options;
            options.cancel = &progress.cancelled;
            options.progress = [&](int done, int total) { progress.report(done, total); };
            result = cs::placeJob(m_cluster, job, m_running, options);
        });
    if (!finished) {
        m_summary->setText(tr("Cancelled: choose the new job again to rank its places."));
        return false;
    }
    m_result = std::move(result);
    showResult();
    return true;
}

void PlaceJobDialog::showResult()
{
    const auto& placements = m_result.placements;
    m_table->setRowCount(int(placements.size()));
    for (int row = 0; row < int(placements.size()); ++row) {
        const cs::JobPlacement& p = placements[size_t(row)];
        m_table->setItem(
            row, Where,
            new QTableWidgetItem(QString::fromStdString(cs::allocationText(p.allocation))));
        m_table->setItem(row, Step, number(seconds(p.stepTimeS)));
        m_table->setItem(row, Others, number(QStringLiteral("+") + seconds(p.othersSlowedS)));
        m_table->setItem(row, Cost, number(seconds(p.costS())));
        m_table->setItem(row, Leaves, number(QString::number(p.leaves)));
        m_table->setItem(row, Held, number(QString::fromStdString(cs::withThousands(p.gpusHeld))));
    }
    m_table->resizeColumnsToContents();
    const QString name = QString::fromStdString(cs::printable(m_job.name));
    if (placements.empty()) {
        m_summary->setText(
            tr("Nowhere to place %1: %2").arg(name, QString::fromStdString(m_result.nothingFits)));
        return;
    }
    m_summary->setText(tr("%1 of %2 free allocations that fit %3, timed with every job running; "
                          "best first. Apply places it on the chosen one as one undo step.")
                           .arg(placements.size())
                           .arg(m_result.candidatesFound)
                           .arg(name));
    m_table->selectRow(0);
}

void PlaceJobDialog::apply()
{
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    cs::RunDesc run = m_job;
    run.allocation = m_result.placements[size_t(rows.front().row())].allocation;
    emit placed(run);
    accept();
}
