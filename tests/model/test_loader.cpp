// Loading the good fixtures, round trips, the JSON text layer and the description helpers.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "../helpers/datasafety.h"
#include "fileio.h"
#include "loader.h"
#include "writer.h"

using nlohmann::json;

namespace {

const std::string kGood = std::string(CS_TEST_DATA_DIR) + "/good/";

cs::LoadedFile loadGood(const std::string& name)
{
    cs::Diagnostics diags;
    const auto loaded = cs::loadFile(kGood + name, diags);
    INFO(diags.formatAll());
    REQUIRE(diags.empty());
    REQUIRE(loaded);
    return *loaded;
}

cs::Diagnostics parseErrors(const std::string& text)
{
    cs::Diagnostics diags;
    CHECK_FALSE(cs::parseJson(text, "t.json", diags));
    REQUIRE(diags.size() == 1);
    return diags;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), {}};
}

} // namespace

TEST_CASE("a catalog cluster loads with defaults resolved", "[loader]")
{
    const cs::LoadedFile f = loadGood("small.cluster.json");
    REQUIRE(f.kind == cs::FileKind::Cluster);
    const cs::ClusterDesc& c = *f.cluster;
    CHECK(c.gpuByName);
    CHECK(c.gpu == *cs::findCatalogGpu("H100"));
    CHECK(c.gpuCount() == 128);
    CHECK(c.scaleUp.domain == cs::DomainKind::Node);
    CHECK(c.scaleUp.latencyUs == 1.0);
    CHECK(c.scaleOut.latencyUs == 5.0);
    CHECK(c.scaleOut.topology == cs::FabricTopology{});
    CHECK(c.layoutRows == 0);
    CHECK(c.rows() == 2);
    CHECK(c.extensions.value() ==
          json{{"notes", "Four racks of four 8-GPU HGX nodes; a test fixture, "
                         "not a real system."}});
}

TEST_CASE("a GPU object overrides its catalog entry field by field", "[loader]")
{
    const cs::ClusterDesc c = *loadGood("nvl72.cluster.json").cluster;
    CHECK_FALSE(c.gpuByName);
    CHECK(c.gpu.hbmGiB == 192);
    CHECK(c.gpu.peakTflopsNvfp4 == 9800);
    CHECK(c.scaleUp.domain == cs::DomainKind::Rack);
    CHECK(c.domainSize() == 72);
    CHECK(c.scaleOut.topology.kind == cs::FabricKind::FatTree);
    CHECK(c.scaleOut.topology.tiers == 3);
    CHECK(c.virtualization == 0.02);
    CHECK(c.rows() == 2);
    CHECK(c.columns() == 4);
    CHECK(c.extensions.contains("x-source"));
}

TEST_CASE("a GPU outside the catalog is described whole", "[loader]")
{
    const cs::ClusterDesc c = *loadGood("custom-gpu.cluster.json").cluster;
    CHECK(c.gpu.name == "MI300X");
    CHECK(c.gpu.peakTflops(cs::Precision::FP8) == 2615);
    CHECK(c.gpu.peakTflops(cs::Precision::NVFP4) == 0);
    CHECK(c.gpu.nvlinkGBps == 896);
}

TEST_CASE("a run loads with the cluster it names, resolved next to it", "[loader]")
{
    const cs::LoadedFile f = loadGood("small.run.json");
    REQUIRE(f.kind == cs::FileKind::Run);
    REQUIRE(f.cluster);
    CHECK(f.clusterPath == kGood + "small.cluster.json");
    const cs::RunDesc& r = *f.run;
    CHECK(r.precision == cs::Precision::FP8);
    CHECK(r.parallelism.recompute == cs::Recompute::of(cs::RecomputeMode::Selective));
    CHECK(r.parallelism.dp == 0);
    CHECK(r.dpFor(f.cluster->gpuCount()) == 8);
    CHECK(r.microBatchesFor(f.cluster->gpuCount()) == 64);
    CHECK(r.placement == std::array{cs::Dim::TP, cs::Dim::PP, cs::Dim::CP, cs::Dim::DP});
    CHECK(r.trainingSteps == 1000);
    REQUIRE(r.measured);
    CHECK(r.measured->stepTimeS == 1.5);
}

