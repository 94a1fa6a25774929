// check and describe: what a file holds and whether it is valid.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "calibration.h"
#include "common.h"
#include "costmodel.h"
#include "loader.h"
#include "options.h"
#include "placement.h"
#include "stagesplit.h"
#include "text.h"
#include "topology.h"

namespace cs::cli {

const CommandSpec kCheckSpec{
    "check",
    "FILE...",
    1,
    SIZE_MAX,
    {},
    "validates cluster, run and session files",
    "Validates cluster, run and session files. Prints one line per problem:\n"
    "FILE:LINE:COLUMN: message (JSON syntax) or FILE: /json/pointer: message.\n"
    "Exit status: 0 all valid, 1 a problem found, 2 bad usage."};

const CommandSpec kDescribeSpec{
    "describe",
    "FILE...",
    1,
    SIZE_MAX,
    {{"--json", "", "print {counts, switches: [{name, tier}], links: [{name, tier}], ...}"}},
    "GPU, switch and link counts, bandwidths, what crosses the fabric",
    "Describes cluster, run and session files: GPU and link counts, bandwidths, the model\n"
    "(its experts and attention where it has them), the placement of ranks and which\n"
    "parallel dimensions cross the scale-out fabric. With --json, the counts and every\n"
    "switch and link by the name `failures` accepts (one object per file; an array of\n"
    "them for several files)."};

namespace {

const char* kindName(FileKind k)
{
    switch (k) {
    case FileKind::Cluster:
        return "cluster";
    case FileKind::Run:
        return "run";
    case FileKind::Session:
        return "session";
    case FileKind::MeasuredRuns:
        return "measured runs";
    case FileKind::Unknown:
        break;
    }
    return "unknown";
}

std::string oversubscriptionText(const FabricTopology& f)
{
    std::vector<std::string> values;
    for (double x : f.oversubscription)
        values.push_back(fixed(x, 2));
    return wordList(values, ", ");
}

void describeCluster(const ClusterDesc& c, std::ostream& out)
{
    const Topology topo(c);
    const GpuSpec& g = c.gpu;
    out << "  cluster         " << inQuotes(c.name) << "\n";
    out << "  GPUs            " << withThousands(c.gpuCount()) << " " << printable(g.name) << " ("
        << fixed(g.peakTflopsBf16, 0) << " TFLOP/s bf16";
    if (g.peakTflopsFp8 > 0)
        out << ", " << fixed(g.peakTflopsFp8, 0) << " fp8";
    if (g.peakTflopsNvfp4 > 0)
        out << ", " << fixed(g.peakTflopsNvfp4, 0) << " nvfp4";
    out << "; " << fixed(g.hbmGiB, 0) << " GiB HBM at " << fixed(g.hbmTBps, 2) << " TB/s)\n";
    out << "  racks           " << withThousands(c.racks) << " in " << c.rows() << " rows of up to "
        << c.columns() << "\n";
    out << "  nodes           " << withThousands(c.nodeCount()) << " (" << c.nodesPerRack
        << " per rack, " << c.gpusPerNode << " GPUs each), "
        << (topo.shape().nicsPerNode == c.gpusPerNode
                ? std::string("one NIC per GPU")
                : std::to_string(topo.shape().nicsPerNode) + " NICs each, shared by its GPUs")
        << "\n";
    out << "  NVLink domains  " << withThousands(topo.domainCount()) << " of " << c.domainSize()
        << " GPUs (one per " << toString(c.scaleUp.domain) << "), "
        << withThousands(int64_t(topo.nvSwitches().size())) << " NVSwitch "
        << (c.scaleUp.domain == DomainKind::Rack ? "trays" : "complexes") << "\n";
    out << "  scale-up        " << printable(c.scaleUp.name) << ": "
        << fixed(c.scaleUp.GBpsPerGpu, 0) << " GB/s per GPU ("
        << fixed(c.nvlinkGBpsPerDirection(), 0) << " GB/s each way), "
        << fixed(c.scaleUp.latencyUs, 1) << " us\n";
    const FabricTopology& f = c.scaleOut.topology;
    out << "  scale-out       " << printable(c.scaleOut.name) << ": "
        << fixed(c.scaleOut.GbpsPerGpu, 0) << " Gb/s per GPU (" << fixed(c.nicGBpsPerDirection(), 1)
        << " GB/s each way), " << fixed(c.scaleOut.latencyUs, 1) << " us; " << toString(f.kind)
        << ", " << f.tiers << (f.tiers == 1 ? " tier" : " tiers") << ", oversubscription "
        << oversubscriptionText(f) << "\n";
    out << "  switches        ";
    for (int tier = 1; tier <= topo.shape().tiers; ++tier)
        out << (tier > 1 ? ", " : "") << withThousands(topo.switchCount(tier)) << " "
            << switchTierName(tier);
    out << "; " << withThousands(int64_t(topo.nics().size())) << " NICs\n";
    const FabricShape& shape = topo.shape();
    if (shape.topTierPorts() > shape.radix)
        out << "                  the top tier's switches have " << shape.topTierPorts()
            << " ports: " << shape.radix << "-port switches cannot join every "
            << (shape.tiers == 3   ? "pod"
                : shape.tiers == 2 ? "leaf"
                                   : "node")
            << " (a modular or multi-plane switch)\n";
    out << "  links           (bandwidth per direction, all links of the class together)\n";
    for (LinkClass cls : enumValues<LinkClass>()) {
        const int n = topo.linkCount(cls);
        if (n == 0)
            continue;
        char line[160];
        std::snprintf(line, sizeof line, "    %-17s %10s links %14s GB/s\n", toString(cls),
                      withThousands(n).c_str(),
                      withThousands(int64_t(topo.totalGBps(cls) + 0.5)).c_str());
        out << line;
    }
    if (topo.hasFabricFailures()) {
        int switches = 0, links = 0;
        for (size_t i = 0; i < topo.switches().size(); ++i)
            switches += topo.switchFailed(int(i));
        for (size_t i = 0; i < topo.nvSwitches().size(); ++i)
            switches += topo.nvSwitchFailed(int(i));
        for (size_t i = 0; i < topo.links().size(); ++i)
            links += !topo.linkUsable(int(i));
        out << "  out of service  " << withThousands(switches) << " switch"
            << (switches == 1 ? "" : "es") << ", " << withThousands(links) << " link"
            << (links == 1 ? "" : "s")
            << " (a failed switch takes its links); traffic takes the paths left\n";
    }
    if (c.virtualization > 0)
        out << "  overheads       virtualization " << fixed(c.virtualization * 100, 1) << " %\n";
}

void describeStages(const RunDesc& r, const ClusterDesc& c, std::ostream& out)
{
    const Parallelism& p = r.parallelism;
    const std::vector<int> chunks = layersPerVirtualStage(c, r);
    std::vector<int> stages(size_t(p.pp), 0);
    for (size_t i = 0; i < chunks.size(); ++i)
        stages[i % size_t(p.pp)] += chunks[i];
    const auto [lightest, heaviest] = std::minmax_element(stages.begin(), stages.end());
    out << "  stages          " << r.model.layers << " layers over " << p.pp << " stages";
    if (p.vp > 1)
        out << " x " << p.vp << " virtual chunks";
    if (*lightest == *heaviest) {
        out << ": " << *heaviest << " layers per stage\n";
        return;
    }
    out << ": " << *lightest << " to " << *heaviest << " layers per stage, ";
    if (megatronSplit(r.model.layers, int(chunks.size())).empty()) {
        out << "as even in FLOPs as whole layers allow (the last stage also runs the LM head)\n";
        return;
    }
    // Uneven only where Megatron-Core counts the embedding and the loss as a layer each.
    out << "the embedding and the loss counted as a layer each (Megatron-Core's "
           "account_for_embedding_in_pipeline_split and _loss_): "
        << (chunks.front() == 0
                ? "the first virtual stage holds the embedding alone, the last the loss"
                : "the first and the last virtual stage hold a layer fewer")
        << "\n";
}

// MLA's compressed projections, or which layers slide; nothing for plain grouped-query attention.
void describeAttention(const ModelShape& m, std::ostream& out)
{
    const Attention& a = m.attention;
    if (a.kind == AttentionKind::Gqa)
        return;
    out << "  attention       " << labelOf(a.kind);
    if (a.kind == AttentionKind::Mla) {
        out << ": keys and values compressed to rank " << withThousands(a.kvLoraRank)
            << (a.qLoraRank > 0 ? ", queries to " + withThousands(a.qLoraRank)
                                : std::string(", queries not compressed"))
            << "; head dims " << a.qkNopeHeadDim << " + " << a.qkRopeHeadDim << " (rope), values "
            << a.vHeadDim;
    } else {
        out << ": " << withThousands(a.window) << " tokens "
            << (a.every == 1 ? std::string("on every layer")
                             : "on one layer in " + std::to_string(a.every) + ", the others full");
    }
    out << "\n";
}

void describeExperts(const RunDesc& r, std::ostream& out)
{
    const ModelShape& m = r.model;
    if (!m.moe)
        return;
    const Moe& e = *m.moe;
    out << "  experts         " << withThousands(e.experts) << " of width "
        << withThousands(e.ffnHidden) << ", " << e.topK << " a token";
    if (e.sharedExperts > 0)
        out << ", " << e.sharedExperts << " shared of width " << withThousands(e.sharedFfnHidden);
    if (e.denseLayers > 0)
        out << "; the first " << e.denseLayers << " layer" << (e.denseLayers == 1 ? "" : "s")
            << " dense (FFN " << withThousands(e.denseFfnHidden) << ")";
    out << "; "
        << (e.capacityFactor
                ? "tokens dropped past capacity factor " + numberText(*e.capacityFactor)
                : std::string("dropless"));
    if (e.imbalance != 1)
        out << ", the busiest expert " << numberText(e.imbalance) << "x the mean";
    if (const auto groups = routerGroupsOf(r))
        out << "; a token's experts from " << groups->topK << " of " << groups->groups
            << " groups (group-limited routing)";
    out << "\n";
}

void describeRun(const RunDesc& r, const ClusterDesc* c, std::ostream& out)
{
    const ModelShape& m = r.model;
    const Parallelism& p = r.parallelism;
    out << "  run             " << inQuotes(r.name) << "\n";
    out << "  model           " << inQuotes(m.name) << ": " << m.layers << " layers, hidden "
        << withThousands(m.hidden) << ", FFN " << withThousands(m.ffnHidden)
        << (m.gatedMlp ? " (gated)" : "") << ", " << m.heads << " heads (" << m.kvHeads
        << " KV), vocabulary " << withThousands(m.vocab) << ", sequence "
        << withThousands(m.seqLen);
    if (m.mtpLayers > 0)
        out << ", " << m.mtpLayers << " MTP layer" << (m.mtpLayers == 1 ? "" : "s");
    out << "\n";
    describeAttention(m, out);
    describeExperts(r, out);
    out << "  precision       " << toString(r.precision) << "\n";
    const int dp = c ? r.dpFor(c->healthyGpuCount()) : p.dp;
    out << "  parallelism     TP " << p.tp << " x CP " << p.cp << " x PP " << p.pp << " x DP "
        << (dp > 0 ? std::to_string(dp) : std::string("?")) << ", VP " << p.vp
        << "; sequence parallel " << (p.sequenceParallel ? "on" : "off")
        << ", distributed optimizer " << (p.distributedOptimizer ? "on" : "off") << ", recompute "
        << toString(p.recompute);
    if (p.ep > 1 || p.etp > 1)
        out << "; EP " << p.ep << ", expert TP " << p.etp;
    out << "\n";
    out << "  batch           global " << withThousands(r.batch.global) << ", micro "
        << r.batch.micro;
    if (dp > 0)
        out << "; " << r.batch.global / (dp * r.batch.micro)
            << " micro-batches per pipeline per step";
    out << "\n";
    out << "  placement       " << placementText(r.placement) << " (innermost first)\n";
    if (!c || dp <= 0)
        return;
    describeStages(r, *c, out);
    const Placement pl = placeRun(r, *c);
    for (Dim d : kAllDims) {
        const DimensionPlacement& dim = pl.dimension(d);
        out << "  " << dimInfo(d).shortLabel << " groups of " << dim.size << ": ";
        if (dim.size == 1)
            out << "none (size 1)\n";
        else if (dim.insideDomain())
            out << "inside one NVLink domain each\n";
        else
            out << "cross the fabric: " << withThousands(dim.groupsCrossing) << " of "
                << withThousands(dim.groups) << " groups span up to " << dim.maxDomainsPerGroup
                << " domains, at least " << dim.minMembersPerDomain << " member"
                << (dim.minMembersPerDomain == 1 ? "" : "s") << " per domain\n";
    }
}

const ClusterDesc* clusterOf(const LoadedFile& f)
{
    if (f.kind == FileKind::Session && f.session)
        return &f.session->cluster;
    return f.cluster ? &*f.cluster : nullptr;
}

const RunDesc* runOf(const LoadedFile& f)
{
    if (f.kind == FileKind::Session && f.session)
        return &f.session->run;
    return f.run ? &*f.run : nullptr;
}

std::string nameEntry(const std::string& name, std::string_view tier, bool outOfService)
{
    return "{\"name\": \"" + name + "\", \"tier\": \"" + std::string(tier) + "\"" +
           (outOfService ? ", \"out_of_service\": true}" : "}");
}

void describeFabricJson(const ClusterDesc& c, JsonObjectStream& doc)
{
    const Topology t(c);
    nlohmann::json links = nlohmann::json::object();
    for (LinkClass cls : enumValues<LinkClass>())
        links[toString(cls)] = t.linkCount(cls);
    doc.member("counts", {{"racks", c.racks},
                          {"nodes", c.nodeCount()},
                          {"gpus", c.gpuCount()},
                          {"gpus_out_of_service", c.gpuCount() - c.healthyGpuCount()},
                          {"nvlink_domains", t.domainCount()},
                          {"nvswitches", t.nvSwitches().size()},
                          {"nics", t.nics().size()},
                          {"leaves", t.switchCount(1)},
                          {"spines", t.switchCount(2)},
                          {"cores", t.switchCount(3)},
                          {"links", links}});
    doc.arrayMember("switches", t.switches().size(), [&](size_t i) {
        return nameEntry(t.switchName(int(i)), switchTierName(t.switches()[i].tier),
                         t.switchFailed(int(i)));
    });
    doc.arrayMember("nvswitches", t.nvSwitches().size(), [&](size_t i) {
        return "{\"name\": \"" + t.nvSwitchName(int(i)) +
               "\", \"domain\": " + std::to_string(t.nvSwitches()[i].domain) +
               (t.nvSwitchFailed(int(i)) ? ", \"out_of_service\": true}" : "}");
    });
    doc.arrayMember("links", t.links().size(), [&](size_t i) {
        return nameEntry(t.linkName(int(i)), toString(t.links()[i].cls), !t.linkUsable(int(i)));
    });
}

nlohmann::json runJson(const RunDesc& r, const ClusterDesc& c)
{
    nlohmann::json dims = nlohmann::json::object();
    const Placement pl = placeRun(r, c);
    for (Dim d : kAllDims) {
        if (!usesDim(r, d))
            continue;
        const DimensionPlacement& dim = pl.dimension(d);
        dims[toString(d)] = {{"size", dim.size},
                             {"groups", dim.groups},
                             {"groups_crossing_domains", dim.groupsCrossing}};
    }
    return {{"name", r.name}, {"placement", placementText(r.placement)}, {"dims", dims}};
}

void describeJson(const LoadedFile& f, int indent, std::ostream& out)
{
    JsonObjectStream doc(out, indent);
    doc.member("file", f.path);
    doc.member("kind", kindName(f.kind));
    const ClusterDesc* cluster = clusterOf(f);
    const RunDesc* run = runOf(f);
    if (cluster)
        describeFabricJson(*cluster, doc);
    if (run && cluster && run->dpFor(cluster->healthyGpuCount()) > 0)
        doc.member("run", runJson(*run, *cluster));
    doc.close();
}

void describe(const LoadedFile& f, std::ostream& out)
{
    out << printablePath(f.path) << ": " << kindName(f.kind) << "\n";
    switch (f.kind) {
    case FileKind::Cluster:
        describeCluster(*f.cluster, out);
        break;
    case FileKind::Run:
        if (f.cluster)
            describeCluster(*f.cluster, out);
        describeRun(*f.run, f.cluster ? &*f.cluster : nullptr, out);
        break;
    case FileKind::Session:
        describeCluster(f.session->cluster, out);
        describeRun(f.session->run, &f.session->cluster, out);
        if (f.session->compare) {
            out << "  compared with:\n";
            describeCluster(f.session->compare->cluster, out);
            describeRun(f.session->compare->run, &f.session->compare->cluster, out);
        }
        out << "  bookmarks       " << f.session->bookmarks.size() << "\n";
        break;
    default:
        break;
    }
}

} // namespace

int runCheck(const Args& args, Io io)
{
    auto parsed = parseCommand(kCheckSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    bool allValid = true;
    // A cluster given and named by a run given too is checked twice: its problems print once.
    std::set<std::string> printed;
    for (const std::string& path : std::get<ParsedArgs>(parsed).positional) {
        Diagnostics diags;
        const auto loaded = loadFile(path, diags);
        if (loaded && loaded->kind == FileKind::MeasuredRuns) {
            diags.atPointer(path, "", "measured-run files are checked by 'validate-runs'");
        }
        if (loaded && diags.empty())
            checkFabrics(*loaded, diags);
        if (!diags.empty()) {
            allValid = false;
            for (const Diagnostic& d : diags.items()) {
                if (std::string line = d.format(); printed.insert(line).second)
                    io.out << line << "\n";
            }
        } else {
            io.out << printablePath(path) << ": ok (" << kindName(loaded->kind) << ")\n";
        }
    }
    return allValid ? kExitOk : kExitBadInput;
}

int runDescribe(const Args& args, Io io)
{
    auto parsed = parseCommand(kDescribeSpec, args, io);
    if (const int* exit = std::get_if<int>(&parsed))
        return *exit;
    const ParsedArgs& p = std::get<ParsedArgs>(parsed);
    const bool asJson = p.has("--json");
    const bool several = p.positional.size() > 1;
    bool allValid = true;
    int described = 0;
    for (const std::string& path : p.positional) {
        Diagnostics diags;
        const auto loaded = loadFile(path, diags);
        if (!loaded || !diags.empty() || loaded->kind == FileKind::MeasuredRuns) {
            allValid = false;
            if (diags.empty())
                diags.atPointer(path, "", "not a cluster, run or session file");
            printDiagnostics(diags, io.err);
            continue;
        }
        if (!asJson) {
            describe(*loaded, io.out);
            continue;
        }
        io.out << (!several ? "" : described == 0 ? "[\n  " : ",\n  ");
        describeJson(*loaded, several ? 2 : 0, io.out);
        ++described;
    }
    if (asJson)
        io.out << (several ? (described > 0 ? "\n]\n" : "[]\n") : described > 0 ? "\n" : "");
    return allValid ? kExitOk : kExitBadInput;
}

} // namespace cs::cli
