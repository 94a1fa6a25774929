// Process groups with the same ranks, told apart (profilemapping.h): with DP 1 the gradients'
// DP-with-CP group has the CP group's ranks; with EP = DP (CP 1) the expert-parallel group has
// the data-parallel group's. A synthetic profile of such a run, read back, must count each
// dimension's collectives under that dimension: by the groups' Megatron descriptions where the
// trace gives them, else by what their kernels are.

#include <catch2/catch.hpp>

#include <filesystem>

#include "profilemapping.h"
#include "samplefiles.h"
#include "syntheticprofile.h"

using namespace cs;

namespace {

struct SharedRanksLayout {
    const char* name;
    const char* sample;
    int tp, cp, dp, ep;
    Dim sharing;         // the dimension whose groups have the gradients' group's ranks
    bool sharingExposed; // whether its communication is predicted to be exposed at all
};

// The sample's model cut to 8 layers on one pipeline stage: small enough to write every rank.
ClusterRun runOf(const SharedRanksLayout& l)
{
    ClusterRun cr = loadSampleRun(l.sample);
    cr.run.model.layers = 8;
    if (cr.run.model.moe) {
        cr.run.model.moe->denseLayers = 2;
        cr.run.model.mtpLayers = 0;
    }
    cr.run.model.seqLen = 8192;
    cr.run.batch.global = l.dp * 4;
    cr.run.batch.micro = 1;
    cr.run.parallelism = Parallelism{};
    cr.run.parallelism.tp = l.tp;
    cr.run.parallelism.cp = l.cp;
    cr.run.parallelism.dp = l.dp;
    cr.run.parallelism.ep = l.ep;
    cr.run.parallelism.distributedOptimizer = true;
    cr.run.placement = kPlacedDims;
    return cr;
}

// How much the trace says about its groups.
struct Evidence {
    const char* name;
    bool descriptions; // pg_desc kept (recent PyTorch); without, as older traces are
    bool kernels;      // each rank's kernels kept (the window's reading; the CLI keeps none)
};

// The reviewer's case: CP's exchange hidden under attention, only DP's reduction exposed.
const SharedRanksLayout kFairwaterDp1{"Llama 405B tp4 cp2 dp1 on Fairwater",
                                      "fairwater-gb200-128-llama405b.run.json",
                                      4,
                                      2,
                                      1,
                                      1,
                                      Dim::CP,
                                      false};
// CP across two VMs: both CP's exchange and DP's reduction exposed.
const SharedRanksLayout kGptDp1{
    "GPT-3 tp8 cp2 dp1", "ndv5-h100-128-gpt3-175b.run.json", 8, 2, 1, 1, Dim::CP, true};
const SharedRanksLayout kExpertsEqualData{
    "DeepSeek-V3 ep4 dp4", "gb200-16-deepseek-v3.run.json", 1, 1, 4, 4, Dim::EP, true};

const Evidence kDescribed{"descriptions", true, false};
const Evidence kByKernelKinds{"kernel kinds", false, true};
const Evidence kCollectivesOnly{"collectives only", false, false};

struct MappingCase {
    SharedRanksLayout layout;
    Evidence evidence;
};
// With only the collectives' count (no descriptions, no kernels), EP's all-to-all and DP's
// reduce-scatter are both collectives: EP = DP cannot be told apart that way.
const std::vector<MappingCase> kCases{
    {kFairwaterDp1, kDescribed},       {kFairwaterDp1, kByKernelKinds},
    {kFairwaterDp1, kCollectivesOnly}, {kGptDp1, kDescribed},
    {kGptDp1, kByKernelKinds},         {kGptDp1, kCollectivesOnly},
    {kExpertsEqualData, kDescribed},   {kExpertsEqualData, kByKernelKinds},
};

} // namespace

TEST_CASE("process groups with the same ranks are told apart: each dimension's exposed "
          "communication is measured as predicted",
          "[trace]")
{
    const MappingCase& c = GENERATE(from_range(kCases));
    INFO(c.layout.name << ", " << c.evidence.name);
    const ClusterRun cr = runOf(c.layout);
    const Evaluation e = evaluate(cr.cluster, cr.run);
    const auto dir =
        std::filesystem::temp_directory_path() / ("cs-trace-mapping-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    Diagnostics diags;
    SyntheticProfileOptions synthetic;
    synthetic.cpuEvents = false;
    REQUIRE(writeSyntheticProfile(dir.string(), cr.cluster, cr.run, synthetic, diags));
    ReadProfileOptions reading;
    reading.keepKernels = c.evidence.kernels;
    MeasuredProfile p = readProfile({dir.string()}, reading);
    std::filesystem::remove_all(dir);
    INFO(p.errors.formatAll());
    REQUIRE(p.errors.empty());
    if (!c.evidence.descriptions)
        for (RankProfile& r : p.ranks)
            for (ProcessGroup& g : r.groups)
                g.description.clear();

    const ProfileComparison m = compareWithPrediction(p, cr.cluster, cr.run, e);
    INFO(m.notes.formatAll() << m.summary);
    CHECK(m.predicted.exposed[Dim::DP] > 0);
    CHECK((m.predicted.exposed[c.layout.sharing] > 0) == c.layout.sharingExposed);
    for (const DimInfo& d : kDims) {
        INFO(d.key << " exposed: measured " << m.measured.exposed[d.dim] << " predicted "
                   << m.predicted.exposed[d.dim]);
        CHECK(std::abs(m.measured.exposed[d.dim] - m.predicted.exposed[d.dim]) <=
              0.01 * m.predicted.exposed[d.dim] + 1e-9);
    }
    CHECK(m.unmatchedExposedS < 1e-3 * e.stepTimeS);
}