TEST_CASE("a run's optional fields take formats.md's defaults", "[loader]")
{
    const cs::RunDesc r = *loadGood("minimal.run.json").run;
    CHECK(r.model.kvHeads == r.model.heads);
    CHECK_FALSE(r.model.gatedMlp);
    CHECK(r.parallelism == cs::Parallelism{});
    CHECK(r.placement == std::array{cs::Dim::TP, cs::Dim::CP, cs::Dim::PP, cs::Dim::DP});
    CHECK_FALSE(r.trainingSteps);
    CHECK_FALSE(r.measured);
    CHECK(r.clusterPath.empty());
}

TEST_CASE("a session loads with compare, view and bookmarks", "[loader]")
{
    const cs::Session s = *loadGood("full.csession").session;
    REQUIRE(s.compare);
    CHECK(s.compare->cluster.name == "Small H100 cluster");
    REQUIRE(s.view);
    CHECK(cs::toString(s.view->colorBy) == "dp");
    CHECK(s.view->center == std::array{120.5, -40.0});
    REQUIRE(s.bookmarks.size() == 2);
    CHECK(cs::toString(s.bookmarks[0].view.colorBy) == "domain");
    CHECK(s.bookmarks[1].view == cs::ViewState{});
    CHECK(s.extensions.contains("x-author"));
    CHECK(s.run.extensions.contains("x-tag"));
}

TEST_CASE("descriptions survive toJson and back unchanged", "[loader][roundtrip]")
{
    cs::Diagnostics diags;
    for (const char* name :
         {"small.cluster.json", "nvl72.cluster.json", "custom-gpu.cluster.json"}) {
        const cs::ClusterDesc c = *loadGood(name).cluster;
        CHECK(cs::clusterFromJson(cs::toJson(c), "rt", "", diags) == c);
    }
    for (const char* name : {"small.run.json", "minimal.run.json"}) {
        const cs::RunDesc r = *loadGood(name).run;
        CHECK(cs::runFromJson(cs::toJson(r), "rt", "", diags) == r);
    }
    const cs::Session s = *loadGood("full.csession").session;
    const json written = cs::toJson(s);
    CHECK(cs::sessionFromJson(written, "rt", diags) == s);
    // Through text as well, since doubles must survive printing.
    const auto reparsed = cs::parseJson(written.dump(2), "rt", diags);
    REQUIRE(reparsed);
    CHECK(cs::sessionFromJson(*reparsed, "rt", diags) == s);
    CHECK(diags.empty());
}

TEST_CASE("an MoE block's widths survive a save when its shared experts or dense layers are absent",
          "[loader][roundtrip]")
{
    json j = cs::toJson(*loadGood("small.run.json").run);
    j["model"]["moe"] = {{"experts", 8},
                         {"top_k", 2},
                         {"ffn_hidden", 512},
                         {"shared_experts", 0},
                         {"shared_ffn_hidden", 1284},
                         {"dense_layers", 0},
                         {"dense_ffn_hidden", 999}};
    cs::Diagnostics diags;
    const std::optional<cs::RunDesc> r = cs::runFromJson(j, "moe", "", diags);
    REQUIRE(r);
    CHECK(cs::runFromJson(cs::toJson(*r), "rt", "", diags) == *r);
    CHECK(diags.empty());
}

TEST_CASE("attention fields of another kind survive a save", "[loader][roundtrip]")
{
    json j = cs::toJson(*loadGood("small.run.json").run);
    j["model"]["attention"] = {{"qk_rope_head_dim", 64}, {"v_head_dim", 128}, {"window", 512}};
    cs::Diagnostics diags;
    const std::optional<cs::RunDesc> r = cs::runFromJson(j, "gqa", "", diags);
    REQUIRE(r);
    CHECK(r->model.attention.kind == cs::AttentionKind::Gqa);
    CHECK(cs::runFromJson(cs::toJson(*r), "rt", "", diags) == *r);
    CHECK(diags.empty());
}

