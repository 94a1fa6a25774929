#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>

#include "placement.h"
#include "samplefiles.h"

using namespace cs;

TEST_CASE("Fairwater: TP, CP and PP stay in a rack and DP spans all 128 racks", "[placement]")
{
    const LoadedFile f = loadSample("fairwater-gb200-128-llama405b.run.json");
    const Placement p = placeRun(*f.run, *f.cluster);
    REQUIRE(p.worldSize() == 8192);
    for (Dim d : {Dim::TP, Dim::CP, Dim::PP}) {
        INFO(toString(d));
        CHECK(p.dimension(d).insideDomain());
    }
    const DimensionPlacement& dp = p.dimension(Dim::DP);
    CHECK(dp.groups == 64);
    CHECK(dp.groupsCrossing == 64);
    CHECK(dp.maxDomainsPerGroup == 128);
    CHECK(dp.minMembersPerDomain == 1);
    // Every DP group has exactly one member in each rack.
    for (int rank : {0, 17, 63}) {
        std::set<int> racks;
        for (int m : p.groupMembers(rank, Dim::DP))
            racks.insert(m / 64);
        CHECK(racks.size() == 128);
    }
}

TEST_CASE("Each EP group holds every routed expert once, expert-DP groups hold the same block",
          "[placement][moe]")
{
    const LoadedFile f = loadSample("gb200-16-deepseek-v3-ep-across-racks.run.json");
    const Placement p = placeRun(*f.run, *f.cluster);
    const int experts = f.run->model.moe->experts;
    const int ep = p.size(Dim::EP);
    REQUIRE(ep > 1);
    for (int rank : {0, 1, 77, p.worldSize() - 1}) {
        INFO("rank " << rank);
        std::vector<int> held(size_t(experts), 0);
        for (int member : p.groupMembers(rank, Dim::EP)) {
            const ExpertRange r = expertsOfRank(p, f.run->model, member);
            CHECK(r.count == experts / ep);
            for (int e = r.first; e <= r.last(); ++e)
                ++held.at(size_t(e));
        }
        CHECK(std::count(held.begin(), held.end(), 1) == experts);
        const ExpertRange own = expertsOfRank(p, f.run->model, rank);
        for (int member : p.expertDataMembers(rank)) {
            CHECK(expertsOfRank(p, f.run->model, member).first == own.first);
            CHECK(p.expertDataIndex(member) == p.expertDataIndex(rank));
        }
    }
    std::set<int> groups;
    for (int rank = 0; rank < p.worldSize(); ++rank)
        groups.insert(p.expertDataIndex(rank));
    CHECK(int(groups.size()) == p.size(Dim::PP) * p.etp() * ep);
    CHECK(*groups.rbegin() == int(groups.size()) - 1);
}

TEST_CASE("A dense model holds no experts", "[placement][moe]")
{
    const LoadedFile f = loadSample("fairwater-gb200-128-llama405b.run.json");
    const Placement p = placeRun(*f.run, *f.cluster);
    CHECK(expertsOfRank(p, f.run->model, 5).count == 0);
}

TEST_CASE("ND H100 v5: TP inside one VM, PP across VMs", "[placement]")
{
    const LoadedFile f = loadSample("ndv5-h100-1344-gpt3-175b.run.json");
    const Placement p = placeRun(*f.run, *f.cluster);
    REQUIRE(p.worldSize() == 10752);
    CHECK(p.dimension(Dim::TP).insideDomain());
    CHECK_FALSE(p.dimension(Dim::PP).insideDomain());
    CHECK(p.dimension(Dim::PP).maxDomainsPerGroup == 4);
    CHECK(p.dimension(Dim::PP).minMembersPerDomain == 2);
    CHECK_FALSE(p.dimension(Dim::DP).insideDomain());
}

