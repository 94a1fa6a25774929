#include "measuredruns.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "extensions.h"
#include "fileio.h"
#include "jsonfields.h"
#include "loader.h"
#include "rowsoftware.h"
#include "text.h"
#include "validation.h"

namespace cs {
namespace {

using nlohmann::json;

int largestDivisorAtMost(int n, int limit)
{
    for (int k = std::min(n, limit); k > 1; --k) {
        if (n % k == 0)
            return k;
    }
    return 1;
}

// The row's `cluster`: what the run used, not a whole machine.
struct RowCluster {
    std::string gpu;
    int gpus = 1;
    int gpusPerNode = 1;
    int domainGpus = 1;
    int usedPerDomain = 1;
    double nvlinkGBps = 1;
    double nicGbps = 1;
};

std::optional<RowCluster> readRowCluster(const json& row, const std::string& where,
                                         Diagnostics& diags)
{
    FieldReader top(row, where, "", diags);
    const json* object = top.readObject("cluster", Need::Required);
    if (!object)
        return std::nullopt;
    const size_t before = diags.size();
    RowCluster c;
    FieldReader f(*object, where, "/cluster", diags);
    constexpr int kMaxRowGpus = 131072;
    f.readString("gpu", c.gpu, Need::Required);
    f.readInt("gpus", c.gpus, 1, kMaxRowGpus, Need::Required);
    f.readInt("gpus_per_node", c.gpusPerNode, 1, 72, Need::Required);
    f.readInt("nvlink_domain_gpus", c.domainGpus, 1, 1024, Need::Required);
    f.readInt("gpus_used_per_nvlink_domain", c.usedPerDomain, 1, 1024, Need::Required);
    f.readNumber("nvlink_GBps_bidir", c.nvlinkGBps, 1, 100000, Need::Required);
    f.readNumber("scale_out_Gbps_per_gpu", c.nicGbps, 1, 100000, Need::Required);
    // The GPUs, an NVLink domain and the part of it the run used are each whole nodes.
    if (diags.size() == before && c.gpus % c.gpusPerNode != 0)
        f.error("gpus", "must be a multiple of gpus_per_node");
    if (diags.size() == before && c.domainGpus % c.gpusPerNode != 0)
        f.error("nvlink_domain_gpus", "must be a multiple of gpus_per_node (" +
                                          std::to_string(c.gpusPerNode) +
                                          "): a domain is whole nodes");
    if (diags.size() == before && c.usedPerDomain > c.domainGpus)
        f.error("gpus_used_per_nvlink_domain",
                "must be at most nvlink_domain_gpus (" + std::to_string(c.domainGpus) + ")");
    if (diags.size() == before && c.usedPerDomain % c.gpusPerNode != 0)
        f.error("gpus_used_per_nvlink_domain",
                "must be a multiple of gpus_per_node (" + std::to_string(c.gpusPerNode) + ")");
    if (diags.size() != before)
        return std::nullopt;
    return c;
}

// The cluster file a row describes: an NVL72 row is rack domains of the GPUs the run used per
// rack (fewer when the run is smaller than a rack, or when the racks do not divide the nodes
// evenly: then the largest whole number of nodes per rack that does); an HGX row is node
// domains, four nodes to a rack (racks do not change the model's answer for node domains).
json clusterJsonOf(const RowCluster& c, const std::string& id)
{
    const int nodes = c.gpus / c.gpusPerNode;
    const bool rackDomain = c.domainGpus > c.gpusPerNode;
    const int nodesPerRack =
        rackDomain ? largestDivisorAtMost(nodes, std::max(1, c.usedPerDomain / c.gpusPerNode))
                   : largestDivisorAtMost(nodes, 4);
    return {{"format", kClusterFormat},
            {"name", id},
            {"gpu", c.gpu},
            {"racks", nodes / nodesPerRack},
            {"nodes_per_rack", nodesPerRack},
            {"gpus_per_node", c.gpusPerNode},
            {"scale_up",
             {{"name", "NVLink"},
              {"domain", rackDomain ? "rack" : "node"},
              {"GBps_per_gpu", c.nvlinkGBps}}},
            {"scale_out", {{"name", "scale-out"}, {"Gbps_per_gpu", c.nicGbps}}}};
}

} // namespace

std::optional<double> capacityFactorOfRouting(std::string_view routing)
{
    std::string text(routing);
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return c == '_' || c == '-' ? ' ' : std::tolower(c); });
    if (text.find("dropless") != std::string::npos)
        return std::nullopt;
    constexpr std::string_view kName = "capacity factor";
    const size_t at = text.find(kName);
    if (at == std::string::npos)
        return std::nullopt;
    const size_t number = text.find_first_not_of(" :=", at + kName.size());
    if (number == std::string::npos)
        return std::nullopt;
    const char* begin = text.c_str() + number;
    char* end = nullptr;
    const double factor = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(factor) || factor <= 0)
        return std::nullopt;
    return factor;
}

