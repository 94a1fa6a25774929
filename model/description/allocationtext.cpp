#include "allocationtext.h"

#include <cctype>

#include "text.h"

namespace cs {

namespace {

bool isSpace(char c)
{
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    return text;
}

// An index of at most nine digits (no overflow of an int) at the start of `text`, taken off it.
std::optional<int> takeIndex(std::string_view& text)
{
    size_t digits = 0;
    while (digits < text.size() && isDigit(text[digits]))
        ++digits;
    if (digits == 0 || digits > 9)
        return std::nullopt;
    int value = 0;
    for (size_t i = 0; i < digits; ++i)
        value = value * 10 + (text[i] - '0');
    text.remove_prefix(digits);
    return value;
}

// "first-last" or "index", spaces allowed around the dash.
std::optional<std::pair<int, int>> rangeOf(std::string_view part)
{
    part = trimmed(part);
    const auto first = takeIndex(part);
    if (!first)
        return std::nullopt;
    part = trimmed(part);
    if (part.empty())
        return std::pair(*first, *first);
    if (part.front() != '-')
        return std::nullopt;
    part = trimmed(part.substr(1));
    const auto last = takeIndex(part);
    if (!last || !part.empty())
        return std::nullopt;
    return std::pair(*first, *last);
}

} // namespace

std::string allocationText(const Allocation& allocation)
{
    const bool racks = allocation.unit == Allocation::Unit::Racks;
    const bool one =
        allocation.ranges.size() == 1 && allocation.ranges[0].first == allocation.ranges[0].second;
    std::string text = racks ? (one ? "rack " : "racks ") : (one ? "node " : "nodes ");
    const char* separator = "";
    for (const auto& [first, last] : allocation.ranges) {
        text += separator + std::to_string(first);
        if (last != first)
            text += "-" + std::to_string(last);
        separator = ", ";
    }
    return text;
}

std::string allocationText(const std::optional<Allocation>& allocation)
{
    return allocation ? allocationText(*allocation) : "the whole cluster";
}

std::optional<Allocation> parseAllocation(std::string_view text, std::string* error)
{
    const auto fail = [error](std::string why) -> std::optional<Allocation> {
        if (error)
            *error = std::move(why);
        return std::nullopt;
    };
    text = trimmed(text);
    size_t space = 0;
    while (space < text.size() && !isSpace(text[space]))
        ++space;
    const std::string unit = lowerCase(std::string(text.substr(0, space)));
    Allocation allocation;
    if (unit == "racks" || unit == "rack")
        allocation.unit = Allocation::Unit::Racks;
    else if (unit == "nodes" || unit == "node")
        allocation.unit = Allocation::Unit::Nodes;
    else
        return fail("begin with \"racks\" or \"nodes\", e.g. \"racks 0-7, 12\"");
    std::string_view ranges = trimmed(text.substr(space));
    if (ranges.empty())
        return fail("name at least one index or range first-last after \"" + unit + "\"");
    for (;;) {
        const size_t comma = ranges.find(',');
        const std::string_view part = ranges.substr(0, comma);
        if (trimmed(part).empty())
            return fail("an empty place between commas or after the last one");
        const auto range = rangeOf(part);
        if (!range)
            return fail(inQuotes(trimmed(part)) +
                        " is not an index or a range first-last (at most 9 digits each)");
        if (range->second < range->first)
            return fail("the range " + std::to_string(range->first) + "-" +
                        std::to_string(range->second) + " ends before it begins");
        allocation.ranges.push_back(*range);
        if (comma == std::string_view::npos)
            return allocation;
        ranges.remove_prefix(comma + 1);
    }
}

} // namespace cs
