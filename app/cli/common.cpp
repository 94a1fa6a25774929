#include "common.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include <nlohmann/json.hpp>

#include "fabriccheck.h"
#include "fileio.h"
#include "loader.h"
#include "options.h"
#include "text.h"
#include "validation.h"

namespace cs::cli {

void printDiagnostics(const Diagnostics& diags, std::ostream& out)
{
    for (const Diagnostic& d : diags.items())
        out << d.format() << "\n";
}

namespace {

bool sameFile(const std::string& a, const std::string& b)
{
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec);
}

} // namespace

std::optional<ClusterRun> loadClusterAndRun(const std::string& clusterPath,
                                            const std::string& runPath, bool checkOnCluster, Io io)
{
    Diagnostics diags;
    const std::optional<LoadedFile> c = loadFile(clusterPath, diags);
    // The run's own cluster is checked too, but only once when it is the one given.
    std::optional<LoadedFile> r = loadFile(runPath, diags, RunCluster::Skip);
    if (r && r->run && !r->run->clusterPath.empty() &&
        !sameFile(resolveRelative(runPath, r->run->clusterPath), clusterPath))
        loadClusterOf(*r, diags);
    if (c && c->kind != FileKind::Cluster)
        diags.atPointer(clusterPath, "/format",
                        std::string("is not a cluster (\"") + kClusterFormat + "\")");
    if (r && r->kind != FileKind::Run)
        diags.atPointer(runPath, "/format", std::string("is not a run (\"") + kRunFormat + "\")");
    if (diags.empty() && (!c || !r || !c->cluster || !r->run))
        diags.atPointer(runPath, "", "could not be loaded");
    if (diags.empty())
        checkFabric(*c->cluster, clusterPath, "", diags);
    if (diags.empty() && checkOnCluster)
        checkRunOnCluster(*r->run, *c->cluster, runPath, "", diags);
    if (diags.empty() && checkOnCluster)
        checkRunOnFabric(*c->cluster, *r->run, clusterPath, "", diags);
    if (!diags.empty()) {
        printDiagnostics(diags, io.err);
        return std::nullopt;
    }
    return ClusterRun{*c->cluster, *r->run};
}

size_t characters(std::string_view text)
{
    return size_t(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::string padRight(const std::string& text, size_t width)
{
    return text + std::string(width - std::min(width, characters(text)), ' ');
}

std::string padLeft(const std::string& text, size_t width)
{
    return std::string(width - std::min(width, characters(text)), ' ') + text;
}

std::optional<Calibration> calibrationOf(const ParsedArgs& args, Io io)
{
    const std::optional<std::string> path = args.value(kCalibrationOption.name);
    if (!path)
        return defaultCalibration();
    Diagnostics diags;
    std::optional<Calibration> read = readCalibration(*path, diags);
    printDiagnostics(diags, io.err);
    return read;
}

void checkFabrics(const LoadedFile& f, Diagnostics& diags)
{
    auto check = [&](const ClusterDesc& cluster, const RunDesc* run, const std::string& file,
                     const std::string& base) {
        const size_t before = diags.size();
        checkFabric(cluster, file, base, diags);
        if (run && diags.size() == before)
            checkRunOnFabric(cluster, *run, file, base, diags);
    };
    switch (f.kind) {
    case FileKind::Cluster:
        if (f.cluster)
            check(*f.cluster, nullptr, f.path, "");
        break;
    case FileKind::Run:
        if (f.cluster && f.run)
            check(*f.cluster, &*f.run, f.clusterPath, "");
        break;
    case FileKind::Session:
        if (!f.session)
            break;
        check(f.session->cluster, &f.session->run, f.path, "/cluster");
        if (f.session->compare)
            check(f.session->compare->cluster, &f.session->compare->run, f.path,
                  "/compare/cluster");
        break;
    case FileKind::MeasuredRuns:
    case FileKind::Unknown:
        break;
    }
}

std::string percent(double fraction, int decimals)
{
    return fixed(100 * fraction, decimals) + " %";
}

std::string coverageText(const RangeCoverage& c)
{
    return "holds the measured step for " + std::to_string(c.inside()) + " of " +
           std::to_string(c.withRange()) + " rows, median half-width " +
           percent(c.medianHalfWidth()) + "; " + std::to_string(c.withoutRange()) +
           " rows with no measured run like them";
}

} // namespace cs::cli

namespace cs::cli {

JsonObjectStream::JsonObjectStream(std::ostream& out, int indent)
    : m_out(out)
    , m_indent(size_t(indent), ' ')
{
    m_out << "{";
}

void JsonObjectStream::key(std::string_view name)
{
    m_out << (m_first ? "\n" : ",\n") << m_indent << "  " << nlohmann::json(name).dump() << ": ";
    m_first = false;
}

void JsonObjectStream::member(std::string_view name, const nlohmann::json& value)
{
    key(name);
    std::string text = value.dump(2);
    const std::string nested = "\n" + m_indent + "  ";
    for (size_t at = text.find('\n'); at != std::string::npos;
         at = text.find('\n', at + nested.size()))
        text.replace(at, 1, nested);
    m_out << text;
}

void JsonObjectStream::arrayMember(std::string_view name, size_t count,
                                   const std::function<std::string(size_t)>& entry)
{
    key(name);
    m_out << "[";
    for (size_t i = 0; i < count; ++i)
        m_out << (i == 0 ? "\n" : ",\n") << m_indent << "    " << entry(i);
    m_out << (count > 0 ? "\n" + m_indent + "  ]" : std::string("]"));
}

void JsonObjectStream::close()
{
    m_out << "\n" << m_indent << "}";
}

} // namespace cs::cli
