#include "extensions.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace cs {

namespace {

const std::shared_ptr<const nlohmann::json>& emptyObject()
{
    static const auto empty = std::make_shared<const nlohmann::json>(nlohmann::json::object());
    return empty;
}

} // namespace

bool readByCostModel(std::string_view key)
{
    return std::any_of(std::begin(kModelExtensions), std::end(kModelExtensions),
                       [&](const ModelExtension& e) { return key == e.key; });
}

Extensions::Extensions()
    : m_value(emptyObject())
{
}

Extensions::Extensions(nlohmann::json object)
    : m_value(std::make_shared<const nlohmann::json>(std::move(object)))
{
}

bool Extensions::empty() const
{
    return m_value->empty();
}

bool Extensions::contains(const std::string& key) const
{
    return m_value->contains(key);
}

void Extensions::set(const std::string& key, const nlohmann::json& value)
{
    nlohmann::json changed = *m_value;
    changed[key] = value;
    m_value = std::make_shared<const nlohmann::json>(std::move(changed));
}

void Extensions::erase(const std::string& key)
{
    if (!contains(key))
        return;
    nlohmann::json changed = *m_value;
    changed.erase(key);
    m_value = std::make_shared<const nlohmann::json>(std::move(changed));
}

bool Extensions::operator==(const Extensions& other) const
{
    return m_value == other.m_value || *m_value == *other.m_value;
}

} // namespace cs
