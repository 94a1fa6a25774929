#include "propertiespanel.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "allocationtext.h"
#include "comparison.h"
#include "editcheck.h"
#include "propertiesfield.h"

using namespace propertiesfield;

namespace {

constexpr int kLargestTried = 1024; // integer values tried for "values that work"
constexpr size_t kValuesShown = 12;

// Qt shows plain-text tooltips on one line, however long; as a paragraph it wraps them.
QString wrappedTip(const QString& text)
{
    return QStringLiteral("<p>%1</p>")
        .arg(text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
}

// Spin boxes and combo boxes take the wheel only once they have the focus: scrolling the
// panel over them must scroll it, never edit the model.
class WheelNeedsFocus : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        auto* field = static_cast<QWidget*>(watched);
        if (event->type() != QEvent::Wheel || field->hasFocus())
            return false;
        for (QWidget* w = field->parentWidget(); w; w = w->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(w))
                return QApplication::sendEvent(area->viewport(), event);
        event->ignore();
        return true;
    }
};

QString capitalized(QString text)
{
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}

// Data parallelism follows edits that change the GPU count or the model-parallel size, so
// that the rule tp x cp x pp x dp = GPUs holds after an edit of one field. A resized cluster
// also scales the global batch, keeping each replica's work.
void dpFollows(const cs::ClusterRun& before, cs::ClusterRun& after, bool scaleBatch)
{
    cs::Parallelism& p = after.run.parallelism;
    const int64_t modelParallel = int64_t(p.tp) * p.cp * p.pp;
    const int oldDp = before.run.dpFor(before.cluster.gpuCount());
    if (oldDp <= 0 || modelParallel <= 0 || after.cluster.gpuCount() % modelParallel != 0)
        return;
    const int newDp = int(after.cluster.gpuCount() / modelParallel);
    if (p.dp > 0)
        p.dp = newDp;
    if (scaleBatch && after.run.batch.global % oldDp == 0)
        after.run.batch.global = after.run.batch.global / oldDp * newDp;
}

} // namespace

PropertiesPanel::PropertiesPanel(QWidget* parent)
    : QWidget(parent)
{
    buildFields();
    auto* inner = new QWidget;
    auto* innerLayout = new QVBoxLayout(inner);
    addAllocationField(innerLayout);
    QFormLayout* form = nullptr;
    QString group;
    for (size_t i = 0; i < m_fields.size(); ++i) {
        if (m_fields[i].group != group) {
            group = m_fields[i].group;
            auto* box = new QGroupBox(group, inner);
            form = new QFormLayout(box);
            form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
            // A narrow dock puts a field under its label rather than clip either.
            form->setRowWrapPolicy(QFormLayout::WrapLongRows);
            innerLayout->addWidget(box);
        }
        addEditor(int(i), form);
    }
    innerLayout->addStretch();
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(inner);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_problem = new QLabel(this);
    m_problem->setTextFormat(Qt::PlainText); // it quotes what was typed
    m_problem->setWordWrap(true);
    m_problem->setMargin(4);
    QPalette red = m_problem->palette();
    red.setColor(QPalette::WindowText, QColor(0xc0, 0x39, 0x2b));
    m_problem->setPalette(red);
    m_problem->hide();
    m_notice = new QLabel(this);
    m_notice->setWordWrap(true);
    m_notice->setMargin(4);
    m_notice->setForegroundRole(QPalette::Link);
    m_notice->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_problem);
    layout->addWidget(m_notice);
    layout->addWidget(scroll);
}

PropertiesPanel::~PropertiesPanel() = default;

void PropertiesPanel::addAllocationField(QVBoxLayout* layout)
{
    m_allocationBox = new QGroupBox(tr("Job"));
    auto* form = new QFormLayout(m_allocationBox);
    const QString label = tr("Allocation");
    m_allocation = new QLineEdit;
    m_allocation->setObjectName(label);
    m_allocation->setToolTip(
        wrappedTip(tr("The racks or nodes the job shown in detail holds, as the Jobs dock shows "
                      "them: \"racks 0-3, 8-11\" or \"nodes 0-31\". Typing others moves the job "
                      "there (one undo step) and evaluates every job again; racks another job "
                      "holds are refused.")));
    m_allocation->setPlaceholderText(tr("racks 0-3, 8-11"));
    connect(m_allocation, &QLineEdit::editingFinished, this, [this] {
        if (m_allocation->text() != m_allocationShown || m_allocationRefused)
            emit allocationEdited(m_allocation->text());
    });
    // Under its label, the whole width of the panel: a list of ranges runs long.
    form->addRow(new QLabel(label));
    form->addRow(m_allocation);
    m_allocationBox->hide();
    layout->addWidget(m_allocationBox);
}

