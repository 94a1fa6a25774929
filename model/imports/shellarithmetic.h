#pragma once
// Shell arithmetic, $(( ... )): + - * / % ** and parentheses over 64-bit integers and variables.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace cs::shell {

struct ArithmeticResult {
    std::optional<int64_t> value;
    // Why there is no value when the arithmetic itself is wrong: "division by zero",
    // "arithmetic overflow" ...; empty when the text is not arithmetic the reader can evaluate
    // (a variable it does not know, a command).
    std::string problem;
};

// A variable's value as a number; nothing when it has none.
using ArithmeticLookup = std::function<std::optional<int64_t>(const std::string& name)>;

ArithmeticResult evaluateArithmetic(std::string_view text, const ArithmeticLookup& lookup);

// A whole number written as arithmetic without variables ("16", " -2 ", "4*8").
std::optional<int64_t> parseInteger(std::string_view text);

} // namespace cs::shell
