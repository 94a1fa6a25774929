#pragma once
// Shell variables and the expansion of a word as the shell would do it: quotes removed, $X,
// ${X}, ${X:-default} and the other parameter forms, "${ARGS[@]}", $(( arithmetic )); command
// substitutions are not run and stand as "$(...)". Within the limits of shelllimits.h.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "importreport.h"
#include "shelltext.h"

namespace cs::shell {

struct Variable {
    std::vector<PosText> elements; // a scalar has one
    bool array = false;

    PosText joined() const; // the elements, a blank between two
};

class Expander {
public:
    // `files` names the files of Pos::file; wrong arithmetic is reported to `report`.
    Expander(const std::vector<std::string>& files, ImportReport& report);

    // The fields of a word: split at the blanks of unquoted expansions when `split`, one field
    // for each element of "${ARRAY[@]}".
    std::vector<PosText> expand(const PosText& raw, bool split);

    // A word expanded without splitting, its fields joined by blanks: an assigned value.
    PosText joinedExpansion(const PosText& raw);

    // The variable of that name, created (and listed in order()) when new.
    Variable& variable(const std::string& name);
    const Variable* find(const std::string& name) const;
    const std::vector<std::string>& order() const { return m_order; }

    // Throws LimitExceeded when `name` holds more elements or bytes than a variable may.
    static void checkValue(const std::string& name, const Variable& v);

    // Counts the copying of `texts` (their bytes, and kCopiedElementBytes each) against the
    // read's kMaxExpandedBytes; throws LimitExceeded past it.
    void chargeCopy(const std::vector<PosText>& texts);

private:
    struct Expansion;
    Expansion dollar(const PosText& raw, size_t& i);
    std::optional<Expansion> parameter(const PosText& inner);
    void charge(size_t bytes);
    Expansion arithmetic(const PosText& raw, size_t start, size_t close);

    const std::vector<std::string>& m_files;
    ImportReport& m_report;
    std::map<std::string, Variable> m_vars;
    std::vector<std::string> m_order;
    int m_depth = 0;
    size_t m_expandedBytes = 0;
};

} // namespace cs::shell
