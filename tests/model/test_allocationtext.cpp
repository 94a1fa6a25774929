// An allocation in words (model/description/allocationtext.h), as the CLI, the Jobs dock, Place
// Job and the Properties panel print it and read it back: every printed allocation parses to
// itself, and text that is no allocation is refused with a reason naming what is wrong.

#include <catch2/catch.hpp>

#include "allocationtext.h"

using namespace cs;
using Unit = Allocation::Unit;

TEST_CASE("allocations typed: the allocation read, and printed in its own words",
          "[jobs][allocationtext]")
{
    struct Case {
        const char* typed;
        Allocation expected;
        const char* printed;
    };
    const Case c = GENERATE(values<Case>({
        {"racks 0-7", {Unit::Racks, {{0, 7}}}, "racks 0-7"},
        {"racks 0-3, 8-11, 16", {Unit::Racks, {{0, 3}, {8, 11}, {16, 16}}}, "racks 0-3, 8-11, 16"},
        {" Nodes 4 - 9 ", {Unit::Nodes, {{4, 9}}}, "nodes 4-9"},
        {"node 12", {Unit::Nodes, {{12, 12}}}, "node 12"},
        {"RACK\t3", {Unit::Racks, {{3, 3}}}, "rack 3"},
        {"racks 5,5", {Unit::Racks, {{5, 5}, {5, 5}}}, "racks 5, 5"},
        {"nodes 0-0,2", {Unit::Nodes, {{0, 0}, {2, 2}}}, "nodes 0, 2"},
        {"racks 999999999", {Unit::Racks, {{999999999, 999999999}}}, "rack 999999999"},
    }));
    INFO(c.typed);
    std::string why;
    const auto parsed = parseAllocation(c.typed, &why);
    REQUIRE(parsed);
    CHECK(why.empty());
    CHECK(*parsed == c.expected);
    CHECK(allocationText(*parsed) == c.printed);
    CHECK(parseAllocation(allocationText(*parsed), nullptr) == parsed); // shown, read back
}

TEST_CASE("a run without an allocation holds the whole cluster, in words", "[jobs][allocationtext]")
{
    CHECK(allocationText(std::optional<Allocation>()) == "the whole cluster");
    CHECK(allocationText(std::optional<Allocation>(Allocation{Unit::Racks, {{8, 15}}})) ==
          "racks 8-15");
}

TEST_CASE("text that is no allocation is refused, saying what is wrong", "[jobs][allocationtext]")
{
    struct Case {
        const char* typed;
        const char* reason; // a part of the reason given
    };
    const Case c = GENERATE(values<Case>({
        {"", "begin with \"racks\" or \"nodes\""},
        {"gpus 0-7", "begin with \"racks\" or \"nodes\""},
        {"0-7", "begin with \"racks\" or \"nodes\""},
        {"racks", "at least one index or range first-last after \"racks\""},
        {"nodes   ", "after \"nodes\""},
        {"racks 7-3", "the range 7-3 ends before it begins"},
        {"racks 0-3,", "an empty place between commas"},
        {"racks ,1", "an empty place between commas"},
        {"racks 0-3,,4", "an empty place between commas"},
        {"racks -1", "\"-1\" is not an index or a range first-last"},
        {"racks 1-", "\"1-\" is not an index"},
        {"racks 1-2-3", "\"1-2-3\" is not an index"},
        {"racks a", "\"a\" is not an index"},
        {"racks 1 2", "\"1 2\" is not an index"},
        {"racks 1234567890", "\"1234567890\" is not an index or a range first-last (at most 9"},
        {"racks 0x10", "\"0x10\" is not an index"},
        {"racks \x1b[2J", "\"\\x1b[2J\" is not an index"},
    }));
    INFO(c.typed);
    std::string why;
    CHECK_FALSE(parseAllocation(c.typed, &why));
    INFO(why);
    CHECK(why.find(c.reason) != std::string::npos);
    CHECK_FALSE(parseAllocation(c.typed, nullptr)); // the reason is optional
}
