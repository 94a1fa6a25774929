// The Properties panel's table of fields: every value of the cluster and the run that can be
// edited, grouped as the panel shows them, each with its tooltip and what an edit changes.

#include <algorithm>

#include <nlohmann/json.hpp>

#include "calibration.h"
#include "checkpoint.h"
#include "comparison.h"
#include "propertiesfield.h"

using namespace propertiesfield;

namespace {

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

} // namespace

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
        SWITCH_FIELD(par, tr("MXFP8 LM head"),
                     tr("The LM head (and each MTP layer's) runs in MXFP8 rather than BF16, as "
                        "recipes that set Megatron-Core's fp8_output_proj do (Megatron-Bridge's "
                        "DeepSeek-V3 and gpt-oss MXFP8 recipes from 26.06). Off by default; "
                        "MXFP8 runs only"),
                     cs::fp8OutputProjOf, cs::kFp8OutputProjKey),
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
        SWITCH_FIELD(par, tr("Linear biases"),
                     tr("The model's linear layers carry biases, as gpt-oss's do (Megatron-Core's "
                        "add_bias_linear): each expert's second bias is then added after its "
                        "GEMM, expert by expert, unless the recipe fuses the expert MLP (the 2026 "
                        "MXFP8 full-iteration recipes). Off by default"),
                     cs::biasedLinearsOf, cs::kBiasLinearKey),
        SWITCH_FIELD(par, tr("GLU clamp apart"),
                     tr("The experts' GLU clamps its input outside the fused activation kernel, "
                        "as Megatron-Core does for gpt-oss (activation_func_clamp_value): two "
                        "clamps and a concatenation forward, their gradients backward, in HBM "
                        "passes, unless the recipe fuses the expert MLP. Off by default"),
                     cs::gluClampOf, cs::kGluClampKey),
        SWITCH_FIELD(par, tr("RoPE unfused"),
                     tr("The rotary embeddings run without Transformer Engine's fused kernel, as "
                        "Megatron-Core runs them where YaRN scales the attention by other than 1 "
                        "(gpt-oss): several HBM passes over the queries and keys each way. Off "
                        "by default"),
                     cs::unfusedRopeOf, cs::kUnfusedRopeKey),
        SWITCH_FIELD(par, tr("TE cross-entropy"),
                     tr("The loss runs Transformer Engine's fused cross-entropy on the BF16 "
                        "logits, writing their gradient in place, as Megatron-Bridge's "
                        "performance scripts run it (cross_entropy_fusion_impl te): a fraction "
                        "of the HBM passes and a quarter of the memory of Megatron-Core's own "
                        "loss over FP32 copies. Off by default, as Megatron-LM's"),
                     cs::teCrossEntropyOf, cs::kTeCrossEntropyKey),
        SWITCH_FIELD(par, tr("DP overlap"),
                     tr("The data-parallel gradients are reduced bucket by bucket as the backward "
                        "pass releases them (Megatron's --overlap-grad-reduce), under the rest "
                        "of the backward pass; off, all at once after it. On by default but on "
                        "Megatron-LM's 2021 defaults"),
                     cs::overlapGradReduceOf, cs::kOverlapGradReduceKey),
        SWITCH_FIELD(par, tr("DeepEP / HybridEP"),
                     tr("The expert all-to-all sends a token once to each GPU that holds one of "
                        "its experts, and once to each other NVLink domain, as Megatron-Core's "
                        "flex dispatcher (DeepEP, HybridEP) does; off, once per expert, as its "
                        "alltoall dispatcher does (by default only the 2026 MXFP8 "
                        "full-iteration recipes, which run HybridEP)"),
                     cs::flexDispatcherOf, cs::kFlexDispatcherKey),
        SWITCH_FIELD(
            par, tr("Router in CUDA graphs"),
            tr("Each MoE layer's router and token-count preprocessing replay as CUDA "
               "graphs (Megatron-Core's cuda_graph_scope moe_router moe_preprocess): "
               "the CPU skips their launches but replays the graphs: 0.07 of a dropless MoE "
               "layer's fixed CPU time net (its attention's launches and the MoE's, not each "
               "expert's). "
               "Off by default; the 2026 full-iteration recipes graph the whole step"),
            cs::routerGraphOf, cs::kRouterGraphKey),
        SWITCH_FIELD(par, tr("Attention in CUDA graphs"),
                     tr("Each layer's attention replays as a CUDA graph (cuda_graph_scope attn): "
                        "the CPU skips its launches but replays the graph: 0.21 of a dropless MoE "
                        "layer's fixed CPU time net. "
                        "Off by default"),
                     cs::attentionGraphOf, cs::kAttentionGraphKey),
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
