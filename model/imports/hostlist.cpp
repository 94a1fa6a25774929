#include "hostlist.h"

#include <cctype>
#include <cstdint>

#include "text.h"

namespace cs {

namespace {

// A digit string read as a number; longer than 18 digits is refused so that ranges cannot
// overflow.
std::optional<uint64_t> digitsValue(std::string_view digits)
{
    if (digits.empty() || digits.size() > 18)
        return std::nullopt;
    uint64_t value = 0;
    for (char c : digits) {
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return std::nullopt;
        value = value * 10 + uint64_t(c - '0');
    }
    return value;
}

std::string padded(uint64_t n, size_t width)
{
    std::string digits = std::to_string(n);
    if (digits.size() < width)
        digits.insert(0, width - digits.size(), '0');
    return digits;
}

std::string bracketed(std::string_view group)
{
    std::string text = "[";
    text.append(group);
    return inQuotes(text + "]");
}

// The numbers one bracket group names, e.g. "001-003,7" -> 001 002 003 7.
std::optional<std::vector<std::string>> expandGroup(std::string_view group, size_t limit,
                                                    std::string& problem)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= group.size()) {
        const size_t comma = std::min(group.find(',', start), group.size());
        const std::string_view item = group.substr(start, comma - start);
        const size_t dash = item.find('-');
        const std::string_view lowText = item.substr(0, dash);
        const std::string_view highText =
            dash == std::string_view::npos ? lowText : item.substr(dash + 1);
        const auto low = digitsValue(lowText);
        const auto high = digitsValue(highText);
        if (!low || !high) {
            problem = bracketed(group) + ": " + inQuotes(item) +
                      " is not a number or a range such as 01-18";
            return std::nullopt;
        }
        if (*high < *low) {
            problem = bracketed(group) + ": the range " + std::string(item) + " runs backwards";
            return std::nullopt;
        }
        if (*high - *low >= limit || out.size() + (*high - *low) >= limit) {
            problem = "names more than " + std::to_string(limit) + " hosts";
            return std::nullopt;
        }
        for (uint64_t n = *low; n <= *high; ++n)
            out.push_back(padded(n, lowText.size()));
        start = comma + 1;
    }
    return out;
}

// One item without top-level commas: literal text and bracket groups, expanded as a product.
bool expandItem(std::string_view item, size_t limit, std::vector<std::string>& hosts,
                std::string& problem)
{
    std::vector<std::string> partial{""};
    size_t i = 0;
    while (i < item.size()) {
        std::vector<std::string> choices;
        if (item[i] == '[') {
            const size_t close = item.find(']', i);
            if (close == std::string_view::npos) {
                problem = inQuotes(item) + ": '[' without ']'";
                return false;
            }
            auto group = expandGroup(item.substr(i + 1, close - i - 1), limit, problem);
            if (!group)
                return false;
            choices = std::move(*group);
            i = close + 1;
        } else if (item[i] == ']') {
            problem = inQuotes(item) + ": ']' without '['";
            return false;
        } else {
            const size_t next = std::min(item.find_first_of("[]", i), item.size());
            choices.emplace_back(item.substr(i, next - i));
            i = next;
        }
        if (partial.size() * choices.size() + hosts.size() > limit) {
            problem = "names more than " + std::to_string(limit) + " hosts";
            return false;
        }
        std::vector<std::string> next;
        next.reserve(partial.size() * choices.size());
        for (const std::string& head : partial)
            for (const std::string& tail : choices)
                next.push_back(head + tail);
        partial = std::move(next);
    }
    hosts.insert(hosts.end(), partial.begin(), partial.end());
    return true;
}

} // namespace

std::optional<std::vector<std::string>> expandHostlist(std::string_view text, size_t limit,
                                                       std::string& problem)
{
    std::vector<std::string> hosts;
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        const char c = i < text.size() ? text[i] : ',';
        if (std::isspace(static_cast<unsigned char>(c))) {
            problem = inQuotes(text) + ": a hostlist has no spaces";
            return std::nullopt;
        }
        depth += c == '[' ? 1 : c == ']' ? -1 : 0;
        if (depth > 1) {
            problem = inQuotes(text) + ": brackets do not nest";
            return std::nullopt;
        }
        if (c != ',' || depth != 0)
            continue;
        const std::string_view item = text.substr(start, i - start);
        if (item.empty()) {
            problem = inQuotes(text) + ": an empty host name";
            return std::nullopt;
        }
        if (!expandItem(item, limit, hosts, problem))
            return std::nullopt;
        start = i + 1;
    }
    if (depth != 0) {
        problem = inQuotes(text) + ": brackets do not match";
        return std::nullopt;
    }
    return hosts;
}

} // namespace cs
