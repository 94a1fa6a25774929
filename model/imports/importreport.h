#pragma once
// What every importer shares: the text it reads, the place a value came from, and the report of
// what it refused, assumed or ignored.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "statistics.h"

namespace cs {

// Text to import and the file name it is reported under.
struct SourceText {
    std::string file;
    std::string text;
};

// A place in an imported file: line and column in text, or a JSON pointer in JSON.
struct SourcePlace {
    std::string file;
    int line = 0; // 1-based; 0 when located by pointer
    int column = 0;
    std::string pointer;
};

// Errors refuse the input; notes say what was assumed or ignored while the import goes on.
// Both are printed as check prints problems: FILE:LINE:COLUMN: or FILE: /pointer:.
struct ImportReport {
    Diagnostics errors;
    Diagnostics notes;

    void error(const SourcePlace& at, std::string message);
    void note(const SourcePlace& at, std::string message);
};

// Reads a file to import; nothing, and an error naming the file, when it cannot.
std::optional<SourceText> readSource(const std::string& path, ImportReport& report);

// The lines of a text, without their "\n" or "\r\n"; line i is numbered i + 1.
std::vector<std::string_view> textLines(std::string_view text);

// An assumption as a sentence of a description's notes: "tiers assumed" -> "Tiers assumed.".
std::string asSentence(std::string text);

// The top-level key of an imported run that keeps the measured per-step times, for the variance
// view (an extension key, which formats.md allows anywhere).
inline constexpr const char* kMeasuredStepTimesKey = "x-measured_step_times_s";

} // namespace cs
