// Expansion of words: quotes, parameters, arrays and arithmetic, each character keeping the
// place it was written at.

#include "shellexpansion.h"

#include <algorithm>

#include "shellarithmetic.h"
#include "shelllimits.h"
#include "text.h"

namespace cs::shell {

namespace {

std::string bytesText(size_t bytes)
{
    return withThousands(int64_t(bytes)) + " bytes";
}

size_t bytesOf(const std::vector<PosText>& texts)
{
    size_t bytes = 0;
    for (const PosText& t : texts)
        bytes += t.text.size();
    return bytes;
}

// The work of copying `texts`, as counted against kMaxExpandedBytes.
size_t copyCost(const std::vector<PosText>& texts)
{
    return bytesOf(texts) + texts.size() * kCopiedElementBytes;
}

void checkWord(const PosText& word)
{
    if (word.text.size() > kMaxValueBytes)
        throw LimitExceeded{"a word expands to more than " + bytesText(kMaxValueBytes) +
                            ": a launch script's words and values are kilobytes"};
}

// Builds words from expanded pieces: literal text joins the current word, unquoted expansions
// split at blanks.
class WordBuilder {
public:
    void add(char c, Pos p)
    {
        startIfBroken();
        m_current.push(c, p);
        m_started = true;
        checkWord(m_current);
    }
    void addText(const PosText& t)
    {
        startIfBroken();
        m_current.append(t);
        m_started = true;
        checkWord(m_current);
    }
    void markQuoted()
    {
        startIfBroken();
        m_started = true;
    }
    void addSplitting(const PosText& t)
    {
        for (size_t i = 0; i < t.text.size(); ++i) {
            if (isSpace(t.text[i]))
                m_break = true;
            else
                add(t.text[i], t.pos[i]);
        }
    }
    void breakWord()
    {
        if (m_started)
            m_words.push_back(std::move(m_current));
        m_current = PosText{};
        m_started = false;
        m_break = false;
    }
    std::vector<PosText> finish()
    {
        breakWord();
        return std::move(m_words);
    }

private:
    void startIfBroken()
    {
        if (m_break && m_started)
            breakWord();
        m_break = false;
    }

    std::vector<PosText> m_words;
    PosText m_current;
    bool m_started = false;
    bool m_break = false;
};

size_t matchingClose(const std::string& text, size_t open)
{
    const char opener = text[open];
    const char closer = opener == '(' ? ')' : '}';
    int depth = 0;
    bool single = false;
    bool dbl = false;
    for (size_t i = open; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && !single) {
            ++i;
            continue;
        }
        if (!dbl && c == '\'')
            single = !single;
        else if (!single && c == '"')
            dbl = !dbl;
        if (single || dbl)
            continue;
        if (c == opener)
            ++depth;
        else if (c == closer && --depth == 0)
            return i;
    }
    return std::string::npos;
}

PosText substitutionAt(Pos p)
{
    return PosText{"$(...)", std::vector<Pos>(6, p)};
}

} // namespace

// What one "$..." gives: a value, or a list of words ("${A[@]}").
struct Expander::Expansion {
    std::vector<PosText> fields;
    bool list = false;
};

PosText Variable::joined() const
{
    PosText out;
    for (size_t i = 0; i < elements.size(); ++i) {
        if (i > 0)
            out.push(' ', elements[i].first());
        out.append(elements[i]);
    }
    return out;
}

Expander::Expander(const std::vector<std::string>& files, ImportReport& report)
    : m_files(files)
    , m_report(report)
{
}

Variable& Expander::variable(const std::string& name)
{
    if (!m_vars.count(name))
        m_order.push_back(name);
    return m_vars[name];
}

const Variable* Expander::find(const std::string& name) const
{
    const auto it = m_vars.find(name);
    return it == m_vars.end() ? nullptr : &it->second;
}

void Expander::checkValue(const std::string& name, const Variable& v)
{
    if (v.elements.size() > kMaxArrayElements)
        throw LimitExceeded{name + " would hold " + withThousands(int64_t(v.elements.size())) +
                            " elements: more than the " +
                            withThousands(int64_t(kMaxArrayElements)) + " an array may hold"};
    const size_t bytes = bytesOf(v.elements);
    if (bytes > kMaxValueBytes)
        throw LimitExceeded{"the value of " + name + " would be " + bytesText(bytes) +
                            ": more than the " + bytesText(kMaxValueBytes) +
                            " a variable may hold"};
}

