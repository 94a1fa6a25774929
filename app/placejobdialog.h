#pragma once
// Tools > Place Job...: where a new job should go beside the jobs running. The new job is the
// one shown in detail copied, or a run file's; the free allocations that fit it are ranked
// (cs::placeJob, on a worker behind a progress dialog with Cancel) by its step and by what it
// costs the others, best first. Apply places it on the chosen one.

#include <QDialog>
#include <vector>

#include "description.h"
#include "placejob.h"

class QLabel;
class QPushButton;
class QRadioButton;
class QTableWidget;

class PlaceJobDialog : public QDialog {
    Q_OBJECT
public:
    // `copy`: the job shown in detail, giving its dp; `running`: every job, each with an
    // allocation.
    PlaceJobDialog(cs::ClusterDesc cluster, cs::RunDesc copy, std::vector<cs::RunDesc> running,
                   QWidget* parent = nullptr);

    // Ranks the allocations for `job` (the worker runs here); false when cancelled.
    bool rank(const cs::RunDesc& job);
    // A run file's job instead of the copy; false (and why in the dialog) when it cannot be
    // read.
    bool chooseFile(const QString& path);
    QTableWidget* table() const { return m_table; }
    QPushButton* applyButton() const { return m_apply; }
    const cs::PlaceJobResult& result() const { return m_result; }

signals:
    // The new job with its allocation, when Apply is pressed on a row.
    void placed(const cs::RunDesc& run);

private:
    void showResult();
    void apply();

    cs::ClusterDesc m_cluster;
    cs::RunDesc m_copy;
    std::vector<cs::RunDesc> m_running;
    cs::RunDesc m_job; // the job ranked
    cs::PlaceJobResult m_result;
    QRadioButton* m_fromCopy;
    QRadioButton* m_fromFile;
    QLabel* m_summary;
    QTableWidget* m_table;
    QPushButton* m_apply;
};
