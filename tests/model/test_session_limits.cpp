// Issue 35, item 2: the limits agree. Whatever loads as parts loads as the whole (a session's
// limits are its parts' at their own), and checkReadsBack refuses, with the reason, what a writer
// is about to write and its reader would refuse.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "../helpers/datasafety.h"
#include "importreport.h"
#include "loader.h"
#include "samplefiles.h"
#include "writer.h"

using nlohmann::json;

namespace {

// Values in a document, as parseJson counts them.
int64_t valuesIn(const json& j)
{
    int64_t n = 1;
    if (j.is_structured()) {
        for (const json& child : j)
            n += valuesIn(child);
    }
    return n;
}

std::string fileText(const json& j)
{
    return j.dump(2) + "\n";
}

cs::Session sampleSession()
{
    return *loadSample("gb200-16-deepseek-v3.csession").session;
}

// The run with measured step times that make its file hold exactly `values` JSON values.
cs::RunDesc runOfValues(cs::RunDesc run, int64_t values)
{
    run.extensions.set(cs::kMeasuredStepTimesKey, json::array());
    const int64_t others = valuesIn(cs::toJson(run));
    run.extensions.set(cs::kMeasuredStepTimesKey,
                       std::vector<double>(size_t(values - others), 1.25));
    return run;
}

// The description with notes that make its file exactly `bytes` long ('n' needs no escape).
template <typename Desc> Desc withFileBytes(Desc desc, size_t bytes)
{
    desc.extensions.set("notes", "");
    const size_t others = fileText(cs::toJson(desc)).size();
    desc.extensions.set("notes", std::string(bytes - others, 'n'));
    return desc;
}

} // namespace

TEST_CASE("a session's limits are its parts' at their own", "[limits][session]")
{
    STATIC_REQUIRE(cs::kSessionParts == 5 + cs::kSessionJobParts);
    STATIC_REQUIRE(cs::kMaxSessionBytes >= cs::kSessionParts * cs::kMaxFileBytes);
    CHECK(cs::byteLimitOf("a/b.csession") == cs::kMaxSessionBytes);
    CHECK(cs::byteLimitOf("a/b.cluster.json") == cs::kMaxFileBytes);
    CHECK(cs::byteLimitOf("a/b.jsonl") == cs::kMaxFileBytes);
}

TEST_CASE("two runs at the JSON value limit each make a session that loads again",
          "[limits][session]")
{
    cs::Session session = sampleSession();
    const cs::RunDesc atLimit = runOfValues(session.run, cs::kMaxJsonValues);
    REQUIRE(valuesIn(cs::toJson(atLimit)) == cs::kMaxJsonValues);
    session.run = atLimit;
    session.compare = cs::ClusterRun{session.cluster, atLimit};

    cs::Diagnostics diags;
    const auto j = cs::parseJson(fileText(cs::toJson(session)), "full.csession", diags);
    INFO(diags.formatAll());
    REQUIRE(j);
    CHECK(cs::sessionFromJson(*j, "full.csession", diags) == session);
}

TEST_CASE("a part one value over its limit is refused in a session too", "[limits][session]")
{
    cs::Session session = sampleSession();
    const cs::RunDesc over = runOfValues(session.run, cs::kMaxJsonValues + 1);
    session.compare = cs::ClusterRun{session.cluster, over};
    cs::Diagnostics inSession;
    CHECK_FALSE(cs::checkReadsBack(fileText(cs::toJson(session)), "s.csession", inSession));
    REQUIRE(inSession.size() == 1);
    INFO(inSession.formatAll());
    CHECK(inSession.items()[0].pointer.starts_with("/compare/run"));
    CHECK(inSession.contains("in one part of a session"));
}

