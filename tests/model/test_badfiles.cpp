// Every malformed file in tests/data/bad must be refused with the message EXPECTED.tsv names,
// located, without throwing, both by loadFile and by `clusterscope-cli check`.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "clicommands.h"
#include "loader.h"

namespace {

const std::string kBadDir = std::string(CS_TEST_DATA_DIR) + "/bad";

std::map<std::string, std::string> expectedMessages()
{
    std::map<std::string, std::string> expected;
    std::ifstream in(kBadDir + "/EXPECTED.tsv");
    std::string line;
    while (std::getline(in, line)) {
        const size_t tab = line.find('\t');
        if (tab != std::string::npos)
            expected[line.substr(0, tab)] = line.substr(tab + 1);
    }
    return expected;
}

std::vector<std::string> badFiles()
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(kBadDir)) {
        if (entry.path().filename() != "EXPECTED.tsv")
            names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool located(const cs::Diagnostic& d)
{
    if (d.line > 0)
        return d.column > 0;
    // Only a document that is not an object at all is located at the whole document.
    return !d.pointer.empty() || d.message.find("the top level") != std::string::npos;
}

} // namespace

TEST_CASE("the bad-file set is large and fully described", "[badfiles]")
{
    const auto expected = expectedMessages();
    const auto files = badFiles();
    CHECK(files.size() >= 35);
    CHECK(expected.size() == files.size());
    for (const std::string& name : files) {
        INFO(name);
        CHECK(expected.count(name) == 1);
    }
}

TEST_CASE("every bad file is refused with its located message", "[badfiles]")
{
    const auto expected = expectedMessages();
    for (const std::string& name : badFiles()) {
        const std::string path = kBadDir + "/" + name;
        const std::string message = expected.count(name) ? expected.at(name) : "(no EXPECTED line)";
        cs::Diagnostics diags;
        std::optional<cs::LoadedFile> loaded;
        INFO(name);
        REQUIRE_NOTHROW(loaded = cs::loadFile(path, diags));
        CHECK_FALSE(loaded);
        INFO(diags.formatAll());
        const auto& items = diags.items();
        const auto match = std::find_if(items.begin(), items.end(), [&](const cs::Diagnostic& d) {
            return d.message.find(message) != std::string::npos;
        });
        REQUIRE(match != items.end());
        CHECK(match->file == path);
        CHECK(located(*match));
        for (const cs::Diagnostic& d : items)
            CHECK(located(d));
    }
}

TEST_CASE("check exits 1 on every bad file, each line naming the file", "[badfiles][cli]")
{
    for (const std::string& name : badFiles()) {
        const std::string path = kBadDir + "/" + name;
        std::ostringstream out, err;
        INFO(name);
        CHECK(cs::cli::runCheck({path}, {out, err}) == cs::cli::kExitBadInput);
        std::istringstream lines(out.str() + err.str());
        std::string line;
        int count = 0;
        while (std::getline(lines, line)) {
            INFO(line);
            CHECK(line.rfind(path + ":", 0) == 0);
            ++count;
        }
        CHECK(count > 0);
    }
}
