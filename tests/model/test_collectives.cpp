// Alpha-beta collective costs, checked against values worked out by hand.

#include <catch2/catch.hpp>

#include "collectives.h"

using namespace cs;

namespace {

struct RingCase {
    double bytes;
    int n;
    LinkSpeed link;
    double expectedS; // (n - 1) hops of latency + (n - 1) / n of the bytes over the link
};

} // namespace

TEST_CASE("ring all-gather and reduce-scatter follow alpha-beta")
{
    const RingCase cases[] = {
        {1e9, 4, {100, 0}, 0.75e9 / 100e9},
        {1e9, 4, {100, 10}, 3 * 10e-6 + 0.75e9 / 100e9},
        {8e6, 8, {400, 1}, 7 * 1e-6 + 7e6 / 400e9},
        {0, 16, {50, 5}, 15 * 5e-6},
        {1e9, 1, {100, 10}, 0},
    };
    for (const RingCase& c : cases) {
        INFO("bytes " << c.bytes << " n " << c.n);
        CHECK(ringAllGather(c.bytes, c.n, c.link) == Approx(c.expectedS));
        CHECK(ringReduceScatter(c.bytes, c.n, c.link) == Approx(c.expectedS));
        CHECK(ringAllReduce(c.bytes, c.n, c.link) == Approx(2 * c.expectedS));
    }
}

TEST_CASE("a ring collective's HBM traffic: two bytes a byte gathered, three a byte reduced")
{
    struct HbmCase {
        double bytes;
        int n;
        double gatherBytes, reduceBytes;
    };
    const HbmCase cases[] = {
        {1e9, 1, 0, 0},
        {1e9, 2, 1e9, 1.5e9},
        {1e9, 4, 1.5e9, 2.25e9},
        {64e6, 64, 2 * 63e6, 3 * 63e6},
    };
    for (const HbmCase& c : cases) {
        INFO("bytes " << c.bytes << " n " << c.n);
        CHECK(allGatherHbmBytes(c.bytes, c.n) == Approx(c.gatherBytes));
        CHECK(reduceScatterHbmBytes(c.bytes, c.n) == Approx(c.reduceBytes));
    }
}

TEST_CASE("all-reduce picks the tree for small messages on big groups, the ring for big ones")
{
    const LinkSpeed link{50, 5};
    const CollectiveCost small = allReduce(1e3, 1024, link);
    CHECK(small.algorithm == CollectiveAlgorithm::Tree);
    // log2(1024) = 10 hops up and down, the buffer once each way.
    CHECK(small.seconds == Approx(2 * 10 * 5e-6 + 2 * 1e3 / 50e9));
    const CollectiveCost big = allReduce(1e10, 8, link);
    CHECK(big.algorithm == CollectiveAlgorithm::Ring);
    CHECK(big.seconds == Approx(ringAllReduce(1e10, 8, link)));
    CHECK(big.seconds <= treeAllReduce(1e10, 8, link));
}

TEST_CASE("point to point is one hop")
{
    CHECK(pointToPoint(1e6, {100, 2}) == Approx(2e-6 + 1e6 / 100e9));
}

TEST_CASE("a hierarchical group reduces inside the domain, then 1/k of the data across")
{
    const LinkSpeed nvlink{720, 1};
    const LinkSpeed nic{95, 5};
    const HierarchicalGroup g{2, 128, nvlink, nic};
    const double bytes = 3.2e9;
    const double inner = ringReduceScatter(bytes, 2, nvlink);
    const double outer = ringReduceScatter(bytes / 2, 128, nic);
    CHECK(reduceScatter(bytes, g) == Approx(inner + outer));
    CHECK(reduceScatterScaleOut(bytes, g) == Approx(outer));
    CHECK(allGather(bytes, g) == Approx(inner + outer));
    CHECK(allReduce(bytes, g) == Approx(2 * inner + allReduce(bytes / 2, 128, nic).seconds));

    SECTION("inside one domain it is the flat collective on NVLink")
    {
        const HierarchicalGroup flat{8, 1, nvlink, nic};
        CHECK(reduceScatter(bytes, flat) == Approx(ringReduceScatter(bytes, 8, nvlink)));
        CHECK(reduceScatterScaleOut(bytes, flat) == 0);
        CHECK(allReduce(bytes, flat) == Approx(allReduce(bytes, 8, nvlink).seconds));
    }
    SECTION("more members per domain move less over the NICs")
    {
        const HierarchicalGroup wide{4, 64, nvlink, nic};
        CHECK(reduceScatterScaleOut(bytes, wide) < reduceScatterScaleOut(bytes, g));
    }
}

TEST_CASE("faster links never make a collective slower")
{
    for (double GBps : {10.0, 50.0, 100.0, 450.0}) {
        const LinkSpeed slow{GBps, 5};
        const LinkSpeed fast{GBps * 2, 5};
        for (int n : {2, 8, 64, 1024}) {
            CHECK(ringAllGather(1e8, n, fast) < ringAllGather(1e8, n, slow));
            CHECK(allReduce(1e8, n, fast).seconds < allReduce(1e8, n, slow).seconds);
        }
    }
}

namespace {

struct NvlsCase {
    const char* system;
    int n;
    double ringAlgbw; // nccl-tests all_reduce_perf, GB/s, NCCL issue #2140
    double nvlsAlgbw;
};

} // namespace

TEST_CASE("NVLink SHARP all-reduces about as much faster as NCCL measures it on one node")
{
    const NvlsCase cases[] = {{"8 x H100", 8, 211, 275}, {"8 x B300", 8, 397, 483}};
    for (const NvlsCase& c : cases) {
        INFO(c.system);
        // The link speed that makes the model's ring match the ring's measurement.
        const LinkSpeed link{c.ringAlgbw * 2 * (c.n - 1) / c.n, 0};
        const double bytes = 8e9;
        const double ring = ringAllReduce(bytes, c.n, link);
        CHECK(ring == Approx(bytes / (c.ringAlgbw * 1e9)));
        CHECK(ring / nvlsAllReduce(bytes, c.n, link) ==
              Approx(c.nvlsAlgbw / c.ringAlgbw).epsilon(0.05));
    }
}

TEST_CASE("NVLink SHARP serves all-reduces inside a domain only where it beats the ring")
{
    const LinkSpeed nvlink{360, 1};
    const LinkSpeed nic{40, 5};
    const double bytes = 1e9;
    for (int n : {2, 3, 4, 5, 8, 72}) {
        INFO(n << " GPUs in the domain");
        HierarchicalGroup g{n, 1, nvlink, nic};
        const double ring = allReduce(bytes, g);
        g.nvls = true;
        const double nvls = allReduce(bytes, g);
        // At 4 GPUs or fewer S (1 + 1/n) at NVLS's lower efficiency moves no faster.
        if (n <= 4)
            CHECK(nvls == Approx(ring));
        else
            CHECK(nvls < 0.95 * ring);
        CHECK(reduceScatter(bytes, g) == Approx(ringReduceScatter(bytes, n, nvlink)));
        CHECK(allGather(bytes, g) == Approx(ringAllGather(bytes, n, nvlink)));
    }
    // Across domains only the part inside each domain changes.
    HierarchicalGroup spread{8, 16, nvlink, nic};
    const double across = allReduce(bytes / 8, 16, nic).seconds;
    spread.nvls = true;
    CHECK(allReduce(bytes, spread) == Approx(nvlsAllReduce(bytes, 8, nvlink) + across));
}