void Expander::chargeCopy(const std::vector<PosText>& texts)
{
    charge(copyCost(texts));
}

void Expander::charge(size_t bytes)
{
    m_expandedBytes += bytes;
    if (m_expandedBytes > kMaxExpandedBytes)
        throw LimitExceeded{"the script's expansions add up to more than " +
                            bytesText(kMaxExpandedBytes) +
                            ": a launch script builds a few kilobytes of command line"};
}

PosText Expander::joinedExpansion(const PosText& raw)
{
    PosText out;
    const std::vector<PosText> words = expand(raw, false);
    for (size_t i = 0; i < words.size(); ++i) {
        if (i > 0)
            out.push(' ', words[i].first());
        out.append(words[i]);
    }
    checkWord(out);
    return out;
}

std::vector<PosText> Expander::expand(const PosText& raw, bool split)
{
    if (m_depth >= kMaxNesting)
        throw LimitExceeded{"expansions nested more than " + std::to_string(kMaxNesting) + " deep"};
    ++m_depth;
    WordBuilder b;
    auto addQuoted = [&b](const Expansion& e) {
        for (size_t k = 0; k < e.fields.size(); ++k) {
            if (k > 0) {
                if (e.list)
                    b.breakWord();
                else
                    b.add(' ', e.fields[k].first());
            }
            b.addText(e.fields[k]);
        }
    };
    const std::string& t = raw.text;
    for (size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '\'') {
            b.markQuoted();
            for (++i; i < t.size() && t[i] != '\''; ++i)
                b.add(t[i], raw.pos[i]);
        } else if (c == '"') {
            b.markQuoted();
            for (++i; i < t.size() && t[i] != '"'; ++i) {
                if (t[i] == '\\' && i + 1 < t.size() &&
                    std::string("$`\"\\").find(t[i + 1]) != std::string::npos)
                    ++i;
                else if (t[i] == '$') {
                    addQuoted(dollar(raw, i));
                    continue;
                }
                b.add(t[i], raw.pos[i]);
            }
        } else if (c == '\\' && i + 1 < t.size()) {
            ++i;
            b.add(t[i], raw.pos[i]);
        } else if (c == '`') { // an old-style command substitution: not run either
            const size_t close = t.find('`', i + 1);
            b.addText(substitutionAt(raw.pos[i]));
            i = close == std::string::npos ? t.size() : close;
        } else if (c == '$') {
            const Expansion e = dollar(raw, i);
            if (!split) {
                addQuoted(e);
                continue;
            }
            for (size_t k = 0; k < e.fields.size(); ++k) {
                if (k > 0)
                    b.addSplitting(PosText{" ", {e.fields[k].first()}});
                b.addSplitting(e.fields[k]);
            }
        } else {
            b.add(c, raw.pos[i]);
        }
    }
    --m_depth;
    return b.finish();
}

// The expansion at raw.text[i] == '$'; i is left on its last character.
Expander::Expansion Expander::dollar(const PosText& raw, size_t& i)
{
    const std::string& t = raw.text;
    const size_t start = i;
    const char next = i + 1 < t.size() ? t[i + 1] : '\0';
    auto literal = [&](size_t end) {
        i = std::min(end, t.size() - 1);
        return Expansion{{raw.slice(start, i + 1)}, false};
    };
    if (next == '(') {
        const size_t close = matchingClose(t, i + 1);
        if (close == std::string::npos)
            return literal(t.size());
        i = close;
        if (t.compare(start + 1, 2, "((") == 0 && t[close - 1] == ')')
            return arithmetic(raw, start, close);
        // A command substitution is not run; it stands as one blank-free word, whatever the
        // command's own text holds.
        return {{substitutionAt(raw.pos[start])}, false};
    }
    if (next == '{') {
        const size_t close = matchingClose(t, i + 1);
        if (close == std::string::npos)
            return literal(t.size());
        i = close;
        if (auto e = parameter(raw.slice(start + 2, close)))
            return *e;
        return Expansion{{raw.slice(start, close + 1)}, false};
    }
    if (isNameStart(next)) {
        size_t end = i + 1;
        while (end < t.size() && isNameChar(t[end]))
            ++end;
        const std::string name = t.substr(i + 1, end - i - 1);
        if (const Variable* v = find(name)) {
            i = end - 1;
            Expansion e{{v->elements.empty() ? PosText{} : v->elements.front()}, false};
            charge(copyCost(e.fields));
            return e;
        }
        return literal(end - 1);
    }
    if (next != '\0' && (std::isdigit(static_cast<unsigned char>(next)) ||
                         std::string("@*#?$!-").find(next) != std::string::npos))
        return literal(i + 1); // positional and special parameters: not known
    return literal(i);
}

