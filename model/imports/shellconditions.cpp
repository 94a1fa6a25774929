// The tests of if/elif, evaluated on expanded arguments.

#include "shellconditions.h"

#include "shellarithmetic.h"
#include "shelllimits.h"

namespace cs::shell {

Truth both(Truth a, Truth b)
{
    if (a == Truth::False || b == Truth::False)
        return Truth::False;
    return a == Truth::True && b == Truth::True ? Truth::True : Truth::Unknown;
}

Truth either(Truth a, Truth b)
{
    if (a == Truth::True || b == Truth::True)
        return Truth::True;
    return a == Truth::False && b == Truth::False ? Truth::False : Truth::Unknown;
}

Truth truth(bool b)
{
    return b ? Truth::True : Truth::False;
}

bool globMatch(std::string_view text, std::string_view pattern)
{
    size_t t = 0, p = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
            ++t;
            ++p;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

namespace {

// A test without "!": what the operator says of its operands.
Truth plainTest(const std::vector<std::string>& a, size_t from)
{
    const size_t n = a.size() - from;
    if (n == 1)
        return truth(!a[from].empty());
    if (n == 2 && (a[from] == "-n" || a[from] == "-z"))
        return truth(a[from] == "-n" ? !a[from + 1].empty() : a[from + 1].empty());
    if (n != 3)
        return Truth::Unknown;
    const std::string& x = a[from];
    const std::string& op = a[from + 1];
    const std::string& y = a[from + 2];
    if (op == "=" || op == "==" || op == "!=") {
        // Matching costs up to the text times the pattern: a huge one is left to the run.
        if (x.size() * y.size() > kMaxPatternWork)
            return Truth::Unknown;
        return truth(globMatch(x, y) == (op != "!="));
    }
    const auto l = parseInteger(x);
    const auto r = parseInteger(y);
    if (!l || !r)
        return Truth::Unknown;
    if (op == "-eq")
        return truth(*l == *r);
    if (op == "-ne")
        return truth(*l != *r);
    if (op == "-lt")
        return truth(*l < *r);
    if (op == "-le")
        return truth(*l <= *r);
    if (op == "-gt")
        return truth(*l > *r);
    if (op == "-ge")
        return truth(*l >= *r);
    return Truth::Unknown;
}

} // namespace

Truth evaluateTest(const std::vector<std::string>& args)
{
    // Leading "!"s counted, not recursed into: a test may hold any number of them.
    size_t from = 0;
    while (from < args.size() && args[from] == "!")
        ++from;
    const Truth t = plainTest(args, from);
    if (from % 2 == 0 || t == Truth::Unknown)
        return t;
    return truth(t == Truth::False);
}

} // namespace cs::shell
