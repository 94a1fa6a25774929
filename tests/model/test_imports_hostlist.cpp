// Slurm hostlists expand as Slurm expands them, and what is not a hostlist is refused.

#include <catch2/catch.hpp>

#include "hostlist.h"

using namespace cs;

namespace {

std::vector<std::string> expand(const std::string& text, size_t limit = 1000)
{
    std::string problem;
    const auto hosts = expandHostlist(text, limit, problem);
    INFO(problem);
    REQUIRE(hosts);
    return *hosts;
}

std::string hostlistRefusal(const std::string& text, size_t limit = 1000)
{
    std::string problem;
    CHECK_FALSE(expandHostlist(text, limit, problem));
    return problem;
}

} // namespace

TEST_CASE("a hostlist range keeps the zero padding of its first number", "[imports][hostlist]")
{
    const auto hosts = expand("gpu[001-032,040]");
    REQUIRE(hosts.size() == 33);
    CHECK(hosts.front() == "gpu001");
    CHECK(hosts[31] == "gpu032");
    CHECK(hosts.back() == "gpu040");
    CHECK(expand("n[8-11]") == std::vector<std::string>{"n8", "n9", "n10", "n11"});
    CHECK(expand("n[098-101]") == std::vector<std::string>{"n098", "n099", "n100", "n101"});
}

TEST_CASE("hostlist items, bracket groups and suffixes", "[imports][hostlist]")
{
    CHECK(expand("a,b[1-2],c") == std::vector<std::string>{"a", "b1", "b2", "c"});
    CHECK(expand("rack[1-2]-tray[01-03]") ==
          std::vector<std::string>{"rack1-tray01", "rack1-tray02", "rack1-tray03", "rack2-tray01",
                                   "rack2-tray02", "rack2-tray03"});
    CHECK(expand("node[1,3]-ib") == std::vector<std::string>{"node1-ib", "node3-ib"});
    CHECK(expand("single") == std::vector<std::string>{"single"});
}

TEST_CASE("what is not a hostlist is refused, saying why", "[imports][hostlist]")
{
    CHECK(hostlistRefusal("gpu[010-001]").find("runs backwards") != std::string::npos);
    CHECK(hostlistRefusal("gpu[001-004").find("brackets do not match") != std::string::npos);
    CHECK(hostlistRefusal("gpu001]").find("brackets do not match") != std::string::npos);
    CHECK(hostlistRefusal("gpu[a-c]").find("is not a number") != std::string::npos);
    CHECK(hostlistRefusal("gpu[1-2] gpu3").find("no spaces") != std::string::npos);
    CHECK(hostlistRefusal("a,,b").find("empty host name") != std::string::npos);
    CHECK(hostlistRefusal("r[[1-2]]").find("do not nest") != std::string::npos);
}

TEST_CASE("a hostlist naming more hosts than allowed is refused before it is expanded",
          "[imports][hostlist]")
{
    CHECK(hostlistRefusal("n[0-99999999999999]", 131072).find("more than 131072 hosts") !=
          std::string::npos);
    CHECK(hostlistRefusal("a[0-999]b[0-999]", 131072).find("more than 131072 hosts") !=
          std::string::npos);
    CHECK(expand("n[1-4]", 4).size() == 4);
    CHECK(hostlistRefusal("n[1-5]", 4).find("more than 4 hosts") != std::string::npos);
}
