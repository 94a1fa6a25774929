// check and describe: what a file holds and whether it is valid.

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "clicommands.h"
#include "format.h"
#include "loader.h"
#include "placement.h"
#include "topology.h"

namespace cs::cli {

namespace {

bool wantsHelp(const Args& args)
{
    return std::find(args.begin(), args.end(), "--help") != args.end() ||
           std::find(args.begin(), args.end(), "-h") != args.end();
}

// Files named on the command line; an unknown option is a usage error.
bool collectFiles(const char* command, const Args& args, Io io, std::vector<std::string>* files)
{
    for (const std::string& a : args) {
        if (a.size() > 1 && a[0] == '-') {
            io.err << "clusterscope-cli " << command << ": unknown option '" << a << "'\n";
            return false;
        }
        files->push_back(a);
    }
    if (files->empty()) {
        io.err << "clusterscope-cli " << command << ": no FILE given\n";
        return false;
    }
    return true;
}

void printDiagnostics(const Diagnostics& diags, Io io)
{
    for (const Diagnostic& d : diags.items())
        io.out << d.format() << "\n";
}

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

void describeCluster(const ClusterDesc& c, std::ostream& out)
{
    const Topology topo(c);
    const GpuSpec& g = c.gpu;
    out << "  cluster         " << quoted(c.name) << "\n";
    out << "  GPUs            " << withCommas(c.gpuCount()) << " " << g.name << " ("
        << fixed(g.peakTflopsBf16, 0) << " TFLOP/s bf16";
    if (g.peakTflopsFp8 > 0)
        out << ", " << fixed(g.peakTflopsFp8, 0) << " fp8";
    if (g.peakTflopsNvfp4 > 0)
        out << ", " << fixed(g.peakTflopsNvfp4, 0) << " nvfp4";
    out << "; " << fixed(g.hbmGiB, 0) << " GiB HBM at " << fixed(g.hbmTBps, 2) << " TB/s)\n";
    out << "  racks           " << withCommas(c.racks) << " in " << c.rows() << " rows of up to "
        << c.columns() << "\n";
    out << "  nodes           " << withCommas(c.nodeCount()) << " (" << c.nodesPerRack
        << " per rack, " << c.gpusPerNode << " GPUs each), one NIC per GPU\n";
    out << "  NVLink domains  " << withCommas(topo.domainCount()) << " of " << c.domainSize()
        << " GPUs (one per " << toString(c.scaleUp.domain) << "), "
        << withCommas(int64_t(topo.nvSwitches().size())) << " NVSwitch "
        << (c.scaleUp.domain == DomainKind::Rack ? "trays" : "complexes") << "\n";
    out << "  scale-up        " << c.scaleUp.name << ": " << fixed(c.scaleUp.GBpsPerGpu, 0)
        << " GB/s per GPU (" << fixed(c.nvlinkGBpsPerDirection(), 0) << " GB/s each way), "
        << fixed(c.scaleUp.latencyUs, 1) << " us\n";
    const FabricTopology& f = c.scaleOut.topology;
    out << "  scale-out       " << c.scaleOut.name << ": " << fixed(c.scaleOut.GbpsPerGpu, 0)
        << " Gb/s per GPU (" << fixed(c.nicGBpsPerDirection(), 1) << " GB/s each way), "
        << fixed(c.scaleOut.latencyUs, 1) << " us; " << toString(f.kind) << ", " << f.tiers
        << (f.tiers == 1 ? " tier" : " tiers") << ", oversubscription "
        << fixed(f.oversubscription, 2) << "\n";
    out << "  switches        ";
    for (int tier = 1; tier <= f.tiers; ++tier)
        out << (tier > 1 ? ", " : "") << withCommas(topo.switchCount(tier)) << " "
            << (tier == 1   ? "leaf"
                : tier == 2 ? "spine"
                            : "core");
    out << "\n";
    out << "  links           (bandwidth per direction, all links of the class together)\n";
    for (LinkClass cls :
         {LinkClass::NVLink, LinkClass::ScaleOut1, LinkClass::ScaleOut2, LinkClass::ScaleOut3}) {
        const int n = topo.linkCount(cls);
        if (n == 0)
            continue;
        char line[160];
        std::snprintf(line, sizeof line, "    %-17s %10s links %14s GB/s\n", toString(cls),
                      withCommas(n).c_str(),
                      withCommas(int64_t(topo.totalGBps(cls) + 0.5)).c_str());
        out << line;
    }
    if (c.virtualization > 0)
        out << "  overheads       virtualization " << fixed(c.virtualization * 100, 1) << " %\n";
}

void describeStages(const RunDesc& r, std::ostream& out)
{
    const Parallelism& p = r.parallelism;
    const std::vector<int> stages = layersPerStage(r.model.layers, p.pp, p.vp);
    const auto [lightest, heaviest] = std::minmax_element(stages.begin(), stages.end());
    out << "  stages          " << r.model.layers << " layers over " << p.pp << " stages";
    if (p.vp > 1)
        out << " x " << p.vp << " virtual chunks";
    if (*lightest == *heaviest) {
        out << ": " << *heaviest << " layers per stage\n";
        return;
    }
    out << ": uneven, " << *lightest << " to " << *heaviest
        << " layers per stage; the heaviest stage sets the pace\n";
}

void describeRun(const RunDesc& r, const ClusterDesc* c, std::ostream& out)
{
    const ModelShape& m = r.model;
    const Parallelism& p = r.parallelism;
    out << "  run             " << quoted(r.name) << "\n";
    out << "  model           " << quoted(m.name) << ": " << m.layers << " layers, hidden "
        << withCommas(m.hidden) << ", FFN " << withCommas(m.ffnHidden)
        << (m.gatedMlp ? " (gated)" : "") << ", " << m.heads << " heads (" << m.kvHeads
        << " KV), vocabulary " << withCommas(m.vocab) << ", sequence " << withCommas(m.seqLen)
        << "\n";
    out << "  precision       " << toString(r.precision) << "\n";
    const int dp = c ? r.dpFor(c->gpuCount()) : p.dp;
    out << "  parallelism     TP " << p.tp << " x CP " << p.cp << " x PP " << p.pp << " x DP "
        << (dp > 0 ? std::to_string(dp) : std::string("?")) << ", VP " << p.vp
        << "; sequence parallel " << (p.sequenceParallel ? "on" : "off")
        << ", distributed optimizer " << (p.distributedOptimizer ? "on" : "off") << ", recompute "
        << toString(p.recompute) << "\n";
    out << "  batch           global " << withCommas(r.batch.global) << ", micro " << r.batch.micro;
    if (dp > 0)
        out << "; " << r.batch.global / (dp * r.batch.micro)
            << " micro-batches per pipeline per step";
    out << "\n";
    describeStages(r, out);
    out << "  placement       ";
    for (size_t i = 0; i < r.placement.size(); ++i)
        out << (i ? ", " : "") << toString(r.placement[i]);
    out << " (innermost first)\n";
    if (!c || dp <= 0)
        return;
    const Placement pl = placeRun(r, *c);
    for (Dim d : kAllDims) {
        const DimensionPlacement& dim = pl.dimension(d);
        std::string name = toString(d);
        std::transform(name.begin(), name.end(), name.begin(), ::toupper);
        out << "  " << name << " groups of " << dim.size << ": ";
        if (dim.size == 1)
            out << "none (size 1)\n";
        else if (dim.insideDomain())
            out << "inside one NVLink domain each\n";
        else
            out << "cross the fabric: " << withCommas(dim.groupsCrossing) << " of "
                << withCommas(dim.groups) << " groups span up to " << dim.maxDomainsPerGroup
                << " domains, at least " << dim.minMembersPerDomain << " member"
                << (dim.minMembersPerDomain == 1 ? "" : "s") << " per domain\n";
    }
}

void describe(const LoadedFile& f, std::ostream& out)
{
    out << f.path << ": " << kindName(f.kind) << "\n";
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
    if (wantsHelp(args)) {
        io.out << "Usage: clusterscope-cli check FILE...\n\n"
                  "Validates cluster, run and session files. Prints one line per problem:\n"
                  "FILE:LINE:COLUMN: message (JSON syntax) or FILE: /json/pointer: message.\n"
                  "Exit status: 0 all valid, 1 a problem found, 2 bad usage.\n";
        return kExitOk;
    }
    std::vector<std::string> files;
    if (!collectFiles("check", args, io, &files))
        return kExitUsage;
    bool allValid = true;
    for (const std::string& path : files) {
        Diagnostics diags;
        const auto loaded = loadFile(path, diags);
        if (loaded && loaded->kind == FileKind::MeasuredRuns) {
            diags.atPointer(path, "", "measured-run files are checked by 'validate-runs'");
        }
        if (!diags.empty()) {
            allValid = false;
            printDiagnostics(diags, io);
        } else {
            io.out << path << ": ok (" << kindName(loaded->kind) << ")\n";
        }
    }
    return allValid ? kExitOk : kExitBadInput;
}

int runDescribe(const Args& args, Io io)
{
    if (wantsHelp(args)) {
        io.out << "Usage: clusterscope-cli describe FILE...\n\n"
                  "Describes cluster, run and session files: GPU and link counts, bandwidths, the\n"
                  "placement of ranks and which parallel dimensions cross the scale-out fabric.\n";
        return kExitOk;
    }
    std::vector<std::string> files;
    if (!collectFiles("describe", args, io, &files))
        return kExitUsage;
    bool allValid = true;
    for (const std::string& path : files) {
        Diagnostics diags;
        const auto loaded = loadFile(path, diags);
        if (!loaded || !diags.empty() || loaded->kind == FileKind::MeasuredRuns) {
            allValid = false;
            if (diags.empty())
                diags.atPointer(path, "", "not a cluster, run or session file");
            printDiagnostics(diags, {io.err, io.err});
            continue;
        }
        describe(*loaded, io.out);
    }
    return allValid ? kExitOk : kExitBadInput;
}

} // namespace cs::cli
