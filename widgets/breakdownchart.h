#pragma once
// Where the predicted step's time goes: the critical-path breakdown as one stacked bar (the
// measured step time beside it, when the run has one), and each dimension's communication
// split into what is exposed and what hides under compute. Changed only for a new evaluation.

#include <QWidget>
#include <optional>

#include "costmodel.h"
#include "uncertainty.h"

class QChart;
class BarLegend;
class CachedChartView;

class BreakdownChart : public QWidget {
    Q_OBJECT
public:
    explicit BreakdownChart(QWidget* parent = nullptr);

    // `range`: where the measured step should lie (the document's, from the same evaluation).
    void setEvaluation(const cs::Evaluation& evaluation, std::optional<double> measuredStepS,
                       const cs::Uncertainty& range = {});

    QChart* stepChart() const;
    QChart* communicationChart() const;
    // What each colour of the step's bar is: every part that takes time.
    const BarLegend* stepLegend() const;

    QSize sizeHint() const override { return {420, 460}; }

private:
    void buildStepChart(const cs::Evaluation& evaluation, std::optional<double> measuredStepS,
                        const cs::Uncertainty& range);
    void buildCommunicationChart(const cs::Evaluation& evaluation);

    CachedChartView* m_stepView = nullptr;
    BarLegend* m_stepLegend = nullptr;
    CachedChartView* m_commView = nullptr;
};
