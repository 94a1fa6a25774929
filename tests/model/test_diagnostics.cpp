// Diagnostics keep the first few problems of each kind and count the rest in one line, so that
// no input floods the output or the memory (issue 35, item 9).

#include <catch2/catch.hpp>

#include "diagnostics.h"

namespace {

size_t linesWith(const std::string& text, const std::string& part)
{
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

} // namespace

TEST_CASE("problems of three kinds interleaved keep five each and one line for the rest",
          "[diagnostics]")
{
    cs::Diagnostics diags;
    for (int i = 0; i < 100; ++i) {
        diags.atPointer("a.json", "/k" + std::to_string(i),
                        "unknown key \"k" + std::to_string(i) + "\"");
        diags.atPosition("log.txt", i + 1, 3, "step " + std::to_string(i) + " ignored");
        diags.atPointer("b.json", "", "unknown key \"k" + std::to_string(i) + "\"");
    }
    CHECK(diags.size() == 300);
    CHECK(diags.items().size() == 3 * cs::Diagnostics::kShownPerKind + 3);
    const std::string text = diags.formatAll();
    CHECK(linesWith(text, "a.json: /k") == 6); // five problems and the line for the rest
    CHECK(linesWith(text, "log.txt:") == 6); // five problems and the line for the rest
    CHECK(text.find("a.json: /k4: unknown key \"k4\"\n") != std::string::npos);
    // Each located where the first problem not shown is.
    for (const char* summary :
         {"a.json: /k5: and 95 more like it\n", "log.txt:6:3: and 95 more like it\n",
          "b.json: and 95 more like it\n"})
        CHECK(linesWith(text, summary) == 1);
}

TEST_CASE("what makes problems alike: the file, and the message but its quotes and numbers",
          "[diagnostics]")
{
    struct Case {
        const char* file1;
        const char* message1;
        const char* file2;
        const char* message2;
        bool alike;
    };
    const Case cases[] = {
        {"f", "duplicate key \"x\"", "f", "duplicate key \"a b c\"", true},
        {"f", "must be from 1 to 1,024, got 0.5", "f", "must be from 2 to 8, got 12", true},
        {"f", "duplicate key \"x\"", "g", "duplicate key \"x\"", false},
        {"f", "duplicate key \"x\"", "f", "unknown key \"x\"", false},
        {"m.jsonl:12", "missing \"id\"", "m.jsonl:13", "missing \"id\"", true},
    };
    for (const Case& c : cases) {
        INFO(c.message1 << " / " << c.message2);
        cs::Diagnostics diags;
        for (size_t i = 0; i < cs::Diagnostics::kShownPerKind; ++i)
            diags.atPointer(c.file1, "", c.message1);
        diags.atPointer(c.file2, "", c.message2);
        CHECK(diags.size() == cs::Diagnostics::kShownPerKind + 1);
        CHECK(diags.contains("more like it") == c.alike);
    }
}

TEST_CASE("size counts every problem, folded or not, so callers see new ones", "[diagnostics]")
{
    cs::Diagnostics diags;
    for (int i = 0; i < 20; ++i) {
        const size_t before = diags.size();
        diags.atPointer("f", "", "duplicate key \"a\"");
        CHECK(diags.size() == before + 1);
    }
    CHECK_FALSE(diags.empty());
    cs::Diagnostics all;
    all.atPointer("f", "", "unknown key \"b\"");
    all.append(diags);
    CHECK(all.size() == 21);
    CHECK(all.contains("and 15 more like it"));
    CHECK(all.items().size() == 1 + 5 + 1);
}

TEST_CASE("problems of ever new kinds are kept up to a bound, the rest counted", "[diagnostics]")
{
    cs::Diagnostics diags;
    std::string word = "a";
    for (int i = 0; i < 3000; ++i) {
        diags.atPointer("f", "", "problem " + word);
        word = word.back() == 'z' ? word + "a"
                                  : word.substr(0, word.size() - 1) + char(word.back() + 1);
    }
    CHECK(diags.size() == 3000);
    CHECK(diags.items().size() == cs::Diagnostics::kMaxKept + 1);
    CHECK(diags.items().back().format() == "and 2,000 more problems");
}

TEST_CASE("a message quoting megabytes keeps a short excerpt of each", "[diagnostics]")
{
    cs::Diagnostics diags;
    const std::string path(5000, 'p');
    diags.atPointer(path, "/" + std::string(100000, 'k'),
                    "number too large: '" + std::string(100000, '9') + "'");
    const std::string line = diags.items()[0].format();
    CHECK(line.size() < 600);
    CHECK(line.find("ppp...ppp") != std::string::npos);
    CHECK(line.find("kkk...kkk") != std::string::npos);
    CHECK(line.find("999...999") != std::string::npos);
}
