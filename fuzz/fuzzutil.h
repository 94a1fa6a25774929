#pragma once
// Shared checks of the fuzz targets: whatever a loader accepts must survive a save and a load
// unchanged, as a session written by the application must load back into the same state.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "loader.h"
#include "validation.h"
#include "writer.h"

namespace csfuzz {

inline std::string_view asText(const uint8_t* data, size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

// Aborts (which libFuzzer reports with the input) when the condition does not hold.
inline void require(bool ok, const char* what, const cs::Diagnostics& diags = {})
{
    if (ok)
        return;
    std::fprintf(stderr, "fuzz check failed: %s\n%s", what, diags.formatAll().c_str());
    std::abort();
}

// Writes the value as the application saves it and parses the text back.
inline nlohmann::json reparsed(const nlohmann::json& value, cs::Diagnostics& diags)
{
    const std::optional<nlohmann::json> j = cs::parseJson(value.dump(2), "roundtrip", diags);
    require(j.has_value(), "a written description does not parse", diags);
    return *j;
}

} // namespace csfuzz
