#pragma once
// Reading the fields of one JSON object of a description, with every problem reported at its
// JSON pointer in the words formats.md users read: what was expected and what was found.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnostics.h"
#include "text.h"

namespace cs {

enum class Need { Optional, Required };

// "a string", "an array", ... as used in "expected an integer, got a string".
std::string jsonTypeName(const nlohmann::json& j);
// A key escaped as one JSON pointer token (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string pointerToken(const std::string& key);
// True for the keys allowed anywhere: "notes" and "x-*".
bool isExtensionKey(const std::string& key);

class FieldReader {
public:
    // The object must outlive the reader.
    FieldReader(const nlohmann::json& object, std::string file, std::string pointer,
                Diagnostics& diags);

    const std::string& pointer() const { return m_pointer; }
    std::string pointerOf(const std::string& key) const;
    void error(const std::string& key, std::string message);

    // Each returns false when the key is present but wrong, or required and missing; `out`
    // is then left as it was.
    bool readInt(const std::string& key, int& out, int min, int max, Need need);
    bool readNumber(const std::string& key, double& out, double min, double max, Need need);
    bool readString(const std::string& key, std::string& out, Need need);
    bool readBool(const std::string& key, bool& out, Need need);
    bool readWord(const std::string& key, std::string& out, const std::vector<std::string>& words,
                  Need need);
    // The member when present with the right type; nullptr (and a problem reported when it
    // is required or of the wrong type) otherwise.
    const nlohmann::json* readObject(const std::string& key, Need need);
    const nlohmann::json* readArray(const std::string& key, Need need);
    // The member, whatever its type; nullptr when absent (reported when required).
    const nlohmann::json* find(const std::string& key, Need need);

    // Reports every key that was not read and is not an extension key.
    void reportUnknownKeys();
    // The `notes` and `x-*` members, verbatim.
    nlohmann::json extensions() const;

private:
    bool typeError(const std::string& key, const char* expected, const nlohmann::json& value);

    const nlohmann::json& m_object;
    std::string m_file;
    std::string m_pointer;
    Diagnostics& m_diags;
    std::set<std::string> m_read;
};

} // namespace cs
