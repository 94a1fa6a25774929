#include "settingsreader.h"

namespace cs {

bool isNullWord(const std::string& v)
{
    const std::string l = lowerCase(v);
    return l == "null" || l == "none" || l == "~" || l.empty();
}

bool isFalseWord(const std::string& v)
{
    const std::string l = lowerCase(v);
    return l == "false" || l == "0" || l == "no" || l == "off";
}

} // namespace cs
