#pragma once
// Published, measured runs beside the cost model's prediction; any row opens as a document.
// The predictions are made before (one evaluation a row: off the GUI thread).

#include <QDialog>
#include <vector>

#include "measuredruns.h"

class QLabel;
class QTableWidget;

class MeasuredRunsDialog : public QDialog {
    Q_OBJECT
public:
    // `predicted`: each run's predicted step time, in the same order.
    MeasuredRunsDialog(std::vector<cs::MeasuredRun> runs, std::vector<double> predicted,
                       const QString& file, QWidget* parent = nullptr);

    const std::vector<cs::MeasuredRun>& runs() const { return m_runs; }
    // The mean absolute error over the rows, as a fraction.
    double mape() const { return m_mape; }
    int rowCount() const;

signals:
    void openRequested(const cs::MeasuredRun& run);

private:
    void fill();
    void openSelected();

    std::vector<cs::MeasuredRun> m_runs;
    std::vector<double> m_predicted;
    QTableWidget* m_table;
    QLabel* m_summary;
    double m_mape = 0;
};
