#pragma once
// The session's `compare` run (B) beside its own (A), all from cs::Comparison (model/report):
// where the difference comes from in sentences, both breakdowns as stacked bars (per step, or
// per token when the GPU counts differ), the figures raw and per GPU, every input that differs,
// and the breakdown difference per component; each run's notes; the error against a measured
// step time where a run has one. Narrow, the parts stack and scroll; wide, the explanation and
// chart sit beside the tables.

#include <QWidget>

#include "comparison.h"

class QBoxLayout;
class QButtonGroup;
class QChart;
class CachedChartView;
class QLabel;
class QTableWidget;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void setComparison(const cs::Comparison& comparison);
    // Nothing to compare, and why.
    void clear(const QString& reason);

    // The chart shows GPU time per token (comparable across GPU counts) or seconds per step.
    void setPerToken(bool perToken);
    bool perToken() const { return m_perToken; }
    bool isWide() const { return m_wide; }

    QChart* chart() const;
    QTableWidget* figuresTable() const { return m_figures; }
    QTableWidget* inputsTable() const { return m_inputs; }
    QTableWidget* breakdownTable() const { return m_breakdown; } // ms per step
    QTableWidget* breakdownPerTokenTable() const { return m_breakdownPerToken; }
    QLabel* findingsLabel() const { return m_findings; }
    QLabel* notesLabel() const { return m_notes; }

    QSize sizeHint() const override { return {460, 640}; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fillChart();
    void fillFigures();
    // The measured step time of either run and the prediction's error against it.
    void addMeasuredRows();
    void fillInputs();
    void fillBreakdown();
    void arrange(bool wide);

    std::optional<cs::Comparison> m_comparison;
    bool m_perToken = false;
    bool m_perTokenChosen = false; // by the user: kept across comparisons
    bool m_wide = false;
    QLabel* m_message = nullptr;
    QLabel* m_findings = nullptr;
    QLabel* m_notes = nullptr;
    QWidget* m_unitChoice = nullptr;
    QButtonGroup* m_units = nullptr;
    CachedChartView* m_view = nullptr;
    QTableWidget* m_figures = nullptr;
    QTableWidget* m_inputs = nullptr;
    QTableWidget* m_breakdown = nullptr;
    QTableWidget* m_breakdownPerToken = nullptr;
    QWidget* m_content = nullptr;
    QBoxLayout* m_columns = nullptr;
    QWidget* m_left = nullptr;
    QWidget* m_right = nullptr;
};
