#pragma once
// Number formatting for the command line's human-readable output.

#include <cstdint>
#include <string>

namespace cs::cli {

std::string withCommas(int64_t n);         // 8192 -> "8,192"
std::string fixed(double v, int decimals); // 1.27123, 3 -> "1.271"
std::string quoted(const std::string& s);  // "\"" + s + "\""

} // namespace cs::cli
