#pragma once
// File > Import: a Megatron-LM launch (and its log), a NeMo config, an MLPerf result log or a
// Slurm topology turned into a session by model/imports, with what the importer assumed or
// ignored and every error at its file:line:column. The session opens as the document once the
// user asks, through the window's usual prompt for unsaved changes.

#include <QDialog>
#include <optional>

#include "description.h"
#include "importrequest.h"

class QComboBox;
class QFormLayout;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

class ImportDialog : public QDialog {
    Q_OBJECT
public:
    // `current`: the document's cluster and run, which a run, a cluster or a measurement
    // imported alone is paired with.
    explicit ImportDialog(const cs::ClusterRun& current, QWidget* parent = nullptr);

    // The request the fields make; setting it fills them (tests, and a future command line).
    cs::ImportRequest request() const;
    void setRequest(const cs::ImportRequest& request);
    // A cluster file for an imported run or measurement; empty: the current document's.
    void setClusterFile(const QString& path);

    // Imports what the fields name, on a worker behind a progress dialog with Cancel; true when
    // a session was made. The report shows either way.
    bool runImport();
    const std::optional<cs::Session>& result() const { return m_result; }
    QString reportText() const;

signals:
    void openRequested(const cs::Session& session);

private:
    void updateRows();
    void browse(QLineEdit* edit, bool several);

    cs::ClusterRun m_current;
    std::optional<cs::Session> m_result;
    QFormLayout* m_form = nullptr;
    QComboBox* m_kind = nullptr;
    QLineEdit* m_files = nullptr;
    QLineEdit* m_log = nullptr;
    QLineEdit* m_system = nullptr;
    QLineEdit* m_gpu = nullptr;
    QSpinBox* m_gpusPerNode = nullptr;
    QLineEdit* m_down = nullptr;
    QLineEdit* m_cluster = nullptr;
    QPlainTextEdit* m_report = nullptr;
    QPushButton* m_open = nullptr;
};
