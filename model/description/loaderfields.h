#pragma once
// What the readers of each description kind (clusterloader.cpp, runloader.cpp,
// sessionloader.cpp) share; not part of the loader's interface.

#include <string>

#include <nlohmann/json.hpp>

#include "enumtext.h"
#include "jsonfields.h"

namespace cs {

// Reads an enumeration's word into `out`; false when present and wrong.
template <typename E> bool readEnum(FieldReader& f, const std::string& key, E& out, Need need)
{
    std::string word;
    if (!f.readWord(key, word, enumWords<E>(), need))
        return false;
    if (!word.empty())
        out = *enumFromString<E>(word);
    return true;
}

// Whether `format` says `expected`; reported when not.
bool checkFormat(FieldReader& fields, const char* expected);

// Whether j is an object; reported as "expected <what> object" when not.
bool requireObject(const nlohmann::json& j, const std::string& file, const std::string& base,
                   const char* what, Diagnostics& diags);

} // namespace cs