void PropertiesPanel::showAllocation(bool shown)
{
    m_allocationBox->setVisible(shown);
}

void PropertiesPanel::showAllocationText()
{
    const QSignalBlocker block(m_allocation);
    m_allocationShown = QString::fromStdString(cs::allocationText(m_values.run.allocation));
    m_allocation->setText(m_allocationShown);
    if (!m_allocation->hasFocus())
        m_allocation->setCursorPosition(0);
    m_allocation->setStyleSheet(QString());
}

void PropertiesPanel::showAllocationRefused(const QString& why)
{
    m_allocationRefused = !why.isEmpty();
    if (!m_allocationRefused) {
        if (m_badField < 0)
            m_problem->hide();
        showAllocationText();
        return;
    }
    m_problem->setText(why);
    m_problem->show();
    m_notice->hide();
    m_allocation->setStyleSheet(QStringLiteral("background: #f6d5d1;"));
}

void PropertiesPanel::addEditor(int index, QFormLayout* form)
{
    const Field& f = m_fields[size_t(index)];
    QWidget* editor = nullptr;
    switch (f.kind) {
    case Kind::Text: {
        auto* e = new QLineEdit;
        connect(e, &QLineEdit::editingFinished, this,
                [this, e, index] { commit(index, e->text()); });
        editor = e;
        break;
    }
    case Kind::Int: {
        auto* e = new QSpinBox;
        e->setRange(0, 100'000'000);
        e->setGroupSeparatorShown(true);
        e->setKeyboardTracking(false);
        connect(e, &QSpinBox::valueChanged, this, [this, index](int v) { commit(index, v); });
        editor = e;
        break;
    }
    case Kind::Real: {
        auto* e = new QDoubleSpinBox;
        e->setRange(0, 1e6);
        e->setDecimals(3);
        e->setSingleStep(f.step);
        e->setKeyboardTracking(false);
        connect(e, &QDoubleSpinBox::valueChanged, this,
                [this, index](double v) { commit(index, v); });
        editor = e;
        break;
    }
    case Kind::Choice: {
        auto* e = new QComboBox;
        e->addItems(f.choices);
        connect(e, &QComboBox::textActivated, this,
                [this, index](const QString& v) { commit(index, v); });
        editor = e;
        break;
    }
    case Kind::Bool: {
        auto* e = new QCheckBox;
        connect(e, &QCheckBox::toggled, this, [this, index](bool v) { commit(index, v); });
        editor = e;
        break;
    }
    }
    editor->setToolTip(wrappedTip(f.tip));
    editor->setObjectName(f.label);
    if (f.kind != Kind::Text && f.kind != Kind::Bool) {
        static WheelNeedsFocus* const filter = new WheelNeedsFocus(qApp);
        editor->setFocusPolicy(Qt::StrongFocus);
        editor->installEventFilter(filter);
    }
    // A number reads in 72 px; a choice needs its longest entry, or the form puts it under its
    // label (WrapLongRows) rather than cut it ("rail-optimi").
    editor->setMinimumWidth(f.kind == Kind::Choice
                                ? editor->sizeHint().width()
                                : std::min(editor->minimumSizeHint().width(), 72));
    if (f.kind == Kind::Text) {
        // A name runs long: under its label, the whole width of the panel.
        form->addRow(new QLabel(f.label));
        form->addRow(editor);
    } else {
        form->addRow(f.label, editor);
    }
    m_editors.push_back(editor);
    m_shownText.push_back(editorText(editor));
}

