#include "measuredruns.h"

#include "loader.h"

namespace cs {
namespace {

using nlohmann::json;

// Reads the fields of one row, reporting each problem at its JSON pointer.
class RowReader {
public:
    RowReader(const json& row, const std::string& where, Diagnostics& diags)
        : m_row(row)
        , m_where(where)
        , m_diags(diags)
    {
    }

    bool ok() const { return !m_failed; }

    const json* object(const std::string& key)
    {
        const json* v = find("", key);
        if (v && !v->is_object())
            return fail("/" + key, "must be an object");
        return v;
    }

    std::string text(const std::string& parent, const std::string& key)
    {
        const json* v = find(parent, key);
        if (!v)
            return {};
        if (!v->is_string())
            return fail(parent + "/" + key, "must be a string"), std::string();
        return v->get<std::string>();
    }

    int positive(const std::string& parent, const std::string& key)
    {
        const json* v = find(parent, key);
        if (!v)
            return 1;
        if (!v->is_number_integer() || v->get<int64_t>() < 1 || v->get<int64_t>() > kMaxGpus * 64)
            return fail(parent + "/" + key, "must be a positive integer"), 1;
        return int(v->get<int64_t>());
    }

    double number(const std::string& parent, const std::string& key)
    {
        const json* v = find(parent, key);
        if (!v)
            return 1;
        if (!v->is_number() || !(v->get<double>() > 0))
            return fail(parent + "/" + key, "must be a positive number"), 1.0;
        return v->get<double>();
    }

    bool flag(const std::string& parent, const std::string& key)
    {
        const json* v = find(parent, key);
        if (!v)
            return false;
        if (!v->is_boolean())
            return fail(parent + "/" + key, "must be true or false"), false;
        return v->get<bool>();
    }

    std::nullptr_t fail(const std::string& pointer, const std::string& message)
    {
        m_diags.atPointer(m_where, pointer, message);
        m_failed = true;
        return nullptr;
    }

private:
    const json* find(const std::string& parent, const std::string& key)
    {
        const json& obj = parent.empty() ? m_row : m_row[json::json_pointer(parent)];
        if (!obj.is_object())
            return nullptr; // the parent's own problem was reported
        const auto it = obj.find(key);
        if (it == obj.end())
            return fail(parent + "/" + key, "is required");
        return &*it;
    }

