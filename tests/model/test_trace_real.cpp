// Real PyTorch profiler traces (tests/data/traces/, from Holistic Trace Analysis's tests, MIT) read
// by the profile reader, against an independent reading of the same files.

#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include "profilemapping.h"
#include "samplefiles.h"

using namespace cs;

namespace {

struct StepReference {
    int64_t number;
    double durationUs;
    std::array<double, kKernelKindCount> kernelUs; // by kind, in kKernelKinds' order
    double computeBusyUs;
};

struct FileReference {
    const char* file; // under tests/data/traces/
    int rank;
    int worldSize;
    size_t steps;
    std::array<double, kKernelKindCount> totalKernelUs;
    double computeBusyUs;
    std::vector<StepReference> stepFigures;
};

// Produced by tools/trace-reference.py (Python's json and gzip modules only, the definitions of
// docs/measured-profiles.md) over the shipped traces:
//     cd tests/data/traces && ../../../tools/trace-reference.py $(pwd)/hta-*/*.gz
// Microseconds, to the nanosecond the files write.
const std::vector<FileReference> kReferences = {
    {"hta-amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
     0,
     1,
     2,
     {110.881, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000},
     110.881,
     {
         /* step #1 */ {
             1, 9288.291, {110.881, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000}, 110.881},
         /* step #2 */ {2, 49.073, {0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000}, 0.000},
     }},
    {"hta-cpu-only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
     34,
     300,
     1,
     {0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000},
     0.000,
     {
         /* step #551 */ {
             551, 210109.162, {0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000}, 0.000},
     }},
    {"hta-nccl/nccl_data.json.gz",
     0,
     2,
     3,
     {115655.847, 46762.159, 0.000, 0.000, 0.000, 0.000, 114.334, 0.000},
     115655.847,
     {
         /* step #4 */ {4,
                        222442.191,
                        {38506.406, 11950.271, 0.000, 0.000, 0.000, 0.000, 38.750, 0.000},
                        38506.406},
         /* step #5 */
         {5,
          219726.905,
          {38429.422, 12261.533, 0.000, 0.000, 0.000, 0.000, 38.496, 0.000},
          38429.422},
         /* step #6 */
         {6,
          224936.243,
          {38720.019, 22550.355, 0.000, 0.000, 0.000, 0.000, 37.088, 0.000},
          38720.019},
     }},
    {"hta-sampled/sampled_rank-0.json.gz",
     0,
     128,
     2,
     {210320.000, 0.000, 0.000, 0.000, 396199.000, 0.000, 0.000, 0.000},
     210320.000,
     {
         /* step #551 */ {551,
                          607312.000,
                          {106252.000, 0.000, 0.000, 0.000, 195327.000, 0.000, 0.000, 0.000},
                          106252.000},
         /* step #552 */
         {552,
          622928.000,
          {104068.000, 0.000, 0.000, 0.000, 200872.000, 0.000, 0.000, 0.000},
          104068.000},
     }},
    {"hta-sampled/sampled_rank-1.json.gz",
     1,
     128,
     2,
     {271973.000, 0.000, 0.000, 0.000, 379053.000, 0.000, 0.000, 0.000},
     271973.000,
     {
         /* step #551 */ {551,
                          607904.000,
                          {135548.000, 0.000, 0.000, 0.000, 168027.000, 0.000, 0.000, 0.000},
                          135548.000},
         /* step #552 */
         {552,
          630639.000,
          {136425.000, 0.000, 0.000, 0.000, 211026.000, 0.000, 0.000, 0.000},
          136425.000},
     }},
};

std::string tracePath(const std::string& name)
{
    return std::string(CS_TEST_DATA_DIR) + "/traces/" + name;
}

} // namespace

TEST_CASE("real traces read as an independent reading of them says", "[trace]")
{
    const FileReference& ref = GENERATE(from_range(kReferences));
    INFO(ref.file);
    const MeasuredProfile p = readProfile({tracePath(ref.file)});
    INFO(p.errors.formatAll());
    REQUIRE(p.errors.empty());
    REQUIRE(p.ranks.size() == 1);
    const RankProfile& r = p.ranks.front();
    CHECK(r.rank == ref.rank);
    CHECK(r.worldSize == ref.worldSize);
    REQUIRE(r.steps.size() == ref.steps);
    for (const KernelKindInfo& k : kKernelKinds) {
        INFO(k.key);
        CHECK(r.totalKernelS[k.kind] * 1e6 ==
              Approx(ref.totalKernelUs[size_t(k.kind)]).margin(0.002));
    }
    CHECK(r.totalComputeBusyS * 1e6 == Approx(ref.computeBusyUs).margin(0.002));
    for (size_t i = 0; i < ref.steps; ++i) {
        const StepReference& s = ref.stepFigures[i];
        const StepFigures& got = r.steps[i];
        INFO(got.name);
        CHECK(got.number == s.number);
        CHECK(got.durationS * 1e6 == Approx(s.durationUs).margin(0.002));
        for (const KernelKindInfo& k : kKernelKinds) {
            INFO(k.key);
            CHECK(got.kernelS[k.kind] * 1e6 == Approx(s.kernelUs[size_t(k.kind)]).margin(0.002));
        }
        CHECK(got.computeBusyS * 1e6 == Approx(s.computeBusyUs).margin(0.002));
        // what the step holds adds up: busy and idle within its length
        CHECK(got.idleS >= 0);
        CHECK(got.exposedCommS <= got.commBusyS + 1e-12);
    }
}

