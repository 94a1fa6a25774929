#include "comparepanel.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>

#include "activitycolors.h"
#include "breakdownchart.h"
#include "cachedchartview.h"

namespace {

enum Column { Quantity, Main, Compare, Difference, Change, ColumnCount };

QTableWidgetItem* numberItem(double value, int decimals)
{
    auto* item = new QTableWidgetItem(QString::number(value, 'f', decimals));
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

// Enough decimals to read a difference of a tenth of a millisecond, fewer for big numbers.
int decimalsFor(const CompareRow& row)
{
    const double magnitude = std::max(std::abs(row.main), std::abs(row.compare));
    return magnitude >= 1000 ? 0 : magnitude >= 10 ? 2 : 4;
}

} // namespace

double CompareRow::relative() const
{
    if (main == 0)
        return compare == 0 ? 0 : INFINITY;
    return compare / main - 1;
}

std::vector<CompareRow> compareRows(const cs::Evaluation& main, const cs::Evaluation& compare)
{
    std::vector<CompareRow> rows;
    rows.push_back({"step time", "s", main.stepTimeS, compare.stepTimeS});
    const auto a = main.breakdown.parts();
    const auto b = compare.breakdown.parts();
    for (size_t i = 0; i < a.size(); ++i)
        rows.push_back({a[i].label, "s", a[i].seconds, b[i].seconds});
    rows.push_back({"MFU", "%", main.mfu * 100, compare.mfu * 100});
    rows.push_back({"tokens per second", "", main.tokensPerS, compare.tokensPerS});
    rows.push_back({"memory per GPU", "GiB", main.memoryGiBPerGpu, compare.memoryGiBPerGpu});
    return rows;
}

ComparePanel::ComparePanel(QWidget* parent)
    : QWidget(parent)
    , m_message(new QLabel(this))
    , m_view(new CachedChartView(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
{
    m_message->setWordWrap(true);
    m_message->setMargin(6);
    m_table->setHorizontalHeaderLabels(
        {tr("quantity"), tr("main"), tr("compare"), tr("difference"), tr("change")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_message);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_table, 1);
    clear(tr("The session has no run to compare with."));
}

QChart* ComparePanel::chart() const
{
    return m_view->chart();
}

void ComparePanel::clear(const QString& reason)
{
    m_message->setText(reason);
    clearChart(m_view->chart());
    m_view->hide();
    m_table->setRowCount(0);
    m_table->hide();
}

void ComparePanel::setRuns(const cs::Evaluation& main, const QString& mainName,
                           const cs::Evaluation& compare, const QString& compareName)
{
    m_message->setText(tr("<b>main</b>: %1<br><b>compare</b>: %2")
                           .arg(mainName.toHtmlEscaped(), compareName.toHtmlEscaped()));
    fillChart(main, compare);
    fillTable(compareRows(main, compare));
    m_view->show();
    m_table->show();
}

void ComparePanel::fillChart(const cs::Evaluation& main, const cs::Evaluation& compare)
{
    QChart* chart = m_view->chart();
    clearChart(chart);
    auto* series = new QHorizontalStackedBarSeries;
    series->setBarWidth(0.6);
    const auto a = main.breakdown.parts();
    const auto b = compare.breakdown.parts();
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].seconds <= 0 && b[i].seconds <= 0)
            continue;
        auto* set = new QBarSet(QString::fromStdString(a[i].label));
        set->setColor(breakdownColor(a[i]));
        set->setBorderColor(set->color());
        // The compare run on top, as the category axis lists bottom to top.
        *set << a[i].seconds << b[i].seconds;
        series->append(set);
    }
    chart->addSeries(series);
    QFont small = chart->legend()->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    chart->legend()->setFont(small);
    auto* categories = new QBarCategoryAxis;
    categories->append({tr("main"), tr("compare")});
    chart->addAxis(categories, Qt::AlignLeft);
    series->attachAxis(categories);
    auto* seconds = new QValueAxis;
    seconds->setTitleText(tr("seconds"));
    seconds->setRange(0, std::max(main.stepTimeS, compare.stepTimeS) * 1.05);
    seconds->applyNiceNumbers();
    chart->addAxis(seconds, Qt::AlignBottom);
    series->attachAxis(seconds);
    const double diff = compare.stepTimeS - main.stepTimeS;
    chart->setTitle(tr("Step %1 vs %2 (%3%4)")
                        .arg(formatSeconds(main.stepTimeS), formatSeconds(compare.stepTimeS),
                             diff >= 0 ? "+" : "-", formatSeconds(std::abs(diff))));
}

void ComparePanel::fillTable(const std::vector<CompareRow>& rows)
{
    // Sizing columns to their contents once, not after every cell, keeps an edit cheap.
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setUpdatesEnabled(false);
    m_table->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        const CompareRow& row = rows[size_t(r)];
        const int decimals = decimalsFor(row);
        QString name = QString::fromStdString(row.name);
        if (!row.unit.empty())
            name += QStringLiteral(" (%1)").arg(QString::fromStdString(row.unit));
        m_table->setItem(r, Quantity, new QTableWidgetItem(name));
        m_table->setItem(r, Main, numberItem(row.main, decimals));
        m_table->setItem(r, Compare, numberItem(row.compare, decimals));
        auto* diff = numberItem(row.difference(), decimals);
        if (row.difference() > 0 && diff->text().toDouble() != 0) // no "+0.0000"
            diff->setText(QLatin1Char('+') + diff->text());
        m_table->setItem(r, Difference, diff);
        const double rel = row.relative();
        auto* change = new QTableWidgetItem(
            std::isfinite(rel)
                ? QStringLiteral("%1%2 %").arg(rel > 0 ? "+" : "").arg(rel * 100, 0, 'f', 1)
                : QStringLiteral("new"));
        change->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(r, Change, change);
    }
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setUpdatesEnabled(true);
}
