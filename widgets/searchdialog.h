#pragma once
// The parallelism search in the application: runs cs::searchParallelism on a worker thread
// with a progress bar and Cancel, shows the ranked configurations in a table sortable by any
// column, and hands the chosen one back with Apply.

#include <QAbstractTableModel>
#include <QDialog>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "description.h"
#include "search.h"
#include "uncertainty.h"

class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QProgressBar;
class QPushButton;
class QTableView;

Q_DECLARE_METATYPE(cs::Layout)

// The search's results as table rows; sorting reorders the rows, the rank column keeps the
// rank by step time.
class SearchResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Rank,
        DimFirst, // one column per parallel dimension follows, in cs::kDims order
        Vp = DimFirst + int(cs::kDimCount),
        Etp, // expert tensor parallel: the experts' own TP
        MicroBatch,
        Recompute,
        Placement,
        StepTime,
        Range,          // where the measured step should lie; a tie with the best is marked
        VsCurrent,      // step time against the run's own layout
        Changes,        // what differs from the run's own layout, in words
        BreakdownFirst, // the breakdown's parts follow, in Breakdown::parts() order
        Memory = BreakdownFirst + 5 + int(cs::kDimCount),
        Mfu,
        ColumnCount
    };

    explicit SearchResultsModel(QObject* parent = nullptr);

    // The column of a parallel dimension's size.
    static int dimColumn(cs::Dim d) { return DimFirst + int(d); }

    // `ranges`: each result's, in the same order (none: no range column values). A result whose
    // range overlaps the best's is a tie, marked "~" beside its rank.
    void setResults(std::vector<cs::SearchResult> results,
                    std::vector<cs::Uncertainty> ranges = {});
    bool tiesBest(int row) const { return m_rows.at(size_t(row)).tiesBest; }
    // The run's own layout and step time, which the difference columns compare with.
    void setReference(const cs::Layout& layout, std::optional<double> stepTimeS);
    const cs::SearchResult& resultAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    void sort(int column, Qt::SortOrder order) override;

private:
    struct Row {
        int rank = 0;
        cs::SearchResult result;
        cs::Uncertainty range;
        bool tiesBest = false;
    };
    double sortKey(const Row& row, int column) const;
    QString text(const Row& row, int column) const;
    QString changes(const cs::Layout& layout) const;

    std::vector<Row> m_rows;
    cs::Layout m_reference;
    std::optional<double> m_referenceS;
};

class SearchDialog : public QDialog {
    Q_OBJECT
public:
    // Starts searching at once.
    SearchDialog(const cs::ClusterDesc& cluster, const cs::RunDesc& run, QWidget* parent = nullptr);
    ~SearchDialog() override;

    bool isSearching() const { return m_worker.joinable(); }
    bool wasCancelled() const { return m_cancelled; }
    SearchResultsModel* resultsModel() const { return m_model; }
    QTableView* table() const { return m_table; }

    // What the next search holds fixed and keeps free (tests set it as the fields do).
    void setConstraints(const cs::SearchConstraints& constraints);
    cs::SearchConstraints constraints() const;

public slots:
    void cancelSearch();
    // A new search with the constraints as the fields set them.
    void startSearch();

signals:
    // Apply: the configuration to put into the run (parallelism, placement, micro-batch).
    void layoutChosen(const cs::Layout& layout);
    void searchFinished();

private:
    void showProgress(qint64 done, qint64 total);
    void showOutcome(const cs::SearchOutcome& outcome);
    void applySelected();
    void stopWorker();
    QString ownLayoutSummary(const cs::SearchOutcome& outcome) const;

    const cs::ClusterDesc m_cluster;
    const cs::RunDesc m_run;
    std::optional<cs::Evaluation> m_own; // the run's own layout, when valid on the cluster
    std::atomic<bool> m_cancel{false};
    std::thread m_worker;
    int m_generation = 0; // of the search under way; read on the GUI thread only
    bool m_cancelled = false;

    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPushButton* m_searchButton = nullptr;
    cs::PerDim<QSpinBox*> m_fixed{};
    QSpinBox* m_fixedVp = nullptr;
    QSpinBox* m_fixedMicro = nullptr;
    QDoubleSpinBox* m_headroom = nullptr;
    QPushButton* m_applyButton = nullptr;
    QTableView* m_table = nullptr;
    SearchResultsModel* m_model = nullptr;
};
