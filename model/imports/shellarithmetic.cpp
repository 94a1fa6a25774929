// Shell arithmetic by recursive descent: sum -> product -> unary -> power -> primary.

#include "shellarithmetic.h"

#include <cctype>

#include "shelllimits.h"
#include "shelltext.h"

namespace cs::shell {

namespace {

class Arithmetic {
public:
    Arithmetic(std::string_view text, const ArithmeticLookup& lookup)
        : m_text(text)
        , m_lookup(lookup)
    {
    }

    ArithmeticResult evaluate()
    {
        const auto value = sum();
        skipBlanks();
        if (!value || m_i != m_text.size())
            return {std::nullopt, m_problem};
        return {value, ""};
    }

private:
    std::optional<int64_t> wrong(const char* problem)
    {
        if (m_problem.empty())
            m_problem = problem;
        return std::nullopt;
    }

    std::optional<int64_t> overflow() { return wrong("arithmetic overflow"); }

    void skipBlanks()
    {
        while (m_i < m_text.size() && isSpace(m_text[m_i]))
            ++m_i;
    }

    bool eat(std::string_view token)
    {
        skipBlanks();
        if (m_text.compare(m_i, token.size(), token) != 0)
            return false;
        m_i += token.size();
        return true;
    }

    std::optional<int64_t> sum()
    {
        auto left = product();
        while (left) {
            int64_t r = 0;
            if (eat("+")) {
                const auto right = product();
                if (!right)
                    return std::nullopt;
                if (__builtin_add_overflow(*left, *right, &r))
                    return overflow();
            } else if (eat("-")) {
                const auto right = product();
                if (!right)
                    return std::nullopt;
                if (__builtin_sub_overflow(*left, *right, &r))
                    return overflow();
            } else {
                break;
            }
            left = r;
        }
        return left;
    }

    std::optional<int64_t> product()
    {
        auto left = unary();
        while (left) {
            int64_t r = 0;
            skipBlanks();
            if (m_text.compare(m_i, 2, "**") == 0)
                break;
            if (eat("*")) {
                const auto right = unary();
                if (!right)
                    return std::nullopt;
                if (__builtin_mul_overflow(*left, *right, &r))
                    return overflow();
            } else if (eat("/") || eat("%")) {
                const bool divide = m_text[m_i - 1] == '/';
                const auto right = unary();
                if (!right)
                    return std::nullopt;
                if (*right == 0)
                    return wrong("division by zero");
                if (*left == INT64_MIN && *right == -1)
                    return overflow();
                r = divide ? *left / *right : *left % *right;
            } else {
                break;
            }
            left = r;
        }
        return left;
    }

    std::optional<int64_t> unary()
    {
        if (++m_depth > kMaxArithmeticNesting)
            return wrong("operators nested too deep");
        std::optional<int64_t> v;
        if (eat("-")) {
            v = unary();
            if (v && *v == INT64_MIN)
                v = overflow();
            else if (v)
                v = -*v;
        } else if (eat("+")) {
            v = unary();
        } else {
            v = power();
        }
        --m_depth;
        return v;
    }

    // By squaring: an exponent as large as a 64-bit integer costs 64 steps, not that many.
    std::optional<int64_t> power()
    {
        auto base = primary();
        if (!base || !eat("**"))
            return base;
        const auto exponent = unary();
        if (!exponent)
            return std::nullopt;
        if (*exponent < 0)
            return wrong("a negative exponent");
        int64_t result = 1;
        int64_t square = *base;
        for (int64_t e = *exponent; e > 0; e >>= 1) {
            if ((e & 1) && __builtin_mul_overflow(result, square, &result))
                return overflow();
            if (e > 1 && __builtin_mul_overflow(square, square, &square))
                return overflow();
        }
        return result;
    }

    std::optional<int64_t> primary()
    {
        skipBlanks();
        if (eat("(")) {
            const auto v = sum();
            return v && eat(")") ? v : std::nullopt;
        }
        const size_t start = m_i;
        if (m_i < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_i]))) {
            int64_t v = 0;
            while (m_i < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_i]))) {
                if (__builtin_mul_overflow(v, 10, &v) ||
                    __builtin_add_overflow(v, m_text[m_i] - '0', &v))
                    return overflow();
                ++m_i;
            }
            return v;
        }
        while (m_i < m_text.size() && isNameChar(m_text[m_i]))
            ++m_i;
        if (m_i == start || !isNameStart(m_text[start]))
            return std::nullopt;
        return m_lookup(std::string(m_text.substr(start, m_i - start)));
    }

    std::string_view m_text;
    const ArithmeticLookup& m_lookup;
    size_t m_i = 0;
    int m_depth = 0;
    std::string m_problem;
};

} // namespace

ArithmeticResult evaluateArithmetic(std::string_view text, const ArithmeticLookup& lookup)
{
    return Arithmetic(text, lookup).evaluate();
}

std::optional<int64_t> parseInteger(std::string_view text)
{
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;
    static const ArithmeticLookup kNoVariables = [](const std::string&) {
        return std::optional<int64_t>();
    };
    return evaluateArithmetic(text, kNoVariables).value;
}

} // namespace cs::shell