TEST_CASE("toJson writes resolved defaults and leaves out what is absent", "[loader]")
{
    const json run = cs::toJson(*loadGood("minimal.run.json").run);
    CHECK(run.at("model").at("kv_heads") == 4);
    CHECK(run.at("parallelism").at("recompute") == "none");
    CHECK_FALSE(run.at("parallelism").contains("dp"));
    CHECK_FALSE(run.contains("training"));
    CHECK_FALSE(run.contains("measured"));
    CHECK_FALSE(run.contains("cluster"));
    const json cluster = cs::toJson(*loadGood("small.cluster.json").cluster);
    CHECK(cluster.at("gpu") == "H100");
    CHECK(cluster.at("scale_out").at("topology").at("kind") == "rail-optimized");
    CHECK(cluster.at("notes").is_string());
    cs::Session bare = *loadGood("full.csession").session;
    bare.compare.reset();
    bare.view.reset();
    bare.bookmarks.clear();
    const json session = cs::toJson(bare);
    CHECK_FALSE(session.contains("compare"));
    CHECK_FALSE(session.contains("view"));
    CHECK_FALSE(session.contains("bookmarks"));
}

TEST_CASE("syntax errors are located by line and column", "[loader][json]")
{
    struct Case {
        std::string text;
        int line;
        int column;
        std::string message;
    };
    const std::vector<Case> cases{
        {"", 1, 1, "empty file; expected a JSON object"},
        {"{\n  \"a\": 1,\n}", 3, 1, "unexpected '}'"},
        {"{\n  \"a\": NaN\n}", 2, 8, "not a JSON value"},
        {"{\"a\": [1, 2", 1, 12, "unexpected end of input"},
        {"\xEF\xBB\xBF{\"a\": x}", 1, 7, "not a JSON value"},
        {"{\"\xC3\xA9\xC3\xA9\": 1e999}", 1, 8, "number too large: '1e999'"},
        {"{\"a\": \"\xFF\"}", 1, 8, "ill-formed UTF-8"},
        {"{} {}", 1, 4, "expected end of input"},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        const cs::Diagnostic d = parseErrors(c.text).items()[0];
        CHECK(d.line == c.line);
        CHECK(d.column == c.column);
        CHECK_THAT(d.message, Catch::Contains(c.message));
        CHECK(d.format().rfind("t.json:" + std::to_string(c.line) + ":", 0) == 0);
    }
}

TEST_CASE("a BOM is skipped and valid text parses", "[loader][json]")
{
    cs::Diagnostics diags;
    const auto j = cs::parseJson("\xEF\xBB\xBF{\"a\": [1, {\"b\": null}]}", "t.json", diags);
    REQUIRE(j);
    CHECK((*j)["a"][1].contains("b"));
    CHECK(diags.empty());
}

TEST_CASE("duplicate keys are reported at their pointer, all of them", "[loader][json]")
{
    cs::Diagnostics diags;
    CHECK_FALSE(cs::parseJson(R"({"a": 1, "l": [{"x/y": 1, "x/y": 2}], "a": 3})", "t.json", diags));
    REQUIRE(diags.size() == 2);
    CHECK(diags.items()[0].pointer == "/l/0/x~1y");
    CHECK(diags.items()[1].pointer == "/a");
    CHECK(diags.items()[1].format() == "t.json: /a: duplicate key \"a\"");
}

TEST_CASE("nesting is allowed to kMaxJsonDepth and refused beyond", "[loader][json]")
{
    cs::Diagnostics diags;
    const int depth = cs::kMaxJsonDepth;
    CHECK(cs::parseJson(std::string(depth, '[') + std::string(depth, ']'), "t", diags));
    CHECK(diags.empty());
    const cs::Diagnostic d = parseErrors("\n" + std::string(depth + 1, '[')).items()[0];
    CHECK(d.line == 2);
    CHECK(d.column == depth + 1);
    CHECK_THAT(d.message, Catch::Contains("nested deeper than 64"));
}

