#include "measuredrunsdialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace {

enum Column { kId, kGpu, kGpus, kModel, kPrecision, kMeasured, kPredicted, kError, kColumns };

// Numbers sort as numbers, not text.
class NumberItem : public QTableWidgetItem {
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem& other) const override
    {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

QTableWidgetItem* sortableNumber(double value, const QString& text)
{
    auto* item = new NumberItem(text);
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

MeasuredRunsDialog::MeasuredRunsDialog(std::vector<cs::MeasuredRun> runs,
                                       std::vector<double> predicted, const QString& file,
                                       QWidget* parent)
    : QDialog(parent)
    , m_runs(std::move(runs))
    , m_predicted(std::move(predicted))
    , m_table(new QTableWidget(this))
    , m_summary(new QLabel(this))
{
    setWindowTitle(tr("Measured runs: %1").arg(file));
    m_table->setColumnCount(kColumns);
    m_table->setHorizontalHeaderLabels({tr("Run"), tr("GPU"), tr("GPUs"), tr("Model"),
                                        tr("Precision"), tr("Measured (s)"), tr("Predicted (s)"),
                                        tr("Error")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->setToolTip(tr("Double-click a run to open its cluster and run"));
    fill();
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setSectionResizeMode(kId, QHeaderView::Stretch);
    m_table->resizeColumnsToContents();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* open = buttons->addButton(tr("&Open Run"), QDialogButtonBox::AcceptRole);
    connect(open, &QPushButton::clicked, this, &MeasuredRunsDialog::openSelected);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &MeasuredRunsDialog::openSelected);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(1100, 640);
}

void MeasuredRunsDialog::fill()
{
    m_table->setRowCount(int(m_runs.size()));
    double sum = 0;
    for (size_t i = 0; i < m_runs.size(); ++i) {
        const cs::MeasuredRun& r = m_runs[i];
        const double measured = r.run.measured ? r.run.measured->stepTimeS : 0;
        const double predicted = m_predicted.at(i);
        const double error = measured > 0 ? predicted / measured - 1 : 0;
        sum += std::abs(error);
        const int row = int(i);
        auto* id = new QTableWidgetItem(QString::fromStdString(r.id));
        id->setData(Qt::UserRole, row); // the run's index, whatever the sort order
        m_table->setItem(row, kId, id);
        m_table->setItem(row, kGpu,
                         new QTableWidgetItem(QString::fromStdString(r.cluster.gpu.name)));
        m_table->setItem(
            row, kGpus,
            sortableNumber(double(r.cluster.gpuCount()), QString::number(r.cluster.gpuCount())));
        m_table->setItem(row, kModel,
                         new QTableWidgetItem(QString::fromStdString(r.run.model.name)));
        m_table->setItem(row, kPrecision,
                         new QTableWidgetItem(QString::fromLatin1(cs::toString(r.run.precision))));
        m_table->setItem(row, kMeasured,
                         sortableNumber(measured, QString::number(measured, 'f', 3)));
        m_table->setItem(row, kPredicted,
                         sortableNumber(predicted, QString::number(predicted, 'f', 3)));
        m_table->setItem(row, kError,
                         sortableNumber(error, QStringLiteral("%1 %").arg(error * 100, 0, 'f', 1)));
    }
    m_mape = m_runs.empty() ? 0 : sum / double(m_runs.size());
    m_summary->setText(tr("%1 runs; mean absolute error of the predicted step time %2 %")
                           .arg(m_runs.size())
                           .arg(m_mape * 100, 0, 'f', 2));
}

int MeasuredRunsDialog::rowCount() const
{
    return m_table->rowCount();
}

void MeasuredRunsDialog::openSelected()
{
    const int row = m_table->currentRow();
    if (row < 0)
        return;
    const int index = m_table->item(row, kId)->data(Qt::UserRole).toInt();
    emit openRequested(m_runs[size_t(index)]);
    accept();
}
