// Runs from parsed JSON (formats.md "Run") and the rules between their fields.

#include <algorithm>

#include "loader.h"
#include "loaderfields.h"
#include "validation.h"

namespace cs {

using nlohmann::json;

namespace {

// Bounds on what a file may say. They are wide enough for any machine built or announced
// (NVL72 and NVL576 domains, 100k-GPU clusters, 1M-token contexts) and narrow enough that
// products of them cannot overflow the cost model's arithmetic or hide a typo.
constexpr int kMaxLayers = 4096;
constexpr int kMaxHidden = 1 << 20;
constexpr int kMaxFfnHidden = 1 << 22;
constexpr int kMaxHeads = 4096;
constexpr int kMaxVocab = 1 << 24;
constexpr int kMaxSeqLen = 1 << 22;
constexpr int kMaxGlobalBatch = 1 << 24;
constexpr int kMaxMicroBatch = 65536;
constexpr int kMaxVirtualStages = 1024;
constexpr int kMaxTrainingSteps = 1000000000;
constexpr double kMaxStepTimeS = 1e6;
constexpr int kMaxExperts = 65536;
constexpr int kMaxHeadDim = 65536;
constexpr double kMaxCapacityFactor = 1000;

void readAttention(const json& object, const std::string& pointer, Attention& a,
                   const std::string& file, Diagnostics& diags)
{
    FieldReader f(object, file, pointer, diags);
    readEnum(f, "kind", a.kind, Need::Optional);
    const Need mla = a.kind == AttentionKind::Mla ? Need::Required : Need::Optional;
    f.readInt("q_lora_rank", a.qLoraRank, 0, kMaxHidden, Need::Optional);
    f.readInt("kv_lora_rank", a.kvLoraRank, 1, kMaxHidden, mla);
    f.readInt("qk_nope_head_dim", a.qkNopeHeadDim, 0, kMaxHeadDim, mla);
    f.readInt("qk_rope_head_dim", a.qkRopeHeadDim, 0, kMaxHeadDim, mla);
    f.readInt("v_head_dim", a.vHeadDim, 1, kMaxHeadDim, mla);
    const Need window = a.kind == AttentionKind::SlidingWindow ? Need::Required : Need::Optional;
    f.readInt("window", a.window, 1, kMaxSeqLen, window);
    f.readInt("every", a.every, 1, kMaxLayers, Need::Optional);
    f.reportUnknownKeys();
}

void readMoe(const json& object, const std::string& pointer, ModelShape& m, const std::string& file,
             Diagnostics& diags)
{
    Moe& moe = *m.moe;
    FieldReader f(object, file, pointer, diags);
    f.readInt("experts", moe.experts, 1, kMaxExperts, Need::Required);
    f.readInt("top_k", moe.topK, 1, kMaxExperts, Need::Required);
    f.readInt("ffn_hidden", moe.ffnHidden, 1, kMaxFfnHidden, Need::Required);
    f.readInt("shared_experts", moe.sharedExperts, 0, kMaxExperts, Need::Optional);
    moe.sharedFfnHidden = moe.ffnHidden;
    f.readInt("shared_ffn_hidden", moe.sharedFfnHidden, 0, kMaxFfnHidden, Need::Optional);
    f.readInt("dense_layers", moe.denseLayers, 0, kMaxLayers, Need::Optional);
    moe.denseFfnHidden = m.ffnHidden;
    f.readInt("dense_ffn_hidden", moe.denseFfnHidden, 0, kMaxFfnHidden, Need::Optional);
    if (const json* capacity = f.find("capacity_factor", Need::Optional);
        capacity && !capacity->is_null()) {
        double factor = 0;
        if (f.readNumber("capacity_factor", factor, 1e-3, kMaxCapacityFactor, Need::Optional))
            moe.capacityFactor = factor;
    }
    f.readNumber("imbalance", moe.imbalance, 1, kMaxCapacityFactor, Need::Optional);
    f.reportUnknownKeys();
}

void readModel(const json& object, const std::string& pointer, ModelShape& m,
               const std::string& file, Diagnostics& diags)
{
    FieldReader f(object, file, pointer, diags);
    f.readString("name", m.name, Need::Optional);
    f.readInt("layers", m.layers, 1, kMaxLayers, Need::Required);
    f.readInt("hidden", m.hidden, 1, kMaxHidden, Need::Required);
    f.readInt("ffn_hidden", m.ffnHidden, 1, kMaxFfnHidden, Need::Required);
    f.readInt("heads", m.heads, 1, kMaxHeads, Need::Required);
    int kvHeads = 0;
    f.readInt("kv_heads", kvHeads, 1, kMaxHeads, Need::Optional);
    m.kvHeads = kvHeads > 0 ? kvHeads : m.heads;
    f.readInt("vocab", m.vocab, 1, kMaxVocab, Need::Required);
    f.readInt("seq_len", m.seqLen, 1, kMaxSeqLen, Need::Required);
    f.readBool("gated_mlp", m.gatedMlp, Need::Optional);
    f.readInt("head_dim", m.headDim, 1, kMaxHeadDim, Need::Optional);
    f.readInt("mtp_layers", m.mtpLayers, 0, kMaxLayers, Need::Optional);
    if (const json* attention = f.readObject("attention", Need::Optional))
        readAttention(*attention, f.pointerOf("attention"), m.attention, file, diags);
    if (const json* moe = f.readObject("moe", Need::Optional)) {
        m.moe = Moe{};
        readMoe(*moe, f.pointerOf("moe"), m, file, diags);
    }
    f.reportUnknownKeys();
}

// A word (none, selective, full) or the list of modules recomputed.
void readRecompute(FieldReader& f, Recompute& out)
{
    const json* value = f.find("recompute", Need::Optional);
    if (!value)
        return;
    if (!value->is_array()) {
        RecomputeMode mode = RecomputeMode::None;
        if (readEnum(f, "recompute", mode, Need::Optional))
            out = Recompute::of(mode);
        return;
    }
    Recompute modules{RecomputeMode::Modules, 0};
    for (size_t i = 0; i < value->size(); ++i) {
        const json& item = (*value)[i];
        const auto module = item.is_string()
                                ? enumFromString<RecomputeModule>(item.get<std::string>())
                                : std::nullopt;
        if (!module) {
            f.error("recompute", "item " + std::to_string(i) + " must be one of " +
                                     wordList(enumWords<RecomputeModule>()));
            return;
        }
        modules.modules |= uint8_t(1u << unsigned(*module));
    }
    out = modules.modules == 0 ? Recompute::of(RecomputeMode::None) : modules;
}

void readParallelism(const json& object, const std::string& pointer, Parallelism& p,
                     const std::string& file, Diagnostics& diags)
{
    FieldReader f(object, file, pointer, diags);
    const int maxSize = int(kMaxGpus);
    f.readInt("tp", p.tp, 1, maxSize, Need::Optional);
    f.readInt("cp", p.cp, 1, maxSize, Need::Optional);
    f.readInt("pp", p.pp, 1, maxSize, Need::Optional);
    f.readInt("vp", p.vp, 1, kMaxVirtualStages, Need::Optional);
    f.readInt("dp", p.dp, 1, maxSize, Need::Optional);
    f.readInt("ep", p.ep, 1, maxSize, Need::Optional);
    f.readInt("etp", p.etp, 1, maxSize, Need::Optional);
    f.readBool("sequence_parallel", p.sequenceParallel, Need::Optional);
    f.readBool("distributed_optimizer", p.distributedOptimizer, Need::Optional);
    f.readBool("fsdp", p.fsdp, Need::Optional);
    readRecompute(f, p.recompute);
    f.reportUnknownKeys();
}

std::vector<std::string> placedDimWords()
{
    std::vector<std::string> words;
    for (Dim d : kPlacedDims)
        words.emplace_back(toString(d));
    return words;
}

bool isPlaced(Dim d)
{
    return dimInfo(d).placed;
}

void readPlacement(const json& array, const std::string& pointer, PlacementOrder& placement,
                   const std::string& file, Diagnostics& diags)
{
    std::vector<Dim> dims;
    bool wordsOk = true;
    for (size_t i = 0; i < array.size(); ++i) {
        const json& item = array[i];
        const std::string at = pointer + "/" + std::to_string(i);
        const std::optional<Dim> dim =
            item.is_string() ? enumFromString<Dim>(item.get<std::string>()) : std::nullopt;
        if (!dim || !isPlaced(*dim)) {
            diags.atPointer(
                file, at,
                "must be one of " + wordList(placedDimWords(), ", ") + "; got " +
                    (item.is_string() ? inQuotes(item.get<std::string>()) : jsonTypeName(item)));
            wordsOk = false;
            continue;
        }
        dims.push_back(*dim);
    }
    if (!wordsOk)
        return;
    std::vector<std::string> missing, repeated;
    for (Dim d : kPlacedDims) {
        const auto count = std::count(dims.begin(), dims.end(), d);
        if (count == 0)
            missing.push_back(toString(d));
        if (count > 1)
            repeated.push_back(toString(d));
    }
    if (missing.empty() && repeated.empty()) {
        std::copy(dims.begin(), dims.end(), placement.begin());
        return;
    }
    std::string message = "must list " + wordList(placedDimWords(), " and ") + " once each";
    if (!missing.empty())
        message += "; missing " + wordList(missing, ", ");
    if (!repeated.empty())
        message += "; repeated " + wordList(repeated, ", ");
    diags.atPointer(file, pointer, message);
}

Checkpoint readCheckpoint(const json& object, const std::string& pointer, const std::string& file,
                          Diagnostics& diags)
{
    Checkpoint c;
    FieldReader f(object, file, pointer, diags);
    if (const json* interval = f.find("interval_steps", Need::Optional)) {
        if (interval->is_string() && interval->get<std::string>() == "auto") {
            c.intervalSteps.reset();
        } else {
            int steps = 0;
            if (interval->is_number() || !interval->is_string()) {
                if (f.readInt("interval_steps", steps, 1, kMaxTrainingSteps, Need::Optional))
                    c.intervalSteps = steps;
            } else {
                f.error("interval_steps", "expected a number of steps or \"auto\", got " +
                                              inQuotes(interval->get<std::string>()));
            }
        }
    }
    f.readBool("async", c.async, Need::Optional);
    f.reportUnknownKeys();
    return c;
}

// One range of an allocation: [first, last], two integers, first <= last, both within what
// any cluster may hold (the cluster itself is checked by checkRunOnCluster).
std::optional<std::pair<int, int>> readRange(const json& item, const std::string& pointer,
                                             const char* unit, const std::string& file,
                                             Diagnostics& diags)
{
    const bool pair = item.is_array() && item.size() == 2 && item[0].is_number_integer() &&
                      item[1].is_number_integer();
    if (!pair) {
        diags.atPointer(file, pointer,
                        std::string("expected [first, last], two ") + unit +
                            " indices (integers); got " +
                            (item.is_array() ? "an array of " + std::to_string(item.size())
                                             : jsonTypeName(item)));
        return std::nullopt;
    }
    const int64_t maxIndex = kMaxGpus - 1;
    int64_t ends[2] = {0, 0};
    for (size_t i = 0; i < 2; ++i) {
        // An index past int64 reads as an unsigned integer; it is out of range either way.
        ends[i] = item[i].is_number_unsigned() && item[i].get<uint64_t>() > uint64_t(maxIndex)
                      ? maxIndex + 1
                      : item[i].get<int64_t>();
        if (ends[i] < 0 || ends[i] > maxIndex) {
            diags.atPointer(file, pointer + "/" + std::to_string(i),
                            std::string(unit) + " index must be from 0 to " +
                                withThousands(maxIndex) + "; got " + item[i].dump());
            return std::nullopt;
        }
    }
    if (ends[0] > ends[1]) {
        diags.atPointer(file, pointer,
                        "first " + std::string(unit) + " " + std::to_string(ends[0]) +
                            " is after last " + std::to_string(ends[1]) +
                            "; a range is [first, last]");
        return std::nullopt;
    }
    return std::pair{int(ends[0]), int(ends[1])};
}

// Two ranges of one allocation that hold the same rack or node are a typo, not a wider range.
void checkRangesApart(const Allocation& a, const std::string& pointer, const char* unit,
                      const std::string& file, Diagnostics& diags)
{
    std::vector<size_t> order(a.ranges.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return a.ranges[x] < a.ranges[y]; });
    for (size_t k = 1; k < order.size(); ++k) {
        const auto& before = a.ranges[order[k - 1]];
        const auto& after = a.ranges[order[k]];
        if (after.first <= before.second) {
            diags.atPointer(file, pointer + "/" + std::to_string(order[k]),
                            "overlaps range " + std::to_string(order[k - 1]) + ": both hold " +
                                unit + " " + std::to_string(after.first));
            return;
        }
    }
}

std::optional<Allocation> readAllocation(const json& object, const std::string& pointer,
                                         const std::string& file, Diagnostics& diags)
{
    FieldReader f(object, file, pointer, diags);
    const json* racks = f.readArray("racks", Need::Optional);
    const json* nodes = f.readArray("nodes", Need::Optional);
    f.reportUnknownKeys();
    if (racks && nodes) {
        diags.atPointer(file, pointer,
                        "gives both racks and nodes; an allocation is ranges of one or the other");
        return std::nullopt;
    }
    if (!racks && !nodes) {
        if (!object.contains("racks") && !object.contains("nodes"))
            diags.atPointer(file, pointer,
                            "needs \"racks\" or \"nodes\": ranges [first, last] of the part of "
                            "the cluster the run occupies");
        return std::nullopt;
    }
    Allocation a;
    a.unit = racks ? Allocation::Unit::Racks : Allocation::Unit::Nodes;
    const char* unit = racks ? "rack" : "node";
    const json& ranges = racks ? *racks : *nodes;
    const std::string rangesPointer = f.pointerOf(racks ? "racks" : "nodes");
    if (ranges.empty()) {
        diags.atPointer(file, rangesPointer,
                        "is empty; an allocation holds at least one range [first, last]");
        return std::nullopt;
    }
    if (ranges.size() > size_t(kMaxAllocationRanges)) {
        diags.atPointer(file, rangesPointer,
                        "lists " + withThousands(int64_t(ranges.size())) +
                            " ranges; an allocation lists at most " +
                            withThousands(kMaxAllocationRanges) +
                            " (a range may cover any number of " + unit + "s)");
        return std::nullopt;
    }
    bool ok = true;
    for (size_t i = 0; i < ranges.size(); ++i) {
        const auto range =
            readRange(ranges[i], rangesPointer + "/" + std::to_string(i), unit, file, diags);
        ok = ok && range.has_value();
        if (range)
            a.ranges.push_back(*range);
    }
    if (!ok)
        return std::nullopt;
    const size_t before = diags.size();
    checkRangesApart(a, rangesPointer, unit, file, diags);
    if (diags.size() != before)
        return std::nullopt;
    return a;
}

} // namespace

