#pragma once
// Edits the cluster and the run. An edit that breaks a rule is refused in place: the field
// turns red and the reason is shown; only valid edits are requested from the document.
// With several jobs, the Allocation field moves the job shown in detail: the panel only says
// what was typed (allocationEdited); the jobs' views move it and answer (showAllocationRefused).

#include <QWidget>
#include <functional>
#include <vector>

#include "description.h"
#include "diagnostics.h"

class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QVBoxLayout;

class PropertiesPanel : public QWidget {
    Q_OBJECT
public:
    explicit PropertiesPanel(QWidget* parent = nullptr);
    ~PropertiesPanel() override;

    // Shows these values (no signal is emitted).
    void setValues(const cs::ClusterDesc& cluster, const cs::RunDesc& run);
    // The reason the last edit was refused; empty when it was accepted.
    QString problem() const;
    // What else the last accepted edit changed ("DP follows: 32 -> 16"); empty when nothing.
    QString notice() const;
    // Sets a field by its label as a user would (used by tests and scripting); false when no
    // such field exists.
    bool editField(const QString& label, const QVariant& value);
    // Commits a value typed but not yet confirmed (no Enter, focus still in the field), as
    // leaving the field would. False when a field holds a value that was refused: problem()
    // says why.
    bool commitPendingEdit();
    // Whether the Allocation field shows (a document of several jobs, or a run with an
    // allocation); it shows the allocation of the run setValues gave.
    void showAllocation(bool shown);
    // The answer to allocationEdited: why the move was refused (the field turns red, the reason
    // shows), or empty when the job moved or stays where it was (the field shows its allocation
    // in its own words again).
    void showAllocationRefused(const QString& why);

signals:
    // A valid edit: the new cluster and run, a description for the undo stack, and the
    // field's id so that consecutive edits of one field merge.
    void editRequested(const cs::ClusterDesc& cluster, const cs::RunDesc& run, const QString& what,
                       int fieldId);
    // An allocation typed for the job shown in detail ("racks 0-3, 8-11"), not yet checked.
    void allocationEdited(const QString& text);

public:
    struct Field;

private:
    void buildFields();
    void addAllocationField(QVBoxLayout* layout);
    void showAllocationText();
    void addEditor(int index, QFormLayout* form);
    void commit(int index, const QVariant& value);
    void refresh();
    QString refusal(int index, const QVariant& value, const cs::Diagnostics& diags) const;
    // Values of an integer field that the rules accept with everything else as it is, nearest
    // to `typed` first (at most a dozen), as text; empty for other fields.
    QString valuesThatWork(int index, int typed) const;
    // What a text editor shows: a value typed there but not yet committed differs from what
    // refresh() put there.
    static QString editorText(const QWidget* editor);

    std::vector<Field> m_fields;
    std::vector<QWidget*> m_editors;
    std::vector<QString> m_shownText; // per editor, as refresh() left it
    cs::ClusterRun m_values;
    QLabel* m_problem = nullptr;
    QLabel* m_notice = nullptr;
    int m_badField = -1;
    QGroupBox* m_allocationBox = nullptr;
    QLineEdit* m_allocation = nullptr;
    QString m_allocationShown; // as showAllocationText() left it
    bool m_allocationRefused = false;
};