namespace {

// The row's model in the run format: the prose a row keeps for people (how tokens were
// routed, which layers slide) is left out or read for what the format says with a number.
json modelJsonOf(json model)
{
    if (!model.is_object())
        return model;
    if (auto moe = model.find("moe"); moe != model.end() && moe->is_object()) {
        if (const auto routing = moe->find("routing");
            routing != moe->end() && routing->is_string() && !moe->contains("capacity_factor"))
            if (const auto factor = capacityFactorOfRouting(routing->get<std::string>()))
                (*moe)["capacity_factor"] = *factor;
        moe->erase("routing");
    }
    if (auto attention = model.find("attention");
        attention != model.end() && attention->is_object()) {
        attention->erase("attention_sinks");
        attention->erase("qk_layernorm");
        if (auto layers = attention->find("layers"); layers != attention->end()) {
            const bool alternating =
                layers->is_string() && layers->get<std::string>().find("every other") == 0;
            if (alternating)
                (*attention)["every"] = 2;
            attention->erase("layers");
        }
    }
    return model;
}

bool fsdpInSource(const json& row)
{
    const auto source = row.find("source");
    if (source == row.end() || !source->is_string())
        return false;
    const std::string& text = source->get_ref<const std::string&>();
    const size_t at = text.find("FSDP ");
    return at != std::string::npos && at + 5 < text.size() && text[at + 5] >= '1' &&
           text[at + 5] <= '9';
}

json runJsonOf(const json& row, const std::string& id)
{
    json run = {{"format", kRunFormat}, {"name", id}};
    for (const char* key : {"model", "parallelism", "batch", "precision"}) {
        if (const auto it = row.find(key); it != row.end())
            run[key] = *it;
    }
    if (run.contains("model"))
        run["model"] = modelJsonOf(run["model"]);
    // Older rows give FSDP only in the table row their `source` quotes ("FSDP 64").
    if (run.contains("parallelism") && run["parallelism"].is_object() &&
        !run["parallelism"].contains("fsdp") && fsdpInSource(row))
        run["parallelism"]["fsdp"] = true;
    if (const auto recipe = row.find("precision_recipe"); recipe != row.end())
        run[kPrecisionRecipeKey] = *recipe;
    addRowSoftware(row, run);
    // Runs with experts keep Megatron-Core's default rank order (tp-cp-ep-dp-pp): pipeline
    // stages outermost, so that each expert-parallel group is the data-parallel neighbours of
    // one stage, as the MoE recipes rely on. Dense rows keep the layout of formats.md.
    if (const auto model = row.find("model");
        model != row.end() && model->is_object() && model->contains("moe"))
        run["placement"] = {"tp", "cp", "dp", "pp"};
    return run;
}

// tp x cp x pp x dp as the row gives them; 0 when any is missing or not a whole number (the
// run's reader reports that).
int64_t worldSizeOf(const json& row)
{
    const auto par = row.find("parallelism");
    if (par == row.end() || !par->is_object())
        return 0;
    int64_t world = 1;
    for (const char* key : {"tp", "cp", "pp", "dp"}) {
        const auto v = par->find(key);
        if (v == par->end() || !v->is_number_integer() || v->get<int64_t>() < 1 ||
            v->get<int64_t>() > (int64_t(1) << 20))
            return 0;
        world *= v->get<int64_t>();
    }
    return world;
}

std::optional<Measured> readRowMeasured(const json& row, const std::string& where,
                                        Diagnostics& diags)
{
    FieldReader top(row, where, "", diags);
    const json* object = top.readObject("measured", Need::Required);
    if (!object)
        return std::nullopt;
    Measured m;
    FieldReader f(*object, where, "/measured", diags);
    constexpr double kMaxStepTimeS = 1e6;
    if (!f.readNumber("step_time_s", m.stepTimeS, 1e-6, kMaxStepTimeS, Need::Required))
        return std::nullopt;
    if (const auto source = row.find("source"); source != row.end() && source->is_string())
        m.source = source->get<std::string>();
    return m;
}

} // namespace

