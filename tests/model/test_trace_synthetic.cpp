// Measured profiles of known runs: the predicted schedule written as Kineto traces
// (syntheticprofile.h), read back and laid onto the run they came from. The answer is known: the
// groups are the run's dimensions, the measured per-GPU breakdown is the prediction's, and a
// clock offset put into a rank's file is recovered.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "placement.h"
#include "profilejson.h"
#include "profilemapping.h"
#include "samplefiles.h"
#include "syntheticprofile.h"
#include "text.h"

using namespace cs;

namespace {

struct TraceLayout {
    const char* name;
    int tp, cp, pp, dp, ep;
};

// GPT-3's shape cut to 8 layers on 2 ND H100 v5 VMs (16 GPUs), or DeepSeek-V3's on 16 GB200s.
ClusterRun smallRun(const TraceLayout& l)
{
    ClusterRun cr = l.ep > 1 ? loadSampleRun("gb200-16-deepseek-v3.run.json")
                             : loadSampleRun("ndv5-h100-128-gpt3-175b.run.json");
    cr.run.model.layers = 8;
    if (cr.run.model.moe) {
        cr.run.model.moe->denseLayers = 2;
        cr.run.model.mtpLayers = 0;
    }
    cr.run.model.seqLen = 4096;
    cr.run.batch.global = l.dp * 4;
    cr.run.batch.micro = 1;
    cr.run.parallelism = Parallelism{};
    cr.run.parallelism.tp = l.tp;
    cr.run.parallelism.cp = l.cp;
    cr.run.parallelism.pp = l.pp;
    cr.run.parallelism.dp = l.dp;
    cr.run.parallelism.ep = l.ep;
    cr.run.parallelism.distributedOptimizer = true;
    cr.run.placement = kPlacedDims;
    return cr;
}

std::string tempFolder(const std::string& name)
{
    const auto dir = std::filesystem::temp_directory_path() /
                     ("cs-trace-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}

} // namespace

TEST_CASE("a synthetic profile of a run, read back with that run, measures its prediction",
          "[trace]")
{
    const TraceLayout layout = GENERATE(
        TraceLayout{"tp2 pp2 dp4", 2, 1, 2, 4, 1}, TraceLayout{"tp2 cp2 dp4", 2, 2, 1, 4, 1},
        TraceLayout{"tp4 pp4", 4, 1, 4, 1, 1}, TraceLayout{"ep8 dp16", 1, 1, 1, 16, 8});
    INFO(layout.name);
    const ClusterRun cr = smallRun(layout);
    const Evaluation e = evaluate(cr.cluster, cr.run);
    const std::string dir = tempFolder("synthetic");
    Diagnostics diags;
    SyntheticProfileOptions options;
    options.steps = 3;
    REQUIRE(writeSyntheticProfile(dir, cr.cluster, cr.run, options, diags, 0, true));
    const MeasuredProfile p = readProfile({dir});
    std::filesystem::remove_all(dir);
    INFO(p.errors.formatAll() << p.notes.formatAll());
    REQUIRE(p.errors.empty());
    const int world = layout.tp * layout.cp * layout.pp * layout.dp;
    REQUIRE(int(p.ranks.size()) == world);
    CHECK(p.worldSize == world);
    CHECK(p.stepTimeS == Approx(e.stepTimeS).epsilon(1e-6));
    for (const RankProfile& r : p.ranks)
        CHECK(r.steps.size() == 3);

    const ProfileComparison m = compareWithPrediction(p, cr.cluster, cr.run, e);
    INFO(m.notes.formatAll() << m.summary);
    // every dimension's groups are matched to it
    for (const GroupMatch& g : m.groups) {
        INFO(g.description);
        if (g.description == "TENSOR_MODEL_PARALLEL_GROUP" && g.ranks.size() > 1)
            CHECK(g.dim == Dim::TP);
        if (g.description == "CONTEXT_PARALLEL_GROUP" && g.ranks.size() > 1)
            CHECK(g.dim == Dim::CP);
        if (g.description == "PIPELINE_MODEL_PARALLEL_GROUP" && g.ranks.size() > 1)
            CHECK(g.dim == Dim::PP);
        if (g.description == "DATA_PARALLEL_GROUP" && g.ranks.size() > 1)
            CHECK(g.dim == Dim::DP);
        if (g.description == "EXPERT_MODEL_PARALLEL_GROUP" && g.ranks.size() > 1)
            CHECK(g.dim == Dim::EP);
    }
    // the measured breakdown is the prediction's, part by part, within 1 %
    REQUIRE(!m.parts.empty());
    for (const PartComparison& part : m.parts) {
        INFO(part.key << ": measured " << part.measuredS << " predicted " << part.predictedS);
        CHECK(std::abs(part.difference()) <= 0.01 * std::max(part.predictedS, 1e-3 * e.stepTimeS));
    }
    CHECK(m.unmatchedExposedS < 1e-3 * e.stepTimeS);
}

TEST_CASE("a known clock offset of each rank is recovered by aligning on collectives", "[trace]")
{
    const ClusterRun cr = smallRun({"tp2 pp2 dp4", 2, 1, 2, 4, 1});
    const Evaluation e = evaluate(cr.cluster, cr.run);
    SyntheticProfileOptions options;
    options.steps = 2;
    options.cpuEvents = false;
    for (int r = 0; r < 16; ++r)
        options.clockOffsetS.push_back(0.0004 * ((r * 7) % 5) - 0.0011 * (r % 3));
    const std::string dir = tempFolder("offsets");
    Diagnostics diags;
    REQUIRE(writeSyntheticProfile(dir, cr.cluster, cr.run, options, diags));
    const MeasuredProfile p = readProfile({dir});
    std::filesystem::remove_all(dir);
    INFO(p.errors.formatAll() << p.alignment.summary);
    REQUIRE(p.ranks.size() == 16);
    CHECK(p.alignment.alignedRanks == 16);
    CHECK(p.alignment.unaligned.empty());
    CHECK(p.alignment.residualS < 1e-6);
    for (const RankProfile& r : p.ranks) {
        INFO("rank " << r.rank);
        CHECK(r.clockOffsetS ==
              Approx(options.clockOffsetS[size_t(r.rank)] - options.clockOffsetS[0]).margin(1e-6));
        // on the aligned clock every rank's first step starts together
        CHECK(r.steps.front().startS == Approx(0).margin(1e-6));
    }
}

TEST_CASE("a profile kept as JSON (a session's) gives back the same figures and comparison",
          "[trace]")
{
    const ClusterRun cr = smallRun({"tp2 pp2 dp4", 2, 1, 2, 4, 1});
    const Evaluation e = evaluate(cr.cluster, cr.run);
    const std::string dir = tempFolder("json");
    Diagnostics diags;
    REQUIRE(writeSyntheticProfile(dir, cr.cluster, cr.run, {}, diags));
    const MeasuredProfile p = readProfile({dir});
    std::filesystem::remove_all(dir);
    const nlohmann::json written = profileJson(p);
    const std::optional<MeasuredProfile> back = profileFromJson(written, "s.csession", "/x", diags);
    INFO(diags.formatAll());
    REQUIRE(back);
    CHECK(profileJson(*back) == written);
    const ProfileComparison before = compareWithPrediction(p, cr.cluster, cr.run, e);
    const ProfileComparison after = compareWithPrediction(*back, cr.cluster, cr.run, e);
    CHECK(after.summary == before.summary);
    REQUIRE(after.parts.size() == before.parts.size());
    for (size_t i = 0; i < after.parts.size(); ++i)
        CHECK(after.parts[i].measuredS == before.parts[i].measuredS);
    // the views' helpers: the slowest rank of each stage, each kernel's dimension
    const std::vector<int> slowest = slowestRankPerStage(p, cr.cluster, cr.run);
    REQUIRE(slowest.size() == 2);
    CHECK(slowest[0] >= 0);
    CHECK(slowest[1] >= 0);
    const std::vector<int> match = groupMatchesOf(p.ranks.front(), before.groups);
    REQUIRE(match.size() == p.ranks.front().groups.size());
    for (size_t g = 0; g < match.size(); ++g) {
        REQUIRE(match[g] >= 0);
        std::vector<int> ranks = p.ranks.front().groups[g].ranks;
        std::sort(ranks.begin(), ranks.end());
        CHECK(before.groups[size_t(match[g])].ranks == ranks); // groups are the same by ranks
    }
    SECTION("what is not such an object is refused at its place")
    {
        nlohmann::json bad = written;
        bad["ranks"][0]["steps"][0]["duration_s"] = "long";
        Diagnostics problems;
        CHECK(!profileFromJson(bad, "s.csession", "/x-profile", problems));
        CHECK(problems.formatAll().find("s.csession: /x-profile: not a measured profile") !=
              std::string::npos);
    }
}

TEST_CASE("where the run and the prediction part, the comparison says which part and by how much",
          "[trace]")
{
    // the profile of the run on its fabric, compared with the prediction on a fabric of a
    // tenth of the bandwidth: the data-parallel traffic is predicted to wait much longer
    const ClusterRun cr = smallRun({"tp2 pp2 dp4", 2, 1, 2, 4, 1});
    const std::string dir = tempFolder("differs");
    Diagnostics diags;
    REQUIRE(writeSyntheticProfile(dir, cr.cluster, cr.run, {}, diags));
    const MeasuredProfile p = readProfile({dir});
    std::filesystem::remove_all(dir);
    ClusterDesc slow = cr.cluster;
    slow.scaleOut.GbpsPerGpu /= 10;
    const Evaluation predicted = evaluate(slow, cr.run);
    const ProfileComparison m = compareWithPrediction(p, slow, cr.run, predicted);
    INFO(m.summary);
    const auto dp = std::find_if(m.parts.begin(), m.parts.end(),
                                 [](const PartComparison& x) { return x.key == "dp_exposed"; });
    REQUIRE(dp != m.parts.end());
    CHECK(dp->measuredS < dp->predictedS);
    CHECK(m.summary.rfind("measured DP exposed " + inStepTimeText(dp->measuredS) + " vs " +
                              inStepTimeText(dp->predictedS) + " predicted; compute ",
                          0) == 0);
}

TEST_CASE("process groups beyond one dimension: expert DP, DP with CP, all ranks, none", "[trace]")
{
    auto profileWith = [](const std::vector<std::vector<int>>& groups) {
        MeasuredProfile p;
        RankProfile r;
        for (size_t i = 0; i < groups.size(); ++i)
            r.groups.push_back({std::to_string(i), "", groups[i]});
        p.ranks.push_back(r);
        return p;
    };
    auto labels = [](const std::vector<GroupMatch>& groups) {
        std::vector<std::string> out;
        for (const GroupMatch& g : groups)
            out.push_back(g.label + (g.dim ? ":" + std::string(dimInfo(*g.dim).key) : ""));
        return out;
    };
    SECTION("experts")
    {
        const ClusterRun cr = smallRun({"ep8 dp16", 1, 1, 1, 16, 8});
        const Placement placement = placeRun(cr.run, cr.cluster);
        std::vector<int> all(16);
        std::iota(all.begin(), all.end(), 0);
        const MeasuredProfile p = profileWith(
            {placement.groupMembers(0, Dim::EP), placement.expertDataMembers(0), all, {0, 5, 7}});
        CHECK(labels(matchGroups(p, cr.cluster, cr.run)) ==
              std::vector<std::string>{"EP:ep", "expert-DP:dp", "DP:dp", "unmatched"});
    }
    SECTION("context parallel")
    {
        const ClusterRun cr = smallRun({"tp2 cp2 dp4", 2, 2, 1, 4, 1});
        const Placement placement = placeRun(cr.run, cr.cluster);
        std::vector<int> dpcp;
        for (int c : placement.groupMembers(0, Dim::CP))
            for (int d : placement.groupMembers(c, Dim::DP))
                dpcp.push_back(d);
        std::vector<int> all(16);
        std::iota(all.begin(), all.end(), 0);
        const MeasuredProfile p = profileWith({placement.groupMembers(0, Dim::CP), dpcp, all, {0}});
        CHECK(labels(matchGroups(p, cr.cluster, cr.run)) ==
              std::vector<std::string>{"CP:cp", "DP x CP:dp", "world", "unmatched"});
    }
}
