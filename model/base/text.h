#pragma once
// Numbers and file content as people read them: one formatter for each, used by the loader's
// messages, the command line and the views.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cs {

// 262144 -> "262,144"
std::string withThousands(int64_t n);
// A number as a user would write it: 4096, 0.5, 1e+20.
std::string numberText(double x);
// 1.27123, 3 -> "1.271"
std::string fixed(double v, int decimals);
// Durations in the one set of units every view uses: a step's length in seconds ("1.210 s"),
// anything within a step in milliseconds ("8.2 ms", "1,102 ms", "0.046 ms"), and training in
// minutes, hours or days ("7.1 min", "9.9 h", "3.2 days").
std::string stepTimeText(double seconds);
std::string inStepTimeText(double seconds);
// The unit a time to train reads best in: days from two days, hours from one, else minutes.
struct TrainingTimeUnit {
    double seconds; // in one unit
    const char* name;
};
TrainingTimeUnit trainingTimeUnit(double seconds);
std::string trainingTimeText(double seconds);
// A fraction as a signed percentage with one decimal, as errors and differences read
// everywhere: "+4.9 %", "-0.8 %", "+0.0 %".
std::string signedPercentText(double fraction);
// The whole of `text` read as a decimal number ("1.8", "400"), whatever the locale; nothing when
// it is not one or is too large for a double (text a regex matched can be any run of digits).
std::optional<double> decimalOf(std::string_view text);
// Text with every byte that is not part of well-formed UTF-8 replaced by U+FFFD, so that what an
// import takes from a file can be written as JSON (which must be UTF-8).
std::string validUtf8(std::string text);
// Text from a file made safe to print on a terminal: control characters escaped (\n, \t,
// \x1b ...), and at most `limit` characters kept, the cut marked with "...".
inline constexpr size_t kNoLimit = size_t(-1);
std::string printable(std::string_view text, size_t limit = 80);
// At most `limit` characters of text, for paths and other long runs of characters whose end says
// as much as their start: the first two thirds and the last third, "..." between them
// ("/home/.../name.json"). Not escaped: printable() does that where it is printed.
inline constexpr size_t kLongWordShown = 160;
std::string cutInMiddle(std::string_view text, size_t limit = kLongWordShown);
// A path (or a JSON pointer) as messages print it: cut in the middle, then made printable.
std::string printablePath(std::string_view path);
// Text with every run of characters without a space (a path, a number, a key) longer than
// `limit` characters cut in the middle, so that a message quoting megabytes stays a line.
std::string withLongWordsCut(std::string_view text, size_t limit = kLongWordShown);
// ASCII lower case, for names compared without regard to case.
std::string lowerCase(std::string text);
// printable(text) in double quotes.
std::string inQuotes(std::string_view text);

} // namespace cs
