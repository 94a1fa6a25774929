// Session files: parse, build the session (cluster, run, compare, view, bookmarks) and, when
// accepted, check that it loads back into the same state.

#include "fuzzutil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    cs::Diagnostics diags;
    const std::optional<nlohmann::json> j = cs::parseJson(csfuzz::asText(data, size), "f", diags);
    if (!j)
        return 0;
    const std::optional<cs::Session> s = cs::sessionFromJson(*j, "f", diags);
    csfuzz::require(s.has_value() == diags.empty(), "acceptance disagrees with diagnostics", diags);
    if (!s)
        return 0;
    cs::Diagnostics again;
    const auto back = cs::sessionFromJson(csfuzz::reparsed(cs::toJson(*s), again), "f", again);
    csfuzz::require(back && *back == *s, "a saved session does not load back the same", again);
    return 0;
}
