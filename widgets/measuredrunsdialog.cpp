#include "measuredrunsdialog.h"

#include <QAreaSeries>
#include <QChart>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QPen>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "activitycolors.h"
#include "cachedchartview.h"
#include "dialogsize.h"
#include "logfolder.h"
#include "numberitem.h"
#include "text.h"

namespace {

enum RunColumn { kId, kGpu, kGpus, kModel, kPrecision, kMeasured, kPredicted, kError, kColumns };

QString seconds(double s)
{
    return QString::fromStdString(cs::stepTimeText(s));
}

QString signedPercent(double fraction)
{
    return QString::fromStdString(cs::signedPercentText(fraction));
}

// The precision, and the scaling recipe where the row names one ("fp8 (mxfp8)"); the recipe's
// whole text, sources and all, in the tooltip.
QTableWidgetItem* precisionItem(const cs::RunDesc& run)
{
    const QString precision = QString::fromLatin1(cs::toString(run.precision));
    const QString recipe = QString::fromStdString(cs::precisionRecipeOf(run));
    const QString shortRecipe = recipe.section(QStringLiteral(" ("), 0, 0).trimmed();
    auto* item = new QTableWidgetItem(shortRecipe.isEmpty() || shortRecipe == precision
                                          ? precision
                                          : QStringLiteral("%1 (%2)").arg(precision, shortRecipe));
    if (!recipe.isEmpty())
        item->setToolTip(recipe);
    return item;
}

// The step between labelled counts: 1, 2, 5, 10, 20, ... so that at most five fit under `most`.
double wholeTickInterval(int most)
{
    for (double scale = 1;; scale *= 10)
        for (double step : {1, 2, 5})
            if (most <= 5 * step * scale)
                return step * scale;
}

// Counts of the times in equal bins over [from, to).
std::vector<int> binCounts(const std::vector<double>& times, double from, double to, int bins)
{
    std::vector<int> counts(size_t(bins), 0);
    for (double t : times)
        ++counts[size_t(std::clamp(int((t - from) / (to - from) * bins), 0, bins - 1))];
    return counts;
}

// A vertical line from the axis to `top`.
QLineSeries* marker(const QString& name, double x, double top, const QColor& color,
                    Qt::PenStyle style)
{
    auto* line = new QLineSeries;
    line->setName(name);
    line->append(x, 0);
    line->append(x, top);
    QPen pen(color, 2, style);
    line->setPen(pen);
    return line;
}

// A band over [from, to] of the chart's height.
QAreaSeries* band(const QString& name, double from, double to, double top, QColor color)
{
    auto* upper = new QLineSeries;
    upper->append(from, top);
    upper->append(to, top);
    auto* lower = new QLineSeries;
    lower->append(from, 0);
    lower->append(to, 0);
    auto* area = areaBetween(upper, lower);
    area->setName(name);
    color.setAlphaF(0.25f);
    area->setBrush(color);
    area->setPen(Qt::NoPen);
    return area;
}

} // namespace

MeasuredRunsDialog::MeasuredRunsDialog(std::vector<cs::MeasuredRun> runs,
                                       std::vector<MeasuredPrediction> predicted,
                                       const QString& source, const QStringList& problems,
                                       QWidget* parent)
    : QDialog(parent)
    , m_runs(std::move(runs))
    , m_predicted(std::move(predicted))
    , m_table(new QTableWidget(this))
    , m_summary(new QLabel(this))
    , m_histogram(new CachedChartView(this))
    , m_problems(new QListWidget(this))
{
    setWindowTitle(tr("Measured runs: %1").arg(source));
    m_table->setColumnCount(kColumns);
    m_table->setHorizontalHeaderLabels({tr("Run"), tr("GPU"), tr("GPUs"), tr("Model"),
                                        tr("Precision"), tr("Measured (s)"), tr("Predicted (s)"),
                                        tr("Error")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    // One line a row; a long id keeps both ends, which tell rows apart.
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
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
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { showHistogram(selectedIndex()); });

    m_histogram->setLeastSize({360, 220});
    m_histogram->chart()->legend()->setAlignment(Qt::AlignBottom);
    m_problems->addItems(problems);
    m_problems->setVisible(!problems.isEmpty());
    m_problems->setToolTip(tr("Files or rows that were refused; the others are in the table"));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_histogram);
    split->addWidget(m_problems);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 0);
    // A few lines: the refused files are a footnote to the rows, not their equal.
    m_problems->setMaximumHeight(m_problems->fontMetrics().height() * 6);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    layout->addWidget(buttons);
    resizeWithinScreen(this, {1360, 800});
    if (!m_runs.empty())
        selectRun(0);
}

QStringList MeasuredRunsDialog::problems() const
{
    QStringList lines;
    for (int i = 0; i < m_problems->count(); ++i)
        lines << m_problems->item(i)->text();
    return lines;
}

QChart* MeasuredRunsDialog::histogram() const
{
    return m_histogram->chart();
}

