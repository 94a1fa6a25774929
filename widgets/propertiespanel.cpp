#include "propertiespanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "validation.h"

namespace {

enum class Kind { Text, Int, Real, Choice, Bool };
// What else an edit of a field changes.
enum class Follow { Nothing, Dp, DpAndBatch };

QStringList placementChoices()
{
    cs::PlacementOrder order = cs::kPlacedDims;
    std::sort(order.begin(), order.end());
    QStringList out;
    do {
        out << QString::fromStdString(cs::placementText(order));
    } while (std::next_permutation(order.begin(), order.end()));
    return out;
}

template <typename E> QStringList choicesOf()
{
    QStringList words;
    for (const std::string& word : cs::enumWords<E>())
        words << QString::fromStdString(word);
    return words;
}

QStringList catalogNames()
{
    QStringList names;
    for (const cs::GpuSpec& g : cs::gpuCatalog())
        names << QString::fromStdString(g.name);
    return names;
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

struct PropertiesPanel::Field {
    QString group;
    QString label;
    QString tip;
    Kind kind;
    std::function<QVariant(const cs::ClusterRun&)> get;
    std::function<void(cs::ClusterRun&, const QVariant&)> set;
    QStringList choices = {};
    double step = 1;
    Follow follow = Follow::Nothing;
};

#define INT_FIELD(group, label, tip, expr, follows)                                                \
    Field                                                                                          \
    {                                                                                              \
        group, label, tip, Kind::Int, [](const cs::ClusterRun& v) { return QVariant(v.expr); },    \
            [](cs::ClusterRun& v, const QVariant& x) { v.expr = x.toInt(); }, {}, 1, follows       \
    }
#define REAL_FIELD(group, label, tip, expr, step)                                                  \
    Field                                                                                          \
    {                                                                                              \
        group, label, tip, Kind::Real, [](const cs::ClusterRun& v) { return QVariant(v.expr); },   \
            [](cs::ClusterRun& v, const QVariant& x) { v.expr = x.toDouble(); }, {}, step          \
    }
#define BOOL_FIELD(group, label, tip, expr)                                                        \
    Field                                                                                          \
    {                                                                                              \
        group, label, tip, Kind::Bool, [](const cs::ClusterRun& v) { return QVariant(v.expr); },   \
            [](cs::ClusterRun& v, const QVariant& x) { v.expr = x.toBool(); }                      \
    }
#define TEXT_FIELD(group, label, tip, expr)                                                        \
    Field                                                                                          \
    {                                                                                              \
        group, label, tip, Kind::Text,                                                             \
            [](const cs::ClusterRun& v) { return QVariant(QString::fromStdString(v.expr)); },      \
            [](cs::ClusterRun& v, const QVariant& x) { v.expr = x.toString().toStdString(); }      \
    }

PropertiesPanel::PropertiesPanel(QWidget* parent)
    : QWidget(parent)
{
    buildFields();
    auto* inner = new QWidget;
    auto* innerLayout = new QVBoxLayout(inner);
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
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #c0392b; padding: 4px;"));
    m_problem->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_problem);
    layout->addWidget(scroll);
}

PropertiesPanel::~PropertiesPanel() = default;

void PropertiesPanel::buildFields()
{
    const QString cluster = tr("Cluster"), fabric = tr("Interconnect"), model = tr("Model"),
                  run = tr("Run"), par = tr("Parallelism");
    m_fields = {
        TEXT_FIELD(cluster, tr("Name"), tr("The cluster's name"), cluster.name),
        Field{cluster, tr("GPU"), tr("A GPU of the built-in catalog"), Kind::Choice,
              [](const cs::ClusterRun& v) {
                  return QVariant(QString::fromStdString(v.cluster.gpu.name));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  if (const cs::GpuSpec* g = cs::findCatalogGpu(x.toString().toStdString())) {
                      v.cluster.gpu = *g;
                      v.cluster.gpuByName = true;
                  }
              },
              catalogNames()},
        INT_FIELD(cluster, tr("Racks"),
                  tr("Racks in the data hall; data parallelism and the global batch follow"),
                  cluster.racks, Follow::DpAndBatch),
        INT_FIELD(cluster, tr("Nodes per rack"), tr("Trays (NVL72) or servers per rack"),
                  cluster.nodesPerRack, Follow::DpAndBatch),
        INT_FIELD(cluster, tr("GPUs per node"), tr("GPUs in one tray or server"),
                  cluster.gpusPerNode, Follow::DpAndBatch),
        INT_FIELD(cluster, tr("Rows"),
                  tr("Rows of racks in the data hall (0: about the square root of the rack count)"),
                  cluster.layoutRows, Follow::Nothing),
        REAL_FIELD(cluster, tr("Virtualization"),
                   tr("Fraction of step time the VM layer adds (0 for bare metal)"),
                   cluster.virtualization, 0.005),
        Field{fabric,
              tr("NVLink domain"),
              tr("node: an 8-GPU board or VM; rack: an NVL72 rack"),
              Kind::Choice,
              [](const cs::ClusterRun& v) {
                  return QVariant(QString(cs::toString(v.cluster.scaleUp.domain)));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  v.cluster.scaleUp.domain = x.toString() == QLatin1String("rack")
                                                 ? cs::DomainKind::Rack
                                                 : cs::DomainKind::Node;
              },
              {QStringLiteral("node"), QStringLiteral("rack")}},
        REAL_FIELD(fabric, tr("NVLink GB/s"),
                   tr("Scale-up bandwidth per GPU, both directions together (NVLink 5 = 1800)"),
                   cluster.scaleUp.GBpsPerGpu, 100),
        REAL_FIELD(fabric, tr("NVLink latency (us)"), tr("Scale-up latency per hop"),
                   cluster.scaleUp.latencyUs, 0.1),
        REAL_FIELD(fabric, tr("NIC Gb/s"),
                   tr("Scale-out bandwidth per GPU, one direction (ConnectX-8 = 800)"),
                   cluster.scaleOut.GbpsPerGpu, 100),
        REAL_FIELD(fabric, tr("Fabric latency (us)"), tr("Scale-out latency per hop"),
                   cluster.scaleOut.latencyUs, 0.5),
        Field{fabric,
              tr("Fabric"),
              tr("How NICs reach the leaf switches"),
              Kind::Choice,
              [](const cs::ClusterRun& v) {
                  return QVariant(QString(cs::toString(v.cluster.scaleOut.topology.kind)));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  v.cluster.scaleOut.topology.kind = x.toString() == QLatin1String("fat-tree")
                                                         ? cs::FabricKind::FatTree
                                                         : cs::FabricKind::RailOptimized;
              },
              {QStringLiteral("rail-optimized"), QStringLiteral("fat-tree")}},
        INT_FIELD(fabric, tr("Tiers"), tr("Switch tiers of the scale-out fabric (1 to 3)"),
                  cluster.scaleOut.topology.tiers, Follow::Nothing),
        REAL_FIELD(fabric, tr("Oversubscription"),
                   tr("Leaf down/up bandwidth ratio (1 = full bisection)"),
                   cluster.scaleOut.topology.oversubscription[0], 0.5),
        TEXT_FIELD(model, tr("Model"), tr("The model's name"), run.model.name),
        INT_FIELD(model, tr("Layers"), tr("Transformer layers"), run.model.layers, Follow::Nothing),
        INT_FIELD(model, tr("Hidden"), tr("Hidden size"), run.model.hidden, Follow::Nothing),
        INT_FIELD(model, tr("FFN hidden"), tr("MLP inner size"), run.model.ffnHidden,
                  Follow::Nothing),
        INT_FIELD(model, tr("Heads"), tr("Attention heads"), run.model.heads, Follow::Nothing),
        INT_FIELD(model, tr("KV heads"), tr("Key/value heads (grouped-query attention)"),
                  run.model.kvHeads, Follow::Nothing),
        INT_FIELD(model, tr("Vocabulary"), tr("Vocabulary size"), run.model.vocab, Follow::Nothing),
        INT_FIELD(model, tr("Sequence"), tr("Sequence length in tokens"), run.model.seqLen,
                  Follow::Nothing),
        BOOL_FIELD(model, tr("Gated MLP"), tr("SwiGLU-style MLP with three matrices"),
                   run.model.gatedMlp),
        Field{run, tr("Precision"), tr("Precision of the matrix multiplications"), Kind::Choice,
              [](const cs::ClusterRun& v) {
                  return QVariant(QString(cs::toString(v.run.precision)));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  v.run.precision = cs::enumFromString<cs::Precision>(x.toString().toStdString())
                                        .value_or(v.run.precision);
              },
              choicesOf<cs::Precision>()},
        INT_FIELD(run, tr("Global batch"), tr("Sequences per step"), run.batch.global,
                  Follow::Nothing),
        INT_FIELD(run, tr("Micro-batch"), tr("Sequences per micro-batch"), run.batch.micro,
                  Follow::Nothing),
        INT_FIELD(par, tr("TP"), tr("Tensor-parallel degree"), run.parallelism.tp, Follow::Dp),
        INT_FIELD(par, tr("CP"), tr("Context-parallel degree"), run.parallelism.cp, Follow::Dp),
        INT_FIELD(par, tr("PP"), tr("Pipeline-parallel degree"), run.parallelism.pp, Follow::Dp),
        INT_FIELD(par, tr("VP"), tr("Virtual pipeline chunks per stage (interleaved 1F1B)"),
                  run.parallelism.vp, Follow::Nothing),
        INT_FIELD(par, tr("DP"), tr("Data-parallel degree (0: the GPU count over tp x cp x pp)"),
                  run.parallelism.dp, Follow::Nothing),
        BOOL_FIELD(par, tr("Sequence parallel"),
                   tr("Shard norms and dropout along the sequence in TP groups"),
                   run.parallelism.sequenceParallel),
        BOOL_FIELD(par, tr("Distributed optimizer"),
                   tr("Shard optimizer states over data parallelism"),
                   run.parallelism.distributedOptimizer),
        Field{par, tr("Recompute"), tr("Activation recomputation"), Kind::Choice,
              [](const cs::ClusterRun& v) {
                  return QVariant(
                      QString::fromStdString(cs::toString(v.run.parallelism.recompute)));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  if (const auto mode =
                          cs::enumFromString<cs::RecomputeMode>(x.toString().toStdString()))
                      v.run.parallelism.recompute = cs::Recompute::of(*mode);
              },
              choicesOf<cs::RecomputeMode>()},
        Field{par, tr("Placement"), tr("How ranks are laid on GPUs, innermost first"), Kind::Choice,
              [](const cs::ClusterRun& v) {
                  return QVariant(QString::fromStdString(cs::placementText(v.run.placement)));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  v.run.placement =
                      cs::placementFromText(x.toString().toStdString()).value_or(v.run.placement);
              },
              placementChoices()},
    };
}

#undef INT_FIELD
#undef REAL_FIELD
#undef BOOL_FIELD
#undef TEXT_FIELD

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
    editor->setToolTip(f.tip);
    editor->setObjectName(f.label);
    editor->setMinimumWidth(std::min(editor->minimumSizeHint().width(), 72));
    form->addRow(f.label, editor);
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
    m_values = {cluster, run};
    m_badField = -1;
    m_problem->hide();
    refresh();
}