// $(( ... )) from raw.text[start] to raw.text[close]: its value, or, when it needs what the
// script does not set, "$(...)" as for a command; wrong arithmetic is reported at its place.
Expander::Expansion Expander::arithmetic(const PosText& raw, size_t start, size_t close)
{
    const PosText inner = raw.slice(start + 3, close - 1);
    const ArithmeticLookup lookup = [this](const std::string& name) -> std::optional<int64_t> {
        const Variable* v = find(name);
        if (!v || v->elements.empty())
            return std::nullopt;
        return parseInteger(v->elements.front().text);
    };
    const ArithmeticResult result = evaluateArithmetic(joinedExpansion(inner).text, lookup);
    if (result.value) {
        PosText out;
        for (char c : std::to_string(*result.value))
            out.push(c, raw.pos[start]);
        return {{out}, false};
    }
    if (!result.problem.empty())
        m_report.error(placeOf(raw.pos[start], m_files),
                       cs::inQuotes(raw.text.substr(start, close + 1 - start)) + ": " +
                           result.problem);
    return {{substitutionAt(raw.pos[start])}, false};
}

// ${NAME}, ${NAME[@]}, ${NAME[i]}, ${NAME:-word}, ${NAME-word}, ${NAME:=word},
// ${NAME:+word}; nothing for other forms, which stay as written.
std::optional<Expander::Expansion> Expander::parameter(const PosText& inner)
{
    const std::string& t = inner.text;
    size_t i = 0;
    if (!t.empty() && isNameStart(t[0])) {
        while (i < t.size() && isNameChar(t[i]))
            ++i;
    } else {
        while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])))
            ++i;
    }
    if (i == 0)
        return std::nullopt;
    const std::string name = t.substr(0, i);
    std::string index;
    if (i < t.size() && t[i] == '[') {
        const size_t close = t.find(']', i);
        if (close == std::string::npos)
            return std::nullopt;
        index = t.substr(i + 1, close - i - 1);
        i = close + 1;
    }
    const std::string rest = t.substr(i);
    static const std::vector<std::string> kOperators{":-", ":=", ":+", "-", "=", "+"};
    std::string op;
    for (const std::string& candidate : kOperators) {
        if (rest.starts_with(candidate)) {
            op = candidate;
            break;
        }
    }
    if (op.empty() && !rest.empty())
        return std::nullopt;
    const Variable* v = find(name);
    const PosText word = inner.slice(i + op.size(), t.size());
    Expansion value;
    if (v && (index == "@" || index == "*")) {
        charge(copyCost(v->elements));
        value = {v->elements, index == "@"};
    } else if (v) {
        const auto n = index.empty() ? std::optional<int64_t>(0) : parseInteger(index);
        if (n && *n >= 0 && size_t(*n) < v->elements.size()) {
            value.fields.push_back(v->elements[size_t(*n)]);
            charge(copyCost(value.fields));
        } else if (!n) {
            return std::nullopt;
        }
    }
    const bool set = v != nullptr;
    bool null = true;
    for (const PosText& f : value.fields)
        null = null && f.text.empty();
    const bool colon = op.size() == 2;
    if (op.empty())
        return set ? std::optional<Expansion>(value) : std::nullopt;
    if (op.back() == '+')
        return (colon ? !null : set) ? Expansion{{joinedExpansion(word)}, false} : Expansion{};
    if (colon ? !null : set)
        return value;
    PosText alternative = joinedExpansion(word);
    if (op.back() == '=')
        variable(name).elements.assign(1, alternative);
    return Expansion{{alternative}, false};
}

} // namespace cs::shell
