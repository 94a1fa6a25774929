#pragma once
// The "Goodput" dock: the whole training run from evaluate()'s goodput and step variance.
// The time to train as one stacked bar (training, stragglers, checkpoints, lost work,
// restarts), goodput, failures a day and the checkpoint interval; goodput against the
// checkpoint interval with the optimum and the run's interval marked; a histogram of the
// predicted step times with the straggler tail. Rebuilt for each evaluation, never per frame.

#include <QWidget>

namespace cs {
struct Evaluation;
}
class CachedChartView;
class QChart;
class QLabel;

class GoodputPanel : public QWidget {
    Q_OBJECT
public:
    explicit GoodputPanel(QWidget* parent = nullptr);
    void setEvaluation(const cs::Evaluation& evaluation);

    QChart* splitChart() const;
    QChart* curveChart() const;
    QChart* histogramChart() const;
    QString figures() const;

private:
    void buildSplit(const cs::Evaluation& evaluation);
    void buildCurve(const cs::Evaluation& evaluation);
    void buildHistogram(const cs::Evaluation& evaluation);

    QLabel* m_figures;
    CachedChartView* m_split;
    QLabel* m_parts;
    CachedChartView* m_curve;
    CachedChartView* m_histogram;
};
