#include "jsonfields.h"

#include <cmath>
#include <cstdio>

namespace cs {

using nlohmann::json;

std::string jsonTypeName(const json& j)
{
    switch (j.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::string:
        return "a string";
    case json::value_t::array:
        return "an array";
    case json::value_t::object:
        return "an object";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
        return "a number";
    default:
        return "binary data";
    }
}

std::string pointerToken(const std::string& key)
{
    std::string token;
    for (char c : key) {
        if (c == '~')
            token += "~0";
        else if (c == '/')
            token += "~1";
        else
            token += c;
    }
    return token;
}

bool isExtensionKey(const std::string& key)
{
    return key == "notes" || key.rfind("x-", 0) == 0;
}

FieldReader::FieldReader(const json& object, std::string file, std::string pointer,
                         Diagnostics& diags)
    : m_object(object)
    , m_file(std::move(file))
    , m_pointer(std::move(pointer))
    , m_diags(diags)
{
}

std::string FieldReader::pointerOf(const std::string& key) const
{
    return m_pointer + "/" + pointerToken(key);
}

void FieldReader::error(const std::string& key, std::string message)
{
    m_diags.atPointer(m_file, pointerOf(key), std::move(message));
}

const json* FieldReader::find(const std::string& key, Need need)
{
    m_read.insert(key);
    if (m_object.is_object()) {
        const auto it = m_object.find(key);
        if (it != m_object.end())
            return &*it;
    }
    if (need == Need::Required)
        error(key, "missing required key " + inQuotes(key));
    return nullptr;
}

bool FieldReader::typeError(const std::string& key, const char* expected, const json& value)
{
    error(key, std::string("expected ") + expected + ", got " + jsonTypeName(value));
    return false;
}

bool FieldReader::readInt(const std::string& key, int& out, int min, int max, Need need)
{
    const json* value = find(key, need);
    if (!value)
        return need == Need::Optional;
    if (!value->is_number())
        return typeError(key, "an integer", *value);
    const std::string range =
        "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got ";
    if (value->is_number_integer()) {
        // An unsigned value beyond int64 is clamped so that no conversion overflows.
        const bool huge =
            value->is_number_unsigned() && value->get<uint64_t>() > uint64_t(INT64_MAX);
        const int64_t v = huge ? INT64_MAX : value->get<int64_t>();
        if (v < min || v > max) {
            error(key, range + value->dump());
            return false;
        }
        out = int(v);
        return true;
    }
    const double v = value->get<double>();
    if (!std::isfinite(v)) {
        error(key, "must be a finite number");
        return false;
    }
    if (v != std::floor(v)) {
        error(key, "expected an integer, got " + numberText(v));
        return false;
    }
    if (v < min || v > max) {
        error(key, range + numberText(v));
        return false;
    }
    out = int(v);
    return true;
}

bool FieldReader::readNumber(const std::string& key, double& out, double min, double max, Need need)
{
    const json* value = find(key, need);
    if (!value)
        return need == Need::Optional;
    if (!value->is_number())
        return typeError(key, "a number", *value);
    const double v = value->get<double>();
    if (!std::isfinite(v)) {
        error(key, "must be a finite number");
        return false;
    }
    if (v < min || v > max) {
        error(key, "must be between " + numberText(min) + " and " + numberText(max) + ", got " +
                       numberText(v));
        return false;
    }
    out = v;
    return true;
}

bool FieldReader::readString(const std::string& key, std::string& out, Need need)
{
    const json* value = find(key, need);
    if (!value)
        return need == Need::Optional;
    if (!value->is_string())
        return typeError(key, "a string", *value);
    out = value->get<std::string>();
    return true;
}

bool FieldReader::readBool(const std::string& key, bool& out, Need need)
{
    const json* value = find(key, need);
    if (!value)
        return need == Need::Optional;
    if (!value->is_boolean())
        return typeError(key, "true or false", *value);
    out = value->get<bool>();
    return true;
}

bool FieldReader::readWord(const std::string& key, std::string& out,
                           const std::vector<std::string>& words, Need need)
{
    std::string word;
    if (!readString(key, word, need))
        return false;
    if (!m_object.contains(key))
        return true;
    for (const std::string& allowed : words) {
        if (word == allowed) {
            out = word;
            return true;
        }
    }
    std::string list;
    for (const std::string& allowed : words)
        list += (list.empty() ? "" : ", ") + allowed;
    error(key, "must be one of " + list + "; got " + inQuotes(word));
    return false;
}

const json* FieldReader::readObject(const std::string& key, Need need)
{
    const json* value = find(key, need);
    if (value && !value->is_object()) {
        typeError(key, "an object", *value);
        return nullptr;
    }
    return value;
}

const json* FieldReader::readArray(const std::string& key, Need need)
{
    const json* value = find(key, need);
    if (value && !value->is_array()) {
        typeError(key, "an array", *value);
        return nullptr;
    }
    return value;
}

void FieldReader::reportUnknownKeys()
{
    if (!m_object.is_object())
        return;
    for (const auto& [key, value] : m_object.items()) {
        if (!m_read.count(key) && !isExtensionKey(key))
            error(key, "unknown key " + inQuotes(key));
    }
}

json FieldReader::extensions() const
{
    json kept = json::object();
    if (!m_object.is_object())
        return kept;
    for (const auto& [key, value] : m_object.items()) {
        if (isExtensionKey(key))
            kept[key] = value;
    }
    return kept;
}

} // namespace cs