TEST_CASE("coordinates follow the placement order, innermost first", "[placement]")
{
    Parallelism par;
    par.tp = 2;
    par.cp = 3;
    par.pp = 4;
    struct Case {
        cs::PlacementOrder order;
        int rank;
        std::array<int, 4> coord; // tp, cp, pp, dp
    };
    const Case cases[] = {
        {{Dim::TP, Dim::CP, Dim::PP, Dim::DP}, 0, {0, 0, 0, 0}},
        {{Dim::TP, Dim::CP, Dim::PP, Dim::DP}, 1, {1, 0, 0, 0}},
        {{Dim::TP, Dim::CP, Dim::PP, Dim::DP}, 2, {0, 1, 0, 0}},
        {{Dim::TP, Dim::CP, Dim::PP, Dim::DP}, 6, {0, 0, 1, 0}},
        {{Dim::TP, Dim::CP, Dim::PP, Dim::DP}, 24, {0, 0, 0, 1}},
        {{Dim::TP, Dim::CP, Dim::PP, Dim::DP}, 47, {1, 2, 3, 1}},
        {{Dim::DP, Dim::PP, Dim::CP, Dim::TP}, 1, {0, 0, 0, 1}},
        {{Dim::DP, Dim::PP, Dim::CP, Dim::TP}, 2, {0, 0, 1, 0}},
        {{Dim::DP, Dim::PP, Dim::CP, Dim::TP}, 24, {1, 0, 0, 0}},
        {{Dim::TP, Dim::CP, Dim::DP, Dim::PP}, 6, {0, 0, 0, 1}},
        {{Dim::TP, Dim::CP, Dim::DP, Dim::PP}, 12, {0, 0, 1, 0}},
    };
    for (const Case& c : cases) {
        const Placement p(par, 2, c.order, 8);
        const RankCoord rc = p.coord(c.rank);
        INFO("rank " << c.rank);
        CHECK(std::array{rc[Dim::TP], rc[Dim::CP], rc[Dim::PP], rc[Dim::DP]} == c.coord);
        CHECK(p.rankOf(rc) == c.rank);
    }
}

TEST_CASE("groups partition the ranks and members differ only in their dimension", "[placement]")
{
    Parallelism par;
    par.tp = 4;
    par.cp = 2;
    par.pp = 3;
    const Placement p(par, 5, {Dim::TP, Dim::PP, Dim::DP, Dim::CP}, 8);
    for (Dim d : kAllDims) {
        std::vector<int> seen(size_t(p.worldSize()), 0);
        std::set<int> groupIds;
        for (int r = 0; r < p.worldSize(); ++r) {
            const std::vector<int> members = p.groupMembers(r, d);
            REQUIRE(int(members.size()) == p.size(d));
            for (int m : members) {
                REQUIRE(p.groupIndex(m, d) == p.groupIndex(r, d));
                for (Dim other : kAllDims)
                    if (other != d)
                        REQUIRE(p.coord(m)[other] == p.coord(r)[other]);
            }
            ++seen[size_t(members[0])];
            groupIds.insert(p.groupIndex(r, d));
        }
        CHECK(int(groupIds.size()) == p.groupCount(d));
        CHECK(*groupIds.rbegin() == p.groupCount(d) - 1);
    }
}

TEST_CASE("a dimension crosses domains only where its members do", "[placement]")
{
    Parallelism par;
    par.tp = 8;
    par.pp = 2;
    struct Case {
        int domainSize;
        bool tpInside, ppInside, dpInside;
    };
    const Case cases[] = {{8, true, false, false},
                          {16, true, true, false},
                          {64, true, true, true},
                          {4, false, false, false}};
    for (const Case& c : cases) {
        INFO("domain " << c.domainSize);
        const Placement p(par, 4, {Dim::TP, Dim::CP, Dim::PP, Dim::DP}, c.domainSize);
        CHECK(p.dimension(Dim::TP).insideDomain() == c.tpInside);
        CHECK(p.dimension(Dim::PP).insideDomain() == c.ppInside);
        CHECK(p.dimension(Dim::DP).insideDomain() == c.dpInside);
    }
}