QString PropertiesPanel::editorText(const QWidget* editor)
{
    if (const auto* line = qobject_cast<const QLineEdit*>(editor))
        return line->text();
    if (const auto* spin = qobject_cast<const QAbstractSpinBox*>(editor))
        return spin->text();
    return QString(); // choices and check boxes commit as soon as they change
}

void PropertiesPanel::setValues(const cs::ClusterDesc& cluster, const cs::RunDesc& run)
{
    // The notice tells what the edit just made changed; any other change of the document
    // (undo, another file) makes it stale.
    if (!(cs::ClusterRun{cluster, run} == m_values))
        m_notice->hide();
    m_values = {cluster, run};
    m_badField = -1;
    m_allocationRefused = false;
    m_problem->hide();
    refresh();
    showAllocationText();
}

void PropertiesPanel::refresh()
{
    for (size_t i = 0; i < m_fields.size(); ++i) {
        QWidget* editor = m_editors[i];
        const QSignalBlocker block(editor);
        const QVariant v = m_fields[i].get(m_values);
        if (auto* e = qobject_cast<QLineEdit*>(editor)) {
            e->setText(v.toString());
            if (!e->hasFocus())
                e->setCursorPosition(0); // a name longer than the field shows its start
        } else if (auto* e = qobject_cast<QSpinBox*>(editor))
            e->setValue(v.toInt());
        else if (auto* e = qobject_cast<QDoubleSpinBox*>(editor))
            e->setValue(v.toDouble());
        else if (auto* e = qobject_cast<QComboBox*>(editor)) {
            if (e->findText(v.toString()) < 0)
                e->addItem(v.toString()); // a GPU given as an object in the file
            e->setCurrentText(v.toString());
        } else if (auto* e = qobject_cast<QCheckBox*>(editor))
            e->setChecked(v.toBool());
        editor->setStyleSheet(int(i) == m_badField ? QStringLiteral("background: #f6d5d1;")
                                                   : QString());
        m_shownText[i] = editorText(editor);
    }
}

void PropertiesPanel::commit(int index, const QVariant& value)
{
    const Field& f = m_fields[size_t(index)];
    cs::ClusterRun next = m_values;
    f.set(next, value);
    if (f.follow != Follow::Nothing)
        dpFollows(m_values, next, f.follow == Follow::DpAndBatch);
    if (next == m_values && m_badField != index)
        return;
    cs::Diagnostics diags;
    cs::checkEdit(next.cluster, next.run, diags);
    if (!diags.empty()) {
        m_problem->setText(refusal(index, value, diags));
        m_problem->show();
        m_notice->hide();
        m_badField = index;
        QStringList pointers;
        for (const cs::Diagnostic& d : diags.items())
            pointers << QString::fromStdString(d.pointer);
        m_editors[size_t(index)]->setStyleSheet(QStringLiteral("background: #f6d5d1;"));
        m_editors[size_t(index)]->setToolTip(
            wrappedTip(m_problem->text() +
                       tr("\n(in the files: %1)").arg(pointers.join(QStringLiteral(", ")))));
        return;
    }
    // A size that another follows says what it moved, here and in the undo history.
    const int64_t gpusBefore = m_values.cluster.healthyGpuCount();
    const int64_t gpusAfter = next.cluster.healthyGpuCount();
    const int dpBefore = m_values.run.dpFor(gpusBefore), dpAfter = next.run.dpFor(gpusAfter);
    QStringList followed;
    if (f.follow != Follow::Nothing && dpBefore != dpAfter)
        followed << tr("DP %1 -> %2").arg(dpBefore).arg(dpAfter);
    if (m_values.run.batch.global != next.run.batch.global)
        followed << tr("global batch %1 -> %2")
                        .arg(m_values.run.batch.global)
                        .arg(next.run.batch.global);
    m_badField = -1;
    m_problem->hide();
    m_notice->setText(followed.isEmpty()
                          ? QString()
                          : tr("%1 %2 changed %3 too, so that TP x CP x PP x DP = %4 GPUs.")
                                .arg(f.label, value.toString(), followed.join(tr(" and ")))
                                .arg(gpusAfter));
    m_notice->setVisible(!followed.isEmpty());
    m_editors[size_t(index)]->setToolTip(wrappedTip(f.tip));
    m_values = next;
    refresh();
    QString what = tr("Set %1 to %2").arg(f.label, value.toString());
    if (!followed.isEmpty())
        what += QStringLiteral(" (%1)").arg(followed.join(QStringLiteral(", ")));
    emit editRequested(next.cluster, next.run, what, index);
}

