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

#include "calibration.h"
#include "checkpoint.h"
#include "comparison.h"
#include "editcheck.h"

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
// A field of an optional part (reliability, storage): absent, it shows the value assumed, and
// editing it writes the part with that value changed.
#define OPTIONAL_REAL_FIELD(group, label, tip, part, member, assumed, step)                        \
    Field                                                                                          \
    {                                                                                              \
        group, label, tip, Kind::Real,                                                             \
            [](const cs::ClusterRun& v) { return QVariant(v.part.value_or(assumed).member); },     \
            [](cs::ClusterRun& v, const QVariant& x) {                                             \
                if (!v.part)                                                                       \
                    v.part = assumed;                                                              \
                v.part->member = x.toDouble();                                                     \
            },                                                                                     \
            {}, step                                                                               \
    }
// A run extension the cost model reads as on or off: it shows what the model applies (the
// run's value, else the model's default), and editing it writes the extension.
#define SWITCH_FIELD(group, label, tip, applied, key)                                              \
    Field                                                                                          \
    {                                                                                              \
        group, label, tip, Kind::Bool,                                                             \
            [](const cs::ClusterRun& v) {                                                          \
                const cs::GpuSpec& gpu = v.cluster.gpu;                                            \
                return QVariant(applied(v.run, gpu, cs::frameworkOf(v.run, gpu)));                 \
            },                                                                                     \
            [](cs::ClusterRun& v, const QVariant& x) { v.run.extensions.set(key, x.toBool()); }    \
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

void PropertiesPanel::buildFields()
{
    const QString cluster = tr("Cluster"), fabric = tr("Interconnect"), model = tr("Model"),
                  run = tr("Run"), par = tr("Parallelism"), reliability = tr("Reliability"),
                  storage = tr("Storage"), checkpoints = tr("Checkpoints");
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
        Field{fabric,
              tr("Spine oversubscription"),
              tr("Spine down/up bandwidth ratio, with 3 tiers (1 = full bisection)"),
              Kind::Real,
              [](const cs::ClusterRun& v) {
                  return QVariant(v.cluster.scaleOut.topology.oversubscriptionAt(1));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  std::vector<double>& ratios = v.cluster.scaleOut.topology.oversubscription;
                  // One value stood for every boundary: the leaves keep it.
                  ratios.resize(2, ratios.empty() ? 1.0 : ratios.front());
                  ratios[1] = x.toDouble();
              },
              {},
              0.5},
        Field{fabric, tr("Routing"),
              tr("adaptive: flows spread over every equal-cost path; ecmp: each flow hashed to "
                 "one path"),
              Kind::Choice,
              [](const cs::ClusterRun& v) {
                  return QVariant(QString(cs::toString(v.cluster.scaleOut.topology.routing)));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  v.cluster.scaleOut.topology.routing =
                      cs::enumFromString<cs::Routing>(x.toString().toStdString())
                          .value_or(v.cluster.scaleOut.topology.routing);
              },
              choicesOf<cs::Routing>()},
        INT_FIELD(fabric, tr("Switch radix"), tr("Ports per scale-out switch"),
                  cluster.scaleOut.topology.switchRadix, Follow::Nothing),
        INT_FIELD(fabric, tr("Nodes per leaf"),
                  tr("Nodes a leaf serves (0: as many as its downlinks serve)"),
                  cluster.scaleOut.topology.nodesPerLeaf, Follow::Nothing),
        INT_FIELD(fabric, tr("Rails"), tr("NICs per node, each on its own rail (0: one per GPU)"),
                  cluster.scaleOut.topology.rails, Follow::Nothing),
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
        BOOL_FIELD(par, tr("FSDP"),
                   tr("Shard parameters, gradients and optimizer states over data parallelism, "
                      "gathering each layer's parameters as it runs"),
                   run.parallelism.fsdp),
        INT_FIELD(par, tr("EP"), tr("Expert-parallel degree: the experts split over ep GPUs"),
                  run.parallelism.ep, Follow::Nothing),
        INT_FIELD(par, tr("ETP"),
                  tr("Expert tensor-parallel degree: each expert split over etp GPUs"),
                  run.parallelism.etp, Follow::Nothing),
        SWITCH_FIELD(par, tr("All-to-all overlap"),
                     tr("The expert all-to-all runs under another micro-batch's compute, as "
                        "recipes that turn on Megatron-Core's overlap_moe_expert_parallel_comm "
                        "do (by default only the 2026 MXFP8 full-iteration recipes)"),
                     cs::allToAllOverlapOf, cs::kAllToAllOverlapKey),
        SWITCH_FIELD(par, tr("FP8 attention"),
                     tr("Attention runs in FP8 at the GPU's FP8 rate, as recipes that turn on "
                        "Transformer Engine's fp8_dot_product_attention do (by default only the "
                        "2026 MXFP8 full-iteration recipes; never in a BF16 run)"),
                     cs::fp8AttentionOf, cs::kFp8AttentionKey),
        SWITCH_FIELD(par, tr("MXFP8"),
                     tr("FP8 scales its GEMM inputs in blocks of 32 (Transformer Engine's "
                        "MXFP8BlockScaling), not one scale a tensor: each input is written twice, "
                        "once for each way the backward reads it (by default only the 2026 "
                        "full-iteration recipes; FP8 on Blackwell only)"),
                     cs::fp8BlockScalingOf, cs::kFp8BlockScalingKey),
        SWITCH_FIELD(par, tr("NVLink SHARP"),
                     tr("NCCL may all-reduce inside an NVLink domain in the NVSwitches (NVLS), "
                        "where that is faster: TP without sequence parallelism, gradients "
                        "without the distributed optimizer. Off by default, as Megatron-Bridge's "
                        "launchers set NCCL_NVLS_ENABLE=0; only on NVLink 4 and later"),
                     cs::nvlsOf, cs::kNvlsKey),
        SWITCH_FIELD(par, tr("TP overlap"),
                     tr("The tensor-parallel collectives run under the GEMMs they feed "
                        "(Transformer Engine's userbuffers, tp_comm_overlap), which hides part "
                        "of them. On by default but for NVFP4, whose recipes turn it off (not "
                        "supported for NVFP4 GEMMs); never on Megatron-LM's defaults"),
                     cs::tpCommOverlapOf, cs::kTpCommOverlapKey),
        Field{
            par, tr("Offloaded layers"),
            tr("Layers of each model chunk whose activations wait in host memory for the "
               "backward pass, as recipes that set Megatron-Core's cpu_offloading_num_layers "
               "do: less GPU memory, and time where a copy outlasts the layers it runs under "
               "(0: none)"),
            Kind::Int,
            [](const cs::ClusterRun& v) { return QVariant(cs::activationOffloadLayersOf(v.run)); },
            [](cs::ClusterRun& v, const QVariant& x) {
                if (x.toInt() > 0)
                    v.run.extensions.set(cs::kActivationOffloadKey, x.toInt());
                else
                    v.run.extensions.erase(cs::kActivationOffloadKey);
            }},
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
        OPTIONAL_REAL_FIELD(reliability, tr("GPU MTBF (h)"),
                            tr("Mean time between failures of one GPU, in hours"),
                            cluster.reliability, gpuMtbfH, cs::Reliability{}, 1000),
        OPTIONAL_REAL_FIELD(reliability, tr("Node MTBF (h)"),
                            tr("Mean time between failures of one node (host), in hours"),
                            cluster.reliability, nodeMtbfH, cs::Reliability{}, 1000),
        OPTIONAL_REAL_FIELD(reliability, tr("Switch MTBF (h)"),
                            tr("Mean time between failures of one scale-out switch, in hours"),
                            cluster.reliability, switchMtbfH, cs::Reliability{}, 1000),
        OPTIONAL_REAL_FIELD(reliability, tr("Restart (s)"),
                            tr("Detecting a failure, rescheduling and starting again, before the "
                               "checkpoint is read"),
                            cluster.reliability, restartS, cs::Reliability{}, 30),
        OPTIONAL_REAL_FIELD(reliability, tr("Step jitter"),
                            tr("Relative standard deviation of one GPU's step time"),
                            cluster.reliability, stepJitter, cs::Reliability{}, 0.001),
        OPTIONAL_REAL_FIELD(storage, tr("Write GB/s"),
                            tr("Aggregate checkpoint write bandwidth of the storage"),
                            cluster.storage, writeGBps, cs::kAssumedStorage, 100),
        OPTIONAL_REAL_FIELD(storage, tr("Read GB/s"),
                            tr("Aggregate checkpoint read bandwidth of the storage"),
                            cluster.storage, readGBps, cs::kAssumedStorage, 100),
        Field{checkpoints, tr("Checkpoint every"),
              tr("Steps between checkpoints (0: auto, the interval that maximizes goodput)"),
              Kind::Int,
              [](const cs::ClusterRun& v) {
                  return QVariant(
                      v.run.checkpoint.value_or(cs::Checkpoint{}).intervalSteps.value_or(0));
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  if (!v.run.checkpoint)
                      v.run.checkpoint.emplace();
                  v.run.checkpoint->intervalSteps =
                      x.toInt() > 0 ? std::optional<int>(x.toInt()) : std::nullopt;
              }},
        Field{checkpoints, tr("Asynchronous"),
              tr("Checkpoints copied to host memory and written while training goes on"),
              Kind::Bool,
              [](const cs::ClusterRun& v) {
                  return QVariant(v.run.checkpoint.value_or(cs::Checkpoint{}).async);
              },
              [](cs::ClusterRun& v, const QVariant& x) {
                  if (!v.run.checkpoint)
                      v.run.checkpoint.emplace();
                  v.run.checkpoint->async = x.toBool();
              }},
        Field{
            checkpoints, tr("Training steps"),
            tr("Steps of the whole training run, for the time to train (0: not given)"), Kind::Int,
            [](const cs::ClusterRun& v) { return QVariant(v.run.trainingSteps.value_or(0)); },
            [](cs::ClusterRun& v, const QVariant& x) {
                v.run.trainingSteps = x.toInt() > 0 ? std::optional<int>(x.toInt()) : std::nullopt;
            }},
    };
}

#undef INT_FIELD
#undef REAL_FIELD
#undef BOOL_FIELD
#undef TEXT_FIELD
#undef OPTIONAL_REAL_FIELD

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
    // The notice tells what the edit just made changed; any other change of the document
    // (undo, another file) makes it stale.
    if (!(cs::ClusterRun{cluster, run} == m_values))
        m_notice->hide();
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
