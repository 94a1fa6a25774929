// The names of switches and links, written and read back. Names are built from indices on
// demand, so that a cluster of 131,072 GPUs keeps no strings for its 1.3 million links.

#include <algorithm>
#include <charconv>

#include "topology.h"

namespace cs {

namespace {

// Reads a name of words and decimal numbers exactly as the topology writes them: no signs,
// no spaces, no leading zeros.
class NameReader {
public:
    explicit NameReader(std::string_view text)
        : m_text(text)
    {
    }

    bool word(std::string_view w)
    {
        if (m_text.substr(m_pos, w.size()) != w)
            return false;
        m_pos += w.size();
        return true;
    }

    std::optional<int> number()
    {
        const size_t start = m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9')
            ++m_pos;
        const size_t length = m_pos - start;
        if (length == 0 || length > 9 || (length > 1 && m_text[start] == '0'))
            return std::nullopt;
        int value = 0;
        std::from_chars(m_text.data() + start, m_text.data() + m_pos, value);
        return value;
    }

    bool atEnd() const { return m_pos == m_text.size(); }

private:
    std::string_view m_text;
    size_t m_pos = 0;
};

// "leaf12" -> tier 1, index 12 (no check that it exists).
std::optional<std::pair<int, int>> readSwitchWord(NameReader& r)
{
    for (int tier = 1; tier <= 3; ++tier) {
        if (!r.word(switchTierName(tier)))
            continue;
        if (const std::optional<int> n = r.number())
            return std::make_pair(tier, *n);
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

std::string_view switchTierName(int tier)
{
    static constexpr std::array<std::string_view, 4> kWords{"", "leaf", "spine", "core"};
    return kWords[size_t(std::clamp(tier, 0, 3))];
}

std::string Topology::switchName(int sw) const
{
    const Switch& s = m_switches[size_t(sw)];
    return std::string(switchTierName(s.tier)) + std::to_string(s.index);
}

std::string Topology::nvSwitchName(int i) const
{
    const NvSwitch& s = m_nvSwitches[size_t(i)];
    return "nvsw-d" + std::to_string(s.domain) + "-" + std::to_string(s.indexInDomain);
}

std::string Topology::linkName(int link) const
{
    const Link& l = m_links[size_t(link)];
    switch (l.cls) {
    case LinkClass::NVLink:
        return "nvl" + std::to_string(l.a.index) + "-" +
               std::to_string(m_nvSwitches[size_t(l.b.index)].indexInDomain);
    case LinkClass::ScaleOut1:
        return "nic" + std::to_string(l.a.index);
    case LinkClass::ScaleOut2:
    case LinkClass::ScaleOut3:
        break;
    }
    return switchName(l.a.index) + "-" + switchName(l.b.index);
}

std::optional<Endpoint> Topology::findSwitch(std::string_view name) const
{
    NameReader r(name);
    if (r.word("nvsw-d")) {
        const std::optional<int> domain = r.number();
        if (!domain || !r.word("-"))
            return std::nullopt;
        const std::optional<int> k = r.number();
        if (!k || !r.atEnd() || *domain >= m_domainCount || *k >= m_nvSwitchesPerDomain)
            return std::nullopt;
        return Endpoint{EndpointKind::NvSwitch, *domain * m_nvSwitchesPerDomain + *k};
    }
    const auto sw = readSwitchWord(r);
    if (!sw || !r.atEnd() || sw->second >= switchCount(sw->first))
        return std::nullopt;
    return Endpoint{EndpointKind::Switch, firstSwitchOfTier(sw->first) + sw->second};
}

std::optional<int> Topology::findLink(std::string_view name) const
{
    NameReader r(name);
    if (r.word("nvl")) {
        const std::optional<int> gpu = r.number();
        if (!gpu || !r.word("-"))
            return std::nullopt;
        const std::optional<int> k = r.number();
        if (!k || !r.atEnd() || *gpu >= int(m_gpus.size()) || *k >= m_nvSwitchesPerDomain)
            return std::nullopt;
        return nvLinkOf(*gpu, *k);
    }
    if (r.word("nic")) {
        const std::optional<int> nic = r.number();
        if (!nic || !r.atEnd() || *nic >= int(m_nics.size()))
            return std::nullopt;
        return nicLinkOf(*nic);
    }
    const auto lower = readSwitchWord(r);
    if (!lower || !r.word("-"))
        return std::nullopt;
    const auto upper = readSwitchWord(r);
    if (!upper || !r.atEnd() || lower->second >= switchCount(lower->first) ||
        upper->second >= switchCount(upper->first))
        return std::nullopt;
    return linkBetween(firstSwitchOfTier(lower->first) + lower->second,
                       firstSwitchOfTier(upper->first) + upper->second);
}

std::optional<int> Topology::linkBetween(int lower, int upper) const
{
    const Switch& lo = m_switches[size_t(lower)];
    const Switch& up = m_switches[size_t(upper)];
    if (up.tier != lo.tier + 1 || uplinkCount(lower) == 0)
        return std::nullopt;
    if (lo.tier == 1 && lo.pod == up.pod)
        return firstUplink(lower) + up.plane;
    if (lo.tier == 2 && lo.plane == up.plane)
        return firstUplink(lower) + up.index % m_shape.coresPerPlane;
    return std::nullopt;
}

} // namespace cs
