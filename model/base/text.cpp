#include "text.h"

#include "enumtext.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace cs {

std::string withThousands(int64_t n)
{
    const std::string digits = std::to_string(n);
    const size_t sign = n < 0 ? 1 : 0;
    std::string text = digits.substr(0, sign);
    for (size_t i = sign; i < digits.size(); ++i) {
        if (i > sign && (digits.size() - i) % 3 == 0)
            text += ',';
        text += digits[i];
    }
    return text;
}

std::string numberText(double x)
{
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15)
        return std::to_string(int64_t(x));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.15g", x);
    return buffer;
}

std::string fixed(double v, int decimals)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
    return buffer;
}

std::string stepTimeText(double seconds)
{
    return fixed(seconds, 3) + " s";
}

std::string inStepTimeText(double seconds)
{
    const double ms = seconds * 1e3;
    const double size = std::fabs(ms);
    if (size >= 100)
        return withThousands(int64_t(std::llround(ms))) + " ms";
    return fixed(ms, size >= 10 ? 1 : size >= 1 ? 2 : 3) + " ms";
}

TrainingTimeUnit trainingTimeUnit(double seconds)
{
    if (seconds >= 2 * 86400)
        return {86400, "days"};
    if (seconds >= 3600)
        return {3600, "h"};
    return {60, "min"};
}

std::string trainingTimeText(double seconds)
{
    const TrainingTimeUnit unit = trainingTimeUnit(seconds);
    return fixed(seconds / unit.seconds, 1) + " " + unit.name;
}

std::string signedPercentText(double fraction)
{
    return (fraction >= 0 ? "+" : "") + fixed(fraction * 100, 1) + " %";
}

std::string printable(std::string_view text, size_t limit)
{
    std::string out;
    size_t shown = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const bool startsCharacter = (c & 0xC0) != 0x80; // not a UTF-8 continuation byte
        if (startsCharacter && shown++ == limit) {
            out += "...";
            break;
        }
        const unsigned char next =
            i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        char buffer[12];
        if (c == 0xC2 && next >= 0x80 && next <= 0x9F) { // U+0080..U+009F: C1 controls
            std::snprintf(buffer, sizeof buffer, "\\u%04x", unsigned(next));
            out += buffer;
            ++i;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20 || c == 0x7F) {
            std::snprintf(buffer, sizeof buffer, "\\x%02x", unsigned(c));
            out += buffer;
        } else {
            out += char(c);
        }
    }
    return out;
}

namespace {

bool startsCharacter(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80; // not a UTF-8 continuation byte
}

// The byte offset after the first `n` characters of text (its size when it has fewer).
size_t bytesOfFirst(std::string_view text, size_t n)
{
    for (size_t i = 0; i < text.size(); ++i) {
        if (startsCharacter(text[i]) && n-- == 0)
            return i;
    }
    return text.size();
}

// The byte offset where the last `n` characters of text start (0 when it has fewer).
size_t startOfLast(std::string_view text, size_t n)
{
    for (size_t i = text.size(); i-- > 0;) {
        if (startsCharacter(text[i]) && --n == 0)
            return i;
    }
    return 0;
}

} // namespace

std::string cutInMiddle(std::string_view text, size_t limit)
{
    const size_t tail = limit / 3, head = limit - tail;
    if (bytesOfFirst(text, limit) == text.size())
        return std::string(text);
    const size_t headEnd = bytesOfFirst(text, head);
    const size_t tailStart = std::max(headEnd, startOfLast(text, tail));
    return std::string(text.substr(0, headEnd)) + "..." + std::string(text.substr(tailStart));
}

std::string printablePath(std::string_view path)
{
    return printable(cutInMiddle(path), kNoLimit);
}

std::string withLongWordsCut(std::string_view text, size_t limit)
{
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
        const size_t space = text.find(' ', start);
        const size_t end = space == std::string_view::npos ? text.size() : space + 1;
        out += cutInMiddle(text.substr(start, end - start), limit);
        start = end;
    }
    return out;
}

std::string inQuotes(std::string_view text)
{
    return "\"" + printable(text) + "\"";
}

std::string wordList(const std::vector<std::string>& words, std::string_view lastSeparator)
{
    std::string text;
    for (size_t i = 0; i < words.size(); ++i) {
        if (i > 0)
            text += i + 1 == words.size() ? std::string(lastSeparator) : std::string(", ");
        text += words[i];
    }
    return text;
}

std::optional<double> decimalOf(std::string_view text)
{
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end || !std::isfinite(value))
        return std::nullopt;
    return value;
}

namespace {

// The length of the well-formed UTF-8 sequence at text[i] (Unicode's table 3-7), 0 if none.
size_t utf8SequenceAt(std::string_view text, size_t i)
{
    const auto byte = [&](size_t k) {
        return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u;
    };
    const unsigned lead = byte(0);
    const auto continues = [&](size_t from, size_t to, unsigned low = 0x80, unsigned high = 0xBF) {
        if (byte(from) < low || byte(from) > high)
            return false;
        for (size_t k = from + 1; k < to; ++k)
            if (byte(k) < 0x80 || byte(k) > 0xBF)
                return false;
        return true;
    };
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        return continues(1, 2) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        const unsigned low = lead == 0xE0 ? 0xA0 : 0x80, high = lead == 0xED ? 0x9F : 0xBF;
        return continues(1, 3, low, high) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        const unsigned low = lead == 0xF0 ? 0x90 : 0x80, high = lead == 0xF4 ? 0x8F : 0xBF;
        return continues(1, 4, low, high) ? 4 : 0;
    }
    return 0;
}

} // namespace

std::string validUtf8(std::string text)
{
    std::string out;
    size_t copied = 0; // text before it is in out
    for (size_t i = 0; i < text.size();) {
        const size_t length = utf8SequenceAt(text, i);
        if (length > 0) {
            i += length;
            continue;
        }
        out.append(text, copied, i - copied).append("\xEF\xBF\xBD"); // U+FFFD
        copied = ++i;
    }
    if (copied == 0)
        return text;
    return out.append(text, copied);
}

std::string lowerCase(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

} // namespace cs