std::string precisionRecipeOf(const RunDesc& run)
{
    return rowString(run.extensions.value(), kPrecisionRecipeKey);
}

std::optional<MeasuredRun> measuredRunFromJson(const json& row, const std::string& where,
                                               Diagnostics& diags)
{
    if (!row.is_object()) {
        diags.atPointer(where, "", "a measured run must be a JSON object");
        return std::nullopt;
    }
    MeasuredRun mr;
    FieldReader top(row, where, "", diags);
    top.readString("id", mr.id, Need::Required);
    top.readString("family", mr.family, Need::Optional);
    const std::optional<RowCluster> rowCluster = readRowCluster(row, where, diags);
    const std::optional<Measured> measured = readRowMeasured(row, where, diags);
    // A row is a run on all of its GPUs: said first, as the other rules follow from it.
    if (const int64_t world = worldSizeOf(row);
        rowCluster && world > 0 && world != rowCluster->gpus)
        diags.atPointer(where, "/parallelism/dp",
                        "tp x cp x pp x dp = " + withThousands(world) +
                            " must equal the GPU count (" + withThousands(rowCluster->gpus) + ")");
    std::optional<RunDesc> run = runFromJson(runJsonOf(row, mr.id), where, "", diags);
    if (!rowCluster || !measured || !run)
        return std::nullopt;
    // The cluster's own problems (an unknown GPU) are the row's /cluster problems.
    Diagnostics clusterDiags;
    std::optional<ClusterDesc> cluster =
        clusterFromJson(clusterJsonOf(*rowCluster, mr.id), where, "/cluster", clusterDiags);
    diags.append(clusterDiags);
    if (!cluster)
        return std::nullopt;
    const size_t before = diags.size();
    checkRunOnCluster(*run, *cluster, where, "", diags);
    if (diags.size() != before)
        return std::nullopt;
    run->measured = *measured;
    mr.cluster = std::move(*cluster);
    mr.run = std::move(*run);
    return mr;
}

std::vector<MeasuredRun> parseMeasuredRuns(std::string_view text, const std::string& file,
                                           Diagnostics& diags)
{
    std::vector<MeasuredRun> runs;
    int lineNo = 0;
    int rows = 0;
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
        if (++rows > kMaxMeasuredRuns) {
            diags.atPosition(file, lineNo, 1,
                             "more than " + withThousands(kMaxMeasuredRuns) +
                                 " measured runs in one file; ClusterScope reads at most that "
                                 "many (the rows from here on are left out)");
            break;
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
        Diagnostics rowDiags;
        if (auto mr = measuredRunFromJson(*row, where, rowDiags)) {
            mr->line = lineNo;
            runs.push_back(std::move(*mr));
        }
        // A refused row is named by its id too, which is how reports and people know it.
        const auto id = row->is_object() ? row->find("id") : row->end();
        const std::string named = id != row->end() && id->is_string()
                                      ? " (row " + inQuotes(id->get<std::string>()) + ")"
                                      : "";
        for (Diagnostic d : rowDiags.items()) {
            d.message += named;
            diags.atPointer(d.file, d.pointer, d.message);
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
