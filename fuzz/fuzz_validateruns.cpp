// validate-runs on a fuzzed measured-runs file, as text and as JSON: every row the rules keep
// is predicted and printed (huge and tiny step times, long and hostile ids); the exit status
// is 0 or 1, nothing is printed raw, and the JSON parses.

#include <fstream>

#include "clirunner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    csfuzz::emptyScratch();
    std::ofstream("runs.jsonl", std::ios::binary)
        << std::string_view(reinterpret_cast<const char*>(data), size);
    const int text = csfuzz::runChecked({"validate-runs", "runs.jsonl"});
    csfuzz::require(text != cs::cli::kExitUsage, "validate-runs refused its own words");
    std::ostringstream out, err;
    const int json = cs::cli::run({"validate-runs", "runs.jsonl", "--json"}, {out, err});
    csfuzz::require(json == text, "--json and text disagree on the exit status");
    if (!out.str().empty()) {
        cs::Diagnostics diags;
        csfuzz::require(cs::parseJson(out.str(), "out", diags).has_value(),
                        "validate-runs --json printed something that is not JSON", diags);
    }
    return 0;
}
