#pragma once
// The session's `compare` run beside the main one: both breakdowns as stacked bars and a
// table of what differs.

#include <QWidget>
#include <string>
#include <vector>

#include "costmodel.h"

class QChart;
class QChartView;
class QLabel;
class QTableWidget;

struct CompareRow {
    std::string name;
    std::string unit;
    double main = 0;
    double compare = 0;
    double difference() const { return compare - main; }
    // compare over main, minus one; 0 when both are 0.
    double relative() const;
};
// Step time, every breakdown entry, MFU, tokens per second and memory, main against compare.
std::vector<CompareRow> compareRows(const cs::Evaluation& main, const cs::Evaluation& compare);

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void setRuns(const cs::Evaluation& main, const QString& mainName, const cs::Evaluation& compare,
                 const QString& compareName);
    // Nothing to compare, and why.
    void clear(const QString& reason);

    QChart* chart() const;
    QTableWidget* table() const { return m_table; }

    QSize sizeHint() const override { return {460, 520}; }

private:
    void fillChart(const cs::Evaluation& main, const cs::Evaluation& compare);
    void fillTable(const std::vector<CompareRow>& rows);

    QLabel* m_message = nullptr;
    QChartView* m_view = nullptr;
    QTableWidget* m_table = nullptr;
};
