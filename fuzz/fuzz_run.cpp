// Run files: parse, build the description, the run's own semantic rules and the round trip.

#include "fuzzutil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    cs::Diagnostics diags;
    const std::optional<nlohmann::json> j = cs::parseJson(csfuzz::asText(data, size), "f", diags);
    if (!j)
        return 0;
    const std::optional<cs::RunDesc> r = cs::runFromJson(*j, "f", "", diags);
    csfuzz::require(r.has_value() == diags.empty(), "acceptance disagrees with diagnostics", diags);
    if (!r)
        return 0;
    // The search calls the shape rules on structs the loader built; they must hold for any.
    cs::Diagnostics shape;
    cs::checkRunShape(*r, "f", "", shape);
    cs::Diagnostics again;
    const auto back = cs::runFromJson(csfuzz::reparsed(cs::toJson(*r), again), "f", "", again);
    csfuzz::require(back && *back == *r, "a saved run does not load back the same", again);
    return 0;
}