TEST_CASE("readFileText refuses what it cannot read, naming the file", "[loader][io]")
{
    cs::Diagnostics diags;
    CHECK_FALSE(cs::readFileText(CS_TEST_DATA_DIR, diags));
    CHECK_FALSE(cs::readFileText(kGood + "no-such-file.json", diags));
    REQUIRE(diags.size() == 2);
    CHECK(diags.items()[0].format() ==
          std::string(CS_TEST_DATA_DIR) + ": is a directory, not a file");
    CHECK_THAT(diags.items()[1].format(),
               Catch::StartsWith(kGood + "no-such-file.json: cannot read"));
}

TEST_CASE("readFileText refuses files over kMaxFileBytes", "[loader][io]")
{
    const std::string path = testing::tempPath("cs-loader-test-big.json");
    {
        std::ofstream out(path, std::ios::binary);
        out.seekp(std::streamoff(cs::kMaxFileBytes));
        out.put(' ');
    }
    cs::Diagnostics diags;
    CHECK_FALSE(cs::readFileText(path, diags));
    CHECK(diags.contains("larger than 64 MiB"));
    std::remove(path.c_str());
}

TEST_CASE("writeFileAtomically replaces the file or leaves it untouched", "[loader][io]")
{
    const std::string path = testing::tempPath("cs-loader-test-atomic.json");
    cs::Diagnostics diags;
    REQUIRE(cs::writeFileAtomically(path, "first", diags));
    REQUIRE(cs::writeFileAtomically(path, "second", diags));
    CHECK(readAll(path) == "second");
    CHECK(diags.empty());
    const std::string inMissingDir = testing::tempPath("cs-loader-test-no-such-dir/x.json");
    CHECK_FALSE(cs::writeFileAtomically(inMissingDir, "x", diags));
    REQUIRE(diags.size() == 1);
    CHECK_THAT(diags.items()[0].format(),
               Catch::StartsWith(inMissingDir + ": cannot write: No such file"));
    // A directory in the way makes rename fail after the temporary file was written.
    const std::string dir = testing::tempPath("cs-loader-test-a-directory");
    std::filesystem::create_directories(dir);
    CHECK_FALSE(cs::writeFileAtomically(dir, "x", diags));
    CHECK(std::filesystem::is_directory(dir));
    for (const auto& entry : std::filesystem::directory_iterator(dir.substr(0, dir.rfind('/'))))
        CHECK(entry.path().string().rfind(dir + ".", 0) != 0); // no temporary left behind
    std::filesystem::remove(dir);
    std::remove(path.c_str());
}

TEST_CASE("relative cluster paths resolve against the run's directory", "[loader]")
{
    CHECK(cs::resolveRelative("a/b/run.json", "c.json") == "a/b/c.json");
    CHECK(cs::resolveRelative("a/b/run.json", "../c.json") == "a/c.json");
    CHECK(cs::resolveRelative("run.json", "c.json") == "c.json");
    CHECK(cs::resolveRelative("a/run.json", "/abs/c.json") == "/abs/c.json");
}

TEST_CASE("file kinds follow the format string and the .jsonl suffix", "[loader]")
{
    CHECK(cs::fileKindOf({{"format", cs::kClusterFormat}}) == cs::FileKind::Cluster);
    CHECK(cs::fileKindOf({{"format", cs::kRunFormat}}) == cs::FileKind::Run);
    CHECK(cs::fileKindOf({{"format", cs::kSessionFormat}}) == cs::FileKind::Session);
    CHECK(cs::fileKindOf({{"format", 1}}) == cs::FileKind::Unknown);
    CHECK(cs::fileKindOf(json::array()) == cs::FileKind::Unknown);
    cs::Diagnostics diags;
    const auto measured = cs::loadFile("does-not-matter.jsonl", diags);
    REQUIRE(measured);
    CHECK(measured->kind == cs::FileKind::MeasuredRuns);
}

