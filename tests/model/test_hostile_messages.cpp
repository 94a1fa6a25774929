// Hostile input of issue 35 that went wrong in the messages: a syntax error after megabytes of
// whitespace (item 7), megabytes of one value, key or path quoted whole (item 8), floods of
// repeated problems (item 9). Each through the command line in a bounded child process
// (helpers/bounded.h), as tests/model/test_hostile.cpp does.

#include <catch2/catch.hpp>

#include <algorithm>

#include "../helpers/bounded.h"
#include "clicommands.h"

using testing::BoundedRun;
using testing::ScratchDir;
using testing::writeContent;

namespace {

constexpr unsigned kSeconds = 120;

BoundedRun cli(const cs::cli::Args& args, long memoryMiB)
{
    return testing::runBounded(
        [&](std::ostream& out, std::ostream& err) {
            return cs::cli::run(args, {out, err});
        },
        memoryMiB, kSeconds);
}

size_t longestLine(const std::string& text)
{
    size_t longest = 0, start = 0;
    for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
        longest = std::max(longest, end - start);
        start = end + 1;
    }
    return std::max(longest, text.size() - start);
}

} // namespace

// nlohmann kept every character since the last value and, on the error, spelled each newline
// as "<U+000A>" in several copies: 24 MB of newlines cost about 800 MB, 63 MB cost 2.15 GB.
TEST_CASE("a syntax error after 24 MB of whitespace is found in bounded memory, at its line",
          "[hostile][json]")
{
    struct Case {
        const char* name;
        std::string before, run, after;
        const char* where;
    };
    constexpr size_t kRun = 24u << 20;
    const Case cases[] = {
        {"newlines", "", "\n", "x", ":25165825:1:"},
        {"CR LF", "", "\r\n", "x", ":12582913:1:"},
        {"tabs inside an object", "{\"a\": ", "\t", "x}", ":1:25165831:"},
        {"spaces, then a number too large", "[", " ", "1e999]", ":1:25165826:"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        ScratchDir dir;
        const std::string path = dir.path("ws.json");
        std::string text = c.before;
        while (text.size() < c.before.size() + kRun)
            text += c.run;
        writeContent(path, text + c.after);
        text.clear();
        text.shrink_to_fit();
        const BoundedRun r = cli({"check", path}, 256);
        INFO(r.describe());
        CHECK(r.clean());
        CHECK(r.status == 1);
        CHECK_THAT(r.out + r.err, Catch::Contains(path + c.where));
        CHECK(r.out.size() + r.err.size() < 1000);
    }
}
