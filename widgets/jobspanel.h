#pragma once
// The "Jobs" dock: every job on the cluster (name, GPUs, allocation, step alone, step with the
// others running, and the other job that slows it most), in the order of their allocations.
// The job shown in detail is bold; choosing another row asks to show that one. A job's
// allocation is edited in its cell (moving the job). With one job the dock says so.

#include <QWidget>
#include <optional>
#include <vector>

class QLabel;
class QTableWidget;
class QHBoxLayout;

class JobsPanel : public QWidget {
    Q_OBJECT
public:
    struct Row {
        int job = 0; // the job's index in the document's runs (0: the one shown in detail)
        QString name;
        QString allocation;
        int firstIndex = 0; // where its allocation begins: the rows' order
        // Nothing while the jobs are evaluated.
        std::optional<int64_t> gpus;
        std::optional<double> aloneS;
        std::optional<double> sharedS;
        QString slowedBy; // "+1.2 ms by name", or "-" when no other job slows it
    };

    explicit JobsPanel(QWidget* parent = nullptr);
    // One job: no table, a sentence on how to add another.
    void setSingleJob(const QString& name);
    void setRows(std::vector<Row> rows, bool evaluating);
    // Buttons under the table for these actions (Add Job, Remove Job, Place Job).
    void addButtons(const QList<class QAction*>& actions);
    QTableWidget* table() const { return m_table; }
    QLabel* summary() const { return m_summary; }
    // The job of a row, -1 outside the table.
    int jobAt(int row) const;
    int rowOf(int job) const;
    // The job of the selected row (the one shown in detail unless the user chose another).
    int selectedJob() const;

signals:
    void jobChosen(int job);
    void allocationEdited(int job, const QString& text);

private:
    QTableWidget* m_table;
    QLabel* m_summary;
    QHBoxLayout* m_buttons;
    bool m_filling = false;
};