void PropertiesPanel::refresh()
{
    for (size_t i = 0; i < m_fields.size(); ++i) {
        QWidget* editor = m_editors[i];
        const QSignalBlocker block(editor);
        const QVariant v = m_fields[i].get(m_values);
        if (auto* e = qobject_cast<QLineEdit*>(editor))
            e->setText(v.toString());
        else if (auto* e = qobject_cast<QSpinBox*>(editor))
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
    cs::validateClusterRun(next.cluster, next.run, diags);
    if (!diags.empty()) {
        QStringList reasons;
        for (const cs::Diagnostic& d : diags.items())
            reasons << QStringLiteral("%1: %2").arg(QString::fromStdString(d.pointer),
                                                    QString::fromStdString(d.message));
        m_problem->setText(tr("%1 %2 refused: %3")
                               .arg(f.label, value.toString(), reasons.join(QLatin1String("; "))));
        m_problem->show();
        m_badField = index;
        m_editors[size_t(index)]->setStyleSheet(QStringLiteral("background: #f6d5d1;"));
        m_editors[size_t(index)]->setToolTip(m_problem->text());
        return;
    }
    m_badField = -1;
    m_problem->hide();
    m_editors[size_t(index)]->setToolTip(f.tip);
    m_values = next;
    refresh();
    emit editRequested(next.cluster, next.run, tr("Set %1 to %2").arg(f.label, value.toString()),
                       index);
}

QString PropertiesPanel::problem() const
{
    return m_problem->isHidden() ? QString() : m_problem->text();
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
    for (const auto& [index, value] : typed)
        commit(index, value);
    return m_badField < 0;
}

bool PropertiesPanel::editField(const QString& label, const QVariant& value)
{
    for (size_t i = 0; i < m_fields.size(); ++i) {
        if (m_fields[i].label == label) {
            commit(int(i), value);
            return true;
        }
    }
    return false;
}