    const json& m_row;
    std::string m_where;
    Diagnostics& m_diags;
    bool m_failed = false;
};

int largestDivisorAtMost(int n, int limit)
{
    for (int k = std::min(n, limit); k > 1; --k) {
        if (n % k == 0)
            return k;
    }
    return 1;
}

} // namespace

std::optional<MeasuredRun> measuredRunFromJson(const json& row, const std::string& where,
                                               Diagnostics& diags)
{
    if (!row.is_object()) {
        diags.atPointer(where, "", "a measured run must be a JSON object");
        return std::nullopt;
    }
    RowReader r(row, where, diags);
    MeasuredRun mr;
    mr.id = r.text("", "id");
    for (const char* key : {"cluster", "model", "parallelism", "batch", "measured"})
        r.object(key);
    if (!r.ok())
        return std::nullopt;

    ClusterDesc& c = mr.cluster;
    const std::string gpuName = r.text("/cluster", "gpu");
    const int gpus = r.positive("/cluster", "gpus");
    c.gpusPerNode = r.positive("/cluster", "gpus_per_node");
    const int domainGpus = r.positive("/cluster", "nvlink_domain_gpus");
    const int usedPerDomain = r.positive("/cluster", "gpus_used_per_nvlink_domain");
    c.scaleUp.GBpsPerGpu = r.number("/cluster", "nvlink_GBps_bidir");
    c.scaleOut.GbpsPerGpu = r.number("/cluster", "scale_out_Gbps_per_gpu");
    if (const GpuSpec* gpu = findCatalogGpu(gpuName))
        c.gpu = *gpu;
    else if (r.ok())
        r.fail("/cluster/gpu", "unknown GPU \"" + gpuName + "\"");
    if (r.ok() && gpus % c.gpusPerNode != 0)
        r.fail("/cluster/gpus", "must be a multiple of gpus_per_node");

    RunDesc& run = mr.run;
    ModelShape& m = run.model;
    m.name = r.text("/model", "name");
    m.layers = r.positive("/model", "layers");
    m.hidden = r.positive("/model", "hidden");
    m.ffnHidden = r.positive("/model", "ffn_hidden");
    m.heads = r.positive("/model", "heads");
    m.kvHeads = r.positive("/model", "kv_heads");
    m.vocab = r.positive("/model", "vocab");
    m.seqLen = r.positive("/model", "seq_len");
    m.gatedMlp = r.flag("/model", "gated_mlp");
    Parallelism& par = run.parallelism;
    par.tp = r.positive("/parallelism", "tp");
    par.cp = r.positive("/parallelism", "cp");
    par.pp = r.positive("/parallelism", "pp");
    par.vp = r.positive("/parallelism", "vp");
    par.dp = r.positive("/parallelism", "dp");
    par.sequenceParallel = r.flag("/parallelism", "sequence_parallel");
    par.distributedOptimizer = r.flag("/parallelism", "distributed_optimizer");
    const std::string recompute = r.text("/parallelism", "recompute");
    run.batch.micro = r.positive("/batch", "micro");
    run.batch.global = r.positive("/batch", "global");
    const std::string precision = r.text("", "precision");
    Measured measured;
    measured.stepTimeS = r.number("/measured", "step_time_s");
    if (!r.ok())
        return std::nullopt;

    if (recompute == "none")
        par.recompute = Recompute::None;
    else if (recompute == "selective")
        par.recompute = Recompute::Selective;
    else if (recompute == "full")
        par.recompute = Recompute::Full;
    else
        r.fail("/parallelism/recompute", "must be \"none\", \"selective\" or \"full\"");
    if (const auto p = precisionFromString(precision))
        run.precision = *p;
    else
        r.fail("/precision", "must be \"bf16\", \"fp8\" or \"nvfp4\"");
    if (r.ok() && c.gpu.peakTflops(run.precision) <= 0)
        r.fail("/precision", c.gpu.name + " has no " + precision + " tensor cores");
    if (r.ok() && m.hidden % m.heads != 0)
        r.fail("/model/heads", "must divide hidden");
    if (r.ok() && m.heads % m.kvHeads != 0)
        r.fail("/model/kv_heads", "must divide heads");
    if (r.ok() && int64_t(par.tp) * par.cp * par.pp * par.dp != gpus)
        r.fail("/parallelism/dp",
               "tp x cp x pp x dp must equal the GPU count (" + std::to_string(gpus) + ")");
    if (r.ok() && run.batch.global % (int64_t(par.dp) * run.batch.micro) != 0)
        r.fail("/batch/global", "must be a multiple of dp x micro");
    if (!r.ok())
        return std::nullopt;

    // The cluster: an NVL72 row is a rack domain of the GPUs the run used per rack (fewer
    // when the run is smaller than a rack, or when the racks do not divide the nodes evenly:
    // then the largest whole number of nodes per rack that does); an HGX row is node domains,
    // four nodes to a rack (racks do not change the model's answer for node domains).
    const int nodes = gpus / c.gpusPerNode;
    c.name = mr.id;
    c.gpuByName = true;
    if (domainGpus > c.gpusPerNode) {
        c.scaleUp.domain = DomainKind::Rack;
        c.nodesPerRack = largestDivisorAtMost(nodes, std::max(1, usedPerDomain / c.gpusPerNode));
    } else {
        c.scaleUp.domain = DomainKind::Node;
        c.nodesPerRack = largestDivisorAtMost(nodes, 4);
    }
    c.racks = nodes / c.nodesPerRack;
    c.scaleUp.name = "NVLink";
    c.scaleOut.name = "scale-out";

    run.name = mr.id;
    if (const auto it = row.find("source"); it != row.end() && it->is_string())
        measured.source = it->get<std::string>();
    run.measured = measured;
    return mr;
}

std::vector<MeasuredRun> parseMeasuredRuns(std::string_view text, const std::string& file,
                                           Diagnostics& diags)
{
    std::vector<MeasuredRun> runs;
    int lineNo = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
            if (end == text.size())
                break;
            continue;
        }
        Diagnostics lineDiags;
        const std::optional<json> row = parseJson(line, file, lineDiags);
        if (!row) {
            // parseJson sees one line; put its problems on this line of the file.
            for (const Diagnostic& d : lineDiags.items())
                diags.atPosition(file, lineNo, std::max(1, d.column), d.message);
            continue;
        }
        const std::string where = file + ":" + std::to_string(lineNo);
        if (auto mr = measuredRunFromJson(*row, where, diags)) {
            mr->line = lineNo;
            runs.push_back(std::move(*mr));
        }
    }
    return runs;
}

std::vector<MeasuredRun> readMeasuredRuns(const std::string& path, Diagnostics& diags)
{
    const std::optional<std::string> text = readFileText(path, diags);
    if (!text)
        return {};
    return parseMeasuredRuns(*text, path, diags);
}

} // namespace cs
