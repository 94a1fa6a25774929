// The figures of every sample, good test file and shared measured run, and the makespans of
// synthetic pipelines, as they were before the pipeline schedule was rewritten to queue ready
// stages and to store a repeating steady state once (tests/data/step-times.tsv): to 1e-9.
//
// A deliberate change of the cost model (the workload of an op, a constant) moves these
// figures: run `CS_REWRITE_STEP_TIMES=1 build/tests/model-tests "[reference]"` to write the
// file anew, and say in the commit why the figures moved.

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "costmodel.h"
#include "loader.h"
#include "measuredruns.h"
#include "schedule.h"

using namespace cs;

namespace {

const std::string kTable = std::string(CS_TEST_DATA_DIR) + "/step-times.tsv";

struct Line {
    std::string kind, what;
    double seconds = 0;
};

// The pipeline named "p4 v2 m17": uneven stages, sends and chunks that wait for parameters.
PipelineSpec syntheticPipeline(const std::string& name)
{
    int p = 0, v = 0, m = 0;
    REQUIRE(std::sscanf(name.c_str(), "p%d v%d m%d", &p, &v, &m) == 3);
    PipelineSpec s;
    s.stages = p;
    s.chunks = v;
    s.microBatches = m;
    for (int i = 0; i < p * v; ++i) {
        s.forward.push_back(1.0 + 0.137 * ((i * 7) % 5));
        s.backward.push_back(2.0 + 0.291 * ((i * 3) % 4));
        s.chunkReady.push_back(i % 2 ? 0.3 * (i % 5) : 0.0);
    }
    for (int i = 0; i < p; ++i)
        s.send.push_back(0.05 + 0.01 * (i % 3));
    return s;
}

double stepTimeOfFile(const std::string& what)
{
    const size_t hash = what.find('#');
    const std::string path = std::string(CS_SOURCE_DIR) + "/" + what.substr(0, hash);
    Diagnostics diags;
    const std::optional<LoadedFile> f = loadFile(path, diags);
    INFO(diags.formatAll());
    REQUIRE(f);
    if (f->kind == FileKind::Run)
        return evaluate(*f->cluster, *f->run).stepTimeS;
    REQUIRE(f->kind == FileKind::Session);
    if (hash != std::string::npos)
        return evaluate(f->session->compare->cluster, f->session->compare->run).stepTimeS;
    return evaluate(f->session->cluster, f->session->run).stepTimeS;
}

double stepTimeOfRow(const std::string& what)
{
    const size_t colon = what.find(':');
    const std::string file =
        std::string(CS_SHARED_DIR) + "/reference/validation/" + what.substr(0, colon);
    Diagnostics diags;
    for (const MeasuredRun& r : readMeasuredRuns(file, diags))
        if (r.id == what.substr(colon + 1))
            return evaluate(r.cluster, r.run).stepTimeS;
    FAIL("no row " << what);
    return 0;
}

double secondsNow(const Line& l)
{
    if (l.kind == "file")
        return stepTimeOfFile(l.what);
    if (l.kind == "row")
        return stepTimeOfRow(l.what);
    REQUIRE(l.kind == "pipeline");
    return simulatePipeline(syntheticPipeline(l.what)).makespan;
}

} // namespace

TEST_CASE("every sample, measured run and synthetic pipeline keeps its figure", "[reference]")
{
    std::ifstream in(kTable);
    REQUIRE(in);
    std::vector<std::string> header;
    std::vector<Line> lines;
    for (std::string text; std::getline(in, text);) {
        if (text.starts_with("#")) {
            header.push_back(text);
            continue;
        }
        std::istringstream fields(text);
        Line l;
        std::getline(fields, l.kind, '\t');
        std::getline(fields, l.what, '\t');
        fields >> l.seconds;
        lines.push_back(l);
    }
    REQUIRE(lines.size() > 300);
    const bool rewrite = std::getenv("CS_REWRITE_STEP_TIMES") != nullptr;
    for (Line& l : lines) {
        INFO(l.kind << " " << l.what);
        const double now = secondsNow(l);
        if (rewrite)
            l.seconds = now;
        CHECK(now == Approx(l.seconds).epsilon(1e-9));
    }
    if (rewrite) {
        std::ofstream out(kTable, std::ios::trunc);
        for (const std::string& h : header)
            out << h << "\n";
        char number[32];
        for (const Line& l : lines) {
            std::snprintf(number, sizeof number, "%.17g", l.seconds);
            out << l.kind << "\t" << l.what << "\t" << number << "\n";
        }
    }
}