// The session held a cluster and a run of 35 MB each; a cluster at the byte limit alone
// makes the session larger than a part may be, which is what has to open again (the sum of the
// limits is checked above; building more parts at 64 MiB would only make the test slow).
TEST_CASE("a session holding a cluster at the byte limit is saved and opens again",
          "[limits][session]")
{
    testing::ScratchDir dir;
    const std::string path = dir.path("big.csession");
    cs::Session session = sampleSession();
    session.cluster = withFileBytes(session.cluster, cs::kMaxFileBytes);
    {
        const std::string text = fileText(cs::toJson(session));
        REQUIRE(text.size() > cs::kMaxFileBytes);
        testing::writeContent(path, text);
    }
    cs::Diagnostics diags;
    const auto loaded = cs::loadFile(path, diags);
    INFO(diags.formatAll());
    REQUIRE(loaded);
    CHECK(*loaded->session == session);
}

TEST_CASE("checkReadsBack refuses what the reader would, saying why", "[limits][readsback]")
{
    const cs::Session session = sampleSession();
    const std::string cluster = fileText(cs::toJson(session.cluster));
    const std::string run = fileText(cs::toJson(session.run));
    struct Case {
        const char* name;
        std::string text;
        std::string path;
        const char* reason; // nullptr: reads back
    };
    json noLayers = cs::toJson(session.run);
    noLayers["model"].erase("layers");
    const std::vector<Case> cases = {
        {"a cluster", cluster, "c.json", nullptr},
        {"a run", run, "r.json", nullptr},
        {"a session", fileText(cs::toJson(session)), "s.csession", nullptr},
        {"another kind of JSON (a calibration)", "{\"constants\": {}}", "k.json", nullptr},
        {"a byte over a cluster's limit", cluster + std::string(cs::kMaxFileBytes, ' '), "c.json",
         "it would be larger than 64 MiB"},
        {"a cluster past the part's limit under a session's name",
         cluster + std::string(cs::kMaxFileBytes, ' '), "c.csession", "larger than 64 MiB"},
        {"a missing field", fileText(noLayers), "r.json", "missing required key \"layers\""},
        {"a syntax error", run + "}", "r.json", "expected end of input"},
        {"a measured-runs row without its fields", "{\"id\": \"x\"}\n", "m.jsonl", "missing"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        cs::Diagnostics diags;
        const bool readsBack = cs::checkReadsBack(c.text, c.path, diags);
        INFO(diags.formatAll());
        CHECK(readsBack == (c.reason == nullptr));
        if (c.reason) {
            CHECK(diags.contains(c.reason));
            CHECK(diags.items()[0].file.starts_with(c.path)); // measured runs: "FILE:LINE"
        }
    }
}

TEST_CASE("a part nests as deep in a session as in a file of its own", "[limits][session]")
{
    const auto nested = [](int levels) {
        json value = json::array();
        for (int i = 1; i < levels; ++i)
            value = json::array({value});
        return value;
    };
    const cs::Session session = sampleSession();
    for (const int levels : {cs::kMaxJsonDepth - 1, cs::kMaxJsonDepth}) {
        INFO(levels << " levels under the cluster's root");
        const bool fits = levels < cs::kMaxJsonDepth;
        json cluster = cs::toJson(session.cluster);
        cluster["x-deep"] = nested(levels);
        json whole = cs::toJson(session);
        whole["compare"] = {{"cluster", cluster}, {"run", cs::toJson(session.run)}};
        cs::Diagnostics asFile, inSession;
        CHECK(cs::checkReadsBack(fileText(cluster), "deep.cluster.json", asFile) == fits);
        CHECK(cs::checkReadsBack(fileText(whole), "deep.csession", inSession) == fits);
        if (!fits) {
            REQUIRE(inSession.size() == 1);
            CHECK(inSession.contains("nested deeper than 64 levels"));
            // At the bracket that opens the level too many, in the session's own lines.
            const std::string text = fileText(whole);
            size_t line = 1;
            for (size_t i = 0, opened = 0; i < text.size(); ++i) {
                line += text[i] == '\n';
                if (text[i] == '[' && text.compare(i, 2, "[]") == 0 && ++opened)
                    break;
            }
            CHECK(inSession.items()[0].line == int(line));
        }
    }
}