TEST_CASE("a run's cluster problems are reported under the cluster's own name", "[loader]")
{
    const std::string dir = testing::tempPath("cs-loader-test-runcluster");
    std::filesystem::create_directories(dir);
    const std::string clusterPath = dir + "/bad.cluster.json";
    cs::Diagnostics diags;
    json cluster = json::parse(readAll(kGood + "small.cluster.json"));
    cluster["racks"] = 0;
    REQUIRE(cs::writeFileAtomically(clusterPath, cluster.dump(), diags));
    json run = json::parse(readAll(kGood + "small.run.json"));
    run["cluster"] = "bad.cluster.json";
    REQUIRE(cs::writeFileAtomically(dir + "/a.run.json", run.dump(), diags));
    CHECK_FALSE(cs::loadFile(dir + "/a.run.json", diags));
    REQUIRE(diags.size() == 1);
    CHECK(diags.items()[0].format() ==
          clusterPath + ": /racks: must be between 1 and 65536, got 0");
    std::filesystem::remove_all(dir);
}

TEST_CASE("catalog, layout and parallel sizes", "[description]")
{
    CHECK(cs::gpuCatalog().size() == 7);
    CHECK(cs::findCatalogGpu("A100")->peakTflops(cs::Precision::FP8) == 0);
    CHECK(cs::findCatalogGpu("GB300")->peakTflops(cs::Precision::NVFP4) == 14700);
    CHECK(cs::findCatalogGpu("B300")->peakTflops(cs::Precision::NVFP4) == 13500);
    CHECK(cs::findCatalogGpu("B300")->peakTflops(cs::Precision::FP8) == 4500);
    CHECK(cs::catalogNames() == "A100, H100, H200, B200, GB200, GB300, B300");
    CHECK(cs::findCatalogGpu("gb200") == nullptr);
    struct Layout {
        int racks, layoutRows, rows, columns;
    };
    for (const Layout& l : std::vector<Layout>{{1, 0, 1, 1},
                                               {2, 0, 1, 2},
                                               {3, 0, 2, 2},
                                               {128, 0, 11, 12},
                                               {128, 8, 8, 16},
                                               {7, 7, 7, 1}}) {
        cs::ClusterDesc c;
        c.racks = l.racks;
        c.layoutRows = l.layoutRows;
        INFO(l.racks << " racks, layout rows " << l.layoutRows);
        CHECK(c.rows() == l.rows);
        CHECK(c.columns() == l.columns);
    }
    cs::RunDesc r;
    r.parallelism.tp = 4;
    r.parallelism.cp = 2;
    r.parallelism.pp = 8;
    r.parallelism.dp = 0;
    r.batch = {.global = 1152, .micro = 1};
    CHECK(r.dpFor(8192) == 128);
    CHECK(r.microBatchesFor(8192) == 9);
    CHECK(r.dpFor(8100) == 0);
    CHECK(r.microBatchesFor(8100) == 0);
    r.parallelism.dp = 64;
    CHECK(r.dpFor(8192) == 64);
    CHECK(r.parallelism.size(cs::Dim::CP) == 2);
    CHECK(r.parallelism.size(cs::Dim::DP) == 64);
    for (cs::Dim d : cs::kAllDims)
        CHECK(cs::enumFromString<cs::Dim>(cs::toString(d)) == d);
    CHECK(cs::enumFromString<cs::Precision>("nvfp4") == cs::Precision::NVFP4);
    CHECK_FALSE(cs::enumFromString<cs::Precision>("fp16"));
    CHECK(cs::colorModes().size() == cs::kDimCount + 7); // with the two measured modes
    for (const cs::ColorMode& mode : cs::colorModes())
        CHECK(cs::colorModeFromString(cs::toString(mode)) == mode);
}
