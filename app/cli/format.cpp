#include "format.h"

#include <cstdio>

namespace cs::cli {

std::string withCommas(int64_t n)
{
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    if (n < 0)
        out.insert(out.begin(), '-');
    return out;
}

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string quoted(const std::string& s)
{
    return "\"" + s + "\"";
}

} // namespace cs::cli
