#pragma once
// Published or logged, measured runs beside the cost model's prediction; any row opens as a
// document. The selected row's measured step times (when its measurement kept them) show as a
// histogram with the predicted step and the predicted straggler spread marked. The predictions
// are made before (one evaluation a row: off the GUI thread).

#include <QDialog>
#include <vector>

#include "measuredruns.h"

class CachedChartView;
class QChart;
class QLabel;
class QListWidget;
class QTableWidget;

// What the cost model predicts for a measured run.
struct MeasuredPrediction {
    double stepS = 0;
    double stragglerS = 0;  // expected wait for the slowest GPU, every step
    double stepStddevS = 0; // from step to step
};

class MeasuredRunsDialog : public QDialog {
    Q_OBJECT
public:
    // `predicted`: each run's prediction, in the same order. `problems`: what was refused while
    // reading (a file of a folder, a row), listed under the table.
    MeasuredRunsDialog(std::vector<cs::MeasuredRun> runs, std::vector<MeasuredPrediction> predicted,
                       const QString& source, const QStringList& problems = {},
                       QWidget* parent = nullptr);

    const std::vector<cs::MeasuredRun>& runs() const { return m_runs; }
    // The mean absolute error over the rows, as a fraction.
    double mape() const { return m_mape; }
    int rowCount() const;
    QStringList problems() const;
    QChart* histogram() const;
    QTableWidget* table() const { return m_table; }
    // Selects the run (by its index in runs()) and shows its histogram.
    void selectRun(int index);

signals:
    void openRequested(const cs::MeasuredRun& run);

private:
    void fill();
    void openSelected();
    void showHistogram(int index);
    int selectedIndex() const;

    std::vector<cs::MeasuredRun> m_runs;
    std::vector<MeasuredPrediction> m_predicted;
    QTableWidget* m_table;
    QLabel* m_summary;
    CachedChartView* m_histogram;
    QListWidget* m_problems;
    double m_mape = 0;
};