std::optional<RunDesc> runFromJson(const json& j, const std::string& file, const std::string& base,
                                   Diagnostics& diags)
{
    if (!requireObject(j, file, base, "a run", diags))
        return std::nullopt;
    const size_t before = diags.size();
    RunDesc r;
    FieldReader top(j, file, base, diags);
    checkFormat(top, kRunFormat);
    top.readString("name", r.name, Need::Required);
    if (top.readString("cluster", r.clusterPath, Need::Optional) && j.contains("cluster") &&
        r.clusterPath.empty())
        top.error("cluster", "must name a cluster file; leave the key out for none");

    // Rules between fields only run on fields that were read, so that one typo does not
    // also show up as several broken divisibility rules.
    size_t mark = diags.size();
    const json* model = top.readObject("model", Need::Required);
    if (model)
        readModel(*model, top.pointerOf("model"), r.model, file, diags);
    const json* parallelism = top.readObject("parallelism", Need::Optional);
    if (parallelism)
        readParallelism(*parallelism, top.pointerOf("parallelism"), r.parallelism, file, diags);
    const json* batch = top.readObject("batch", Need::Required);
    if (batch) {
        FieldReader b(*batch, file, top.pointerOf("batch"), diags);
        b.readInt("global", r.batch.global, 1, kMaxGlobalBatch, Need::Required);
        b.readInt("micro", r.batch.micro, 1, kMaxMicroBatch, Need::Required);
        b.reportUnknownKeys();
    }
    const bool shapeOk = model && batch && diags.size() == mark;

    readEnum(top, "precision", r.precision, Need::Required);
    if (const json* placement = top.readArray("placement", Need::Optional))
        readPlacement(*placement, top.pointerOf("placement"), r.placement, file, diags);
    if (const json* training = top.readObject("training", Need::Optional)) {
        FieldReader t(*training, file, top.pointerOf("training"), diags);
        int steps = 0;
        if (t.readInt("steps", steps, 1, kMaxTrainingSteps, Need::Required))
            r.trainingSteps = steps;
        t.reportUnknownKeys();
    }
    if (const json* measured = top.readObject("measured", Need::Optional)) {
        FieldReader m(*measured, file, top.pointerOf("measured"), diags);
        Measured value;
        m.readNumber("step_time_s", value.stepTimeS, 1e-6, kMaxStepTimeS, Need::Required);
        m.readString("source", value.source, Need::Optional);
        m.reportUnknownKeys();
        r.measured = value;
    }
    if (const json* checkpoint = top.readObject("checkpoint", Need::Optional))
        r.checkpoint = readCheckpoint(*checkpoint, top.pointerOf("checkpoint"), file, diags);
    if (const json* allocation = top.readObject("allocation", Need::Optional))
        r.allocation = readAllocation(*allocation, top.pointerOf("allocation"), file, diags);
    top.reportUnknownKeys();
    r.extensions = Extensions(top.extensions());
    if (shapeOk)
        checkRunShape(r, file, base, diags);
    if (diags.size() != before)
        return std::nullopt;
    return r;
}

} // namespace cs
