#pragma once
// Every enumeration's words, spelled once: each enum declares, next to itself, a constexpr
// `enumTexts(E)` that lists its values with the word files and the command line use and the
// label people read. These templates turn values into words and back for all of them.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cs {

template <typename E> struct EnumText {
    E value;
    std::string_view text;  // as in files and on the command line: "selective"
    std::string_view label; // as people read it: "Selective"
};

template <typename E>
concept HasEnumTexts = requires(E e)
{
    enumTexts(e);
};

template <HasEnumTexts E> constexpr const char* toString(E value)
{
    for (const EnumText<E>& entry : enumTexts(E{}))
        if (entry.value == value)
            return entry.text.data();
    return "?";
}

template <HasEnumTexts E> constexpr std::string_view labelOf(E value)
{
    for (const EnumText<E>& entry : enumTexts(E{}))
        if (entry.value == value)
            return entry.label;
    return "?";
}

template <HasEnumTexts E> constexpr std::optional<E> enumFromString(std::string_view text)
{
    for (const EnumText<E>& entry : enumTexts(E{}))
        if (entry.text == text)
            return entry.value;
    return std::nullopt;
}

template <HasEnumTexts E> std::vector<std::string> enumWords()
{
    std::vector<std::string> words;
    for (const EnumText<E>& entry : enumTexts(E{}))
        words.emplace_back(entry.text);
    return words;
}

template <HasEnumTexts E> constexpr auto enumValues()
{
    constexpr auto texts = enumTexts(E{});
    std::array<E, texts.size()> values{};
    for (size_t i = 0; i < texts.size(); ++i)
        values[i] = texts[i].value;
    return values;
}

// "a, b or c"
std::string wordList(const std::vector<std::string>& words,
                     std::string_view lastSeparator = " or ");

} // namespace cs