TEST_CASE("a folder of real traces is one run: two ranks of 128, steps matched, the slowest named",
          "[trace]")
{
    const MeasuredProfile p = readProfile({tracePath("hta-sampled")});
    INFO(p.errors.formatAll());
    REQUIRE(p.errors.empty());
    REQUIRE(p.ranks.size() == 2);
    CHECK(p.worldSize == 128);
    CHECK(p.ranks[0].rank == 0);
    CHECK(p.ranks[1].rank == 1);
    // two of 128 ranks: said
    CHECK(p.notes.contains("2 of the run's 128 ranks have a trace"));
    // the step time: the median over the two steps of the longer rank's duration
    CHECK(p.stepTimeS == Approx(0.5 * (0.607904 + 0.630639)).margin(1e-9));
    CHECK(p.slowestRank == 1);
    // no process groups in these files: nothing to align on, and said so
    CHECK(p.alignment.alignedRanks == 1);
    CHECK(p.alignment.summary.find("no collectives shared") != std::string::npos);
}

TEST_CASE("what a real trace says of its run: groups, units and a missing distributedInfo",
          "[trace]")
{
    SECTION("process groups from pg_config and the kernels' own args")
    {
        const MeasuredProfile p = readProfile({tracePath("hta-nccl")});
        REQUIRE(p.ranks.size() == 1);
        const RankProfile& r = p.ranks.front();
        REQUIRE(!r.groups.empty());
        CHECK(r.groups.front().name == "0");
        CHECK(r.groups.front().description == "default_pg");
        CHECK(r.groups.front().ranks == std::vector<int>{0, 1});
        // the collectives' exposed time is the group's
        double exposed = 0;
        for (const StepFigures& s : r.steps)
            for (const GroupSeconds& g : s.exposedByGroup) {
                CHECK(g.group == 0);
                exposed += g.seconds;
            }
        CHECK(exposed > 0);
        CHECK(r.streams == std::vector<int32_t>{7, 40});
    }
    SECTION("no distributedInfo: rank 0 of 1, with a note naming the file")
    {
        const MeasuredProfile p = readProfile({tracePath("hta-amd")});
        REQUIRE(p.ranks.size() == 1);
        CHECK(!p.ranks.front().distributedInfo);
        CHECK(p.worldSize == 1);
        CHECK(p.notes.contains("no distributedInfo: read as rank 0 of a run of 1"));
        CHECK(p.notes.formatAll().find("mi250_minitoy") != std::string::npos);
    }
    SECTION("no GPU kernels: the steps are idle, with a note")
    {
        const MeasuredProfile p = readProfile({tracePath("hta-cpu-only")});
        REQUIRE(p.ranks.size() == 1);
        CHECK(p.notes.contains("no GPU kernels"));
        CHECK(p.ranks.front().steps.front().idleS == p.ranks.front().steps.front().durationS);
    }
}

TEST_CASE("kernel kinds: NCCL and RCCL names, and the collective a launching operator names",
          "[trace]")
{
    struct Case {
        const char* kernel;
        const char* collective;
        KernelKind kind;
    };
    const Case c = GENERATE(
        Case{"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn", "",
             KernelKind::Compute},
        Case{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "",
             KernelKind::AllReduce},
        Case{"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "",
             KernelKind::AllGather},
        Case{"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
             "", KernelKind::ReduceScatter},
        Case{"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "",
             KernelKind::Broadcast},
        Case{"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
             "", KernelKind::SendRecv},
        // NCCL's all-to-all runs as send/recv kernels: the operator names it
        Case{"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "all_to_allv",
             KernelKind::AllToAll},
        Case{"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "send",
             KernelKind::SendRecv},
        Case{"ncclDevKernel_Generic_4(ncclDevComm*, unsigned long, ncclWork*)", "",
             KernelKind::OtherComm},
        Case{"ncclDevKernel_Generic_4(ncclDevComm*, unsigned long, ncclWork*)",
             "_reduce_scatter_base", KernelKind::ReduceScatter},
        Case{"ncclDevKernel_Generic_4(ncclDevComm*, unsigned long, ncclWork*)", "barrier",
             KernelKind::OtherComm},
        // a kernel's own name wins over the operator where it says the collective
        Case{"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "allreduce",
             KernelKind::AllGather},
        Case{"rcclKernel_AllReduce_Sum_bf16", "", KernelKind::AllReduce});
    INFO(c.kernel << " / " << c.collective);
    CHECK(commKindOf(kindOfKernelName(c.kernel), c.collective) == c.kind);
}

TEST_CASE("a real trace's process group is matched to the run's dimension by its ranks", "[trace]")
{
    // HTA's nccl_data: rank 0 of 2, its default group [0, 1]; a run of data parallelism 2
    ClusterRun cr = loadSampleRun("ndv5-h100-128-gpt3-175b.run.json");
    cr.cluster.racks = 1;
    cr.cluster.nodesPerRack = 1;
    cr.cluster.gpusPerNode = 2;
    cr.run.model.layers = 4;
    cr.run.batch = {8, 1};
    cr.run.parallelism = Parallelism{};
    cr.run.parallelism.dp = 2;
    const MeasuredProfile p = readProfile({tracePath("hta-nccl")});
    const ProfileComparison m =
        compareWithPrediction(p, cr.cluster, cr.run, evaluate(cr.cluster, cr.run));
    REQUIRE(m.groups.size() == 1);
    CHECK(m.groups.front().dim == Dim::DP);
    CHECK(m.groups.front().label == "DP");
    // its all-reduces' exposed time is the measured DP exposed time
    CHECK(m.measured.exposed[Dim::DP] > 0.005);
    CHECK(m.unmatchedExposedS == 0);
}