int MeasuredRunsDialog::selectedIndex() const
{
    const int row = m_table->currentRow();
    return row < 0 ? -1 : m_table->item(row, kId)->data(Qt::UserRole).toInt();
}

void MeasuredRunsDialog::selectRun(int index)
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (m_table->item(row, kId)->data(Qt::UserRole).toInt() == index)
            m_table->selectRow(row);
    showHistogram(index);
}

void MeasuredRunsDialog::showHistogram(int index)
{
    QChart* chart = m_histogram->chart();
    clearChart(chart);
    if (index < 0 || size_t(index) >= m_runs.size()) {
        chart->setTitle(tr("Select a run to see its measured step times"));
        return;
    }
    const cs::MeasuredRun& run = m_runs[size_t(index)];
    const MeasuredPrediction& p = m_predicted[size_t(index)];
    std::vector<double> times = cs::measuredStepTimes(run.run);
    if (times.empty() && run.run.measured)
        times.push_back(run.run.measured->stepTimeS); // one published figure
    const double spreadFrom = p.stepS + p.stragglerS - p.stepStddevS;
    const double spreadTo = p.stepS + p.stragglerS + p.stepStddevS;
    double from = std::min(p.stepS, spreadFrom), to = std::max(p.stepS, spreadTo);
    for (double t : times) {
        from = std::min(from, t);
        to = std::max(to, t);
    }
    const double margin = std::max((to - from) * 0.08, to * 1e-3);
    from = std::max(0.0, from - margin);
    to += margin;
    const int bins = std::clamp(int(std::sqrt(double(times.size())) * 2), 8, 40);
    const std::vector<int> counts = binCounts(times, from, to, bins);
    const int most = std::max(1, *std::max_element(counts.begin(), counts.end()));
    const double top = most * 1.15;

    auto* outline = new QLineSeries;
    auto* base = new QLineSeries;
    const double width = (to - from) / bins;
    for (int b = 0; b < bins; ++b) {
        outline->append(from + b * width, counts[size_t(b)]);
        outline->append(from + (b + 1) * width, counts[size_t(b)]);
    }
    base->append(from, 0);
    base->append(to, 0);
    auto* measured = areaBetween(outline, base);
    measured->setName(times.size() == 1 ? tr("measured: one step time")
                                        : tr("measured: %1 steps").arg(times.size()));
    QColor grey(0x8a, 0x8f, 0x98);
    measured->setBrush(grey);
    measured->setPen(QPen(grey.darker(130), 1));
    const QColor accent = activityColor(cs::Activity::Forward);
    QList<QAbstractSeries*> series{
        measured,
        band(tr("predicted spread: stragglers +/- 1 sd"), spreadFrom, spreadTo, top,
             activityColor(cs::Activity::Communication)),
        marker(tr("predicted step %1").arg(seconds(p.stepS)), p.stepS, top, accent, Qt::SolidLine),
        marker(tr("with the straggler wait %1").arg(seconds(p.stepS + p.stragglerS)),
               p.stepS + p.stragglerS, top, accent, Qt::DashLine)};
    auto* x = new QValueAxis;
    x->setTitleText(tr("step time (s)"));
    x->setRange(from, to);
    x->setLabelFormat(to - from < 0.05 ? QStringLiteral("%.4f") : QStringLiteral("%.3f"));
    auto* y = new QValueAxis;
    y->setTitleText(tr("steps"));
    y->setRange(0, top);
    y->setLabelFormat(QStringLiteral("%d"));
    // Whole steps only: a tick between two counts would repeat a label.
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(wholeTickInterval(most));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : series) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    const double measuredStep = run.run.measured ? run.run.measured->stepTimeS : 0;
    QString title = tr("%1: predicted %2").arg(QString::fromStdString(run.id), seconds(p.stepS));
    if (measuredStep > 0)
        title += tr(", measured %1 (error %2)")
                     .arg(seconds(measuredStep), signedPercent(p.stepS / measuredStep - 1));
    chart->setTitle(title);
}

void MeasuredRunsDialog::fill()
{
    m_table->setRowCount(int(m_runs.size()));
    double sum = 0;
    for (size_t i = 0; i < m_runs.size(); ++i) {
        const cs::MeasuredRun& r = m_runs[i];
        const double measured = r.run.measured ? r.run.measured->stepTimeS : 0;
        const double predicted = m_predicted.at(i).stepS;
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
        m_table->setItem(row, kPrecision, precisionItem(r.run));
        m_table->setItem(row, kMeasured,
                         sortableNumber(measured, QString::number(measured, 'f', 3)));
        m_table->setItem(row, kPredicted,
                         sortableNumber(predicted, QString::number(predicted, 'f', 3)));
        m_table->setItem(row, kError, sortableNumber(error, signedPercent(error)));
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
    const int index = selectedIndex();
    if (index < 0)
        return;
    emit openRequested(m_runs[size_t(index)]);
    accept();
}
