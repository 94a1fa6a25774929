// Cluster files: parse, build the description and, when accepted, its round trip.

#include "fuzzutil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    cs::Diagnostics diags;
    const std::optional<nlohmann::json> j = cs::parseJson(csfuzz::asText(data, size), "f", diags);
    if (!j)
        return 0;
    const std::optional<cs::ClusterDesc> c = cs::clusterFromJson(*j, "f", "", diags);
    csfuzz::require(c.has_value() == diags.empty(), "acceptance disagrees with diagnostics", diags);
    if (!c)
        return 0;
    cs::Diagnostics again;
    const auto back = cs::clusterFromJson(csfuzz::reparsed(cs::toJson(*c), again), "f", "", again);
    csfuzz::require(back && *back == *c, "a saved cluster does not load back the same", again);
    return 0;
}