QString PropertiesPanel::refusal(int index, const QVariant& value,
                                 const cs::Diagnostics& diags) const
{
    const Field& f = m_fields[size_t(index)];
    QString text = tr("%1 cannot be %2.").arg(f.label, value.toString());
    for (const cs::Diagnostic& d : diags.items())
        text += QStringLiteral(" %1: %2.")
                    .arg(capitalized(QString::fromStdString(cs::inputLabel(d.pointer))),
                         QString::fromStdString(d.message));
    if (f.kind == Kind::Int) {
        const QString values = valuesThatWork(index, value.toInt());
        text += values.isEmpty()
                    ? tr(" No value from 1 to %1 works with the rest as it is.").arg(kLargestTried)
                    : tr(" Values that work: %1.").arg(values);
    }
    return text;
}

QString PropertiesPanel::valuesThatWork(int index, int typed) const
{
    const Field& f = m_fields[size_t(index)];
    std::vector<int> valid;
    for (int v = 1; v <= kLargestTried; ++v) {
        cs::ClusterRun candidate = m_values;
        f.set(candidate, v);
        if (f.follow != Follow::Nothing)
            dpFollows(m_values, candidate, f.follow == Follow::DpAndBatch);
        cs::Diagnostics diags;
        cs::checkEdit(candidate.cluster, candidate.run, diags);
        if (diags.empty())
            valid.push_back(v);
    }
    if (valid.empty())
        return {};
    // Every value of a range: its ends.
    if (valid.back() - valid.front() + 1 == int(valid.size()))
        return valid.back() == kLargestTried ? tr("%1 or more").arg(valid.front())
                                             : tr("%1 to %2").arg(valid.front()).arg(valid.back());
    std::stable_sort(valid.begin(), valid.end(),
                     [typed](int a, int b) { return std::abs(a - typed) < std::abs(b - typed); });
    valid.resize(std::min(valid.size(), kValuesShown));
    std::sort(valid.begin(), valid.end());
    QStringList shown;
    for (int v : valid)
        shown << QString::number(v);
    return shown.join(QStringLiteral(", "));
}

QString PropertiesPanel::problem() const
{
    return m_problem->isHidden() ? QString() : m_problem->text();
}

QString PropertiesPanel::notice() const
{
    return m_notice->isHidden() ? QString() : m_notice->text();
}

bool PropertiesPanel::commitPendingEdit()
{
    // Every typed value is read before any is committed: a commit shows the document's values
    // in every field again.
    std::vector<std::pair<int, QVariant>> typed;
    for (size_t i = 0; i < m_editors.size(); ++i) {
        if (editorText(m_editors[i]) == m_shownText[i])
            continue;
        if (auto* line = qobject_cast<QLineEdit*>(m_editors[i])) {
            typed.emplace_back(int(i), line->text());
        } else if (auto* spin = qobject_cast<QAbstractSpinBox*>(m_editors[i])) {
            const QSignalBlocker block(spin);
            spin->interpretText(); // the value the text stands for, as Enter would take it
            typed.emplace_back(int(i), spin->property("value"));
        }
    }
    const QString allocation = m_allocation->text();
    for (const auto& [index, value] : typed)
        commit(index, value);
    if (!m_allocationBox->isHidden() && allocation != m_allocationShown)
        emit allocationEdited(allocation);
    return m_badField < 0 && !m_allocationRefused;
}

bool PropertiesPanel::editField(const QString& label, const QVariant& value)
{
    if (label == m_allocation->objectName()) {
        if (m_allocationBox->isHidden())
            return false;
        m_allocation->setText(value.toString());
        emit allocationEdited(value.toString());
        return true;
    }
    for (size_t i = 0; i < m_fields.size(); ++i) {
        if (m_fields[i].label == label) {
            commit(int(i), value);
            return true;
        }
    }
    return false;
}
