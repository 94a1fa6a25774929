// A shell script read as text: statements, words, expansions and tests, each character keeping
// the file, line and column it was written at, so that a flag built from a variable points at
// the line that set it.

#include "shellscript.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>

#include "text.h"

namespace cs {

namespace {

struct Pos {
    int file = 0;
    int line = 0;
    int column = 0;
};

// Text with the place of each character.
struct PosText {
    std::string text;
    std::vector<Pos> pos;

    void push(char c, Pos p)
    {
        text += c;
        pos.push_back(p);
    }
    void append(const PosText& other)
    {
        text += other.text;
        pos.insert(pos.end(), other.pos.begin(), other.pos.end());
    }
    PosText slice(size_t from, size_t to) const
    {
        PosText out;
        to = std::min(to, text.size());
        if (from < to) {
            out.text = text.substr(from, to - from);
            out.pos.assign(pos.begin() + long(from), pos.begin() + long(to));
        }
        return out;
    }
    Pos first() const { return pos.empty() ? Pos{} : pos.front(); }
};

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isNameStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool isOperatorChar(char c)
{
    return c == '|' || c == '&' || c == '<' || c == '>';
}

bool isBlank(const std::string& s)
{
    return std::all_of(s.begin(), s.end(), isSpace);
}

constexpr int kMaxNesting = 64;

// ---------------------------------------------------------------------------------------------
// Statements: the text between unquoted newlines and semicolons, continuation lines joined,
// comments dropped; arrays "( ... )" may span lines.

struct Statement {
    PosText text;
    bool sbatch = false;
};

bool atWordStart(const PosText& current)
{
    if (current.text.empty())
        return true;
    const char last = current.text.back();
    return isSpace(last) || last == ';' || last == '(' || isOperatorChar(last);
}

class StatementSplitter {
public:
    StatementSplitter(const std::string& source, int file)
        : m_src(source)
        , m_file(file)
    {
    }

    std::vector<Statement> split()
    {
        while (m_i < m_src.size())
            step();
        finish();
        return std::move(m_out);
    }

private:
    Pos here() const { return {m_file, m_line, m_column}; }

    void advance()
    {
        if (m_src[m_i] == '\n') {
            ++m_line;
            m_column = 1;
        } else {
            ++m_column;
        }
        ++m_i;
    }

    void keep()
    {
        m_current.text.push(m_src[m_i], here());
        advance();
    }

    void finish()
    {
        if (!isBlank(m_current.text.text))
            m_out.push_back(std::move(m_current));
        m_current = Statement{};
    }

    bool continuationAt(size_t i) const
    {
        return m_src.compare(i, 2, "\\\n") == 0 || m_src.compare(i, 3, "\\\r\n") == 0;
    }

    void comment()
    {
        const size_t end = std::min(m_src.find('\n', m_i), m_src.size());
        static const std::string kDirective = "#SBATCH";
        if (isBlank(m_current.text.text) && m_parens == 0 &&
            m_src.compare(m_i, kDirective.size(), kDirective) == 0) {
            Statement directive;
            directive.sbatch = true;
            for (size_t k = 0; k < kDirective.size(); ++k)
                advance();
            // A comment may follow the options.
            const size_t comment = m_src.find(" #", m_i);
            const size_t stop = std::min(end, comment);
            while (m_i < stop) {
                directive.text.push(m_src[m_i], here());
                advance();
            }
            m_out.push_back(std::move(directive));
        }
        while (m_i < end)
            advance();
    }

    void step()
    {
        const char c = m_src[m_i];
        if (c == '\r') {
            advance();
            return;
        }
        if (m_single) {
            m_single = c != '\'';
            keep();
            return;
        }
        if (continuationAt(m_i)) {
            while (m_src[m_i] != '\n')
                advance();
            advance();
            return;
        }
        if (c == '\\' && m_i + 1 < m_src.size()) {
            keep();
            keep();
            return;
        }
        if (m_double) {
            m_double = c != '"';
            keep();
            return;
        }
        if (c == '#' && atWordStart(m_current.text)) {
            comment();
            return;
        }
        if ((c == '\n' || c == ';') && m_parens == 0) {
            finish();
            advance();
            return;
        }
        if (c == '&' && m_parens == 0 && loneAmpersand()) {
            finish();
            advance();
            return;
        }
        if (c == '\n') { // inside "( ... )": an array or a subshell going on
            m_current.text.push(' ', here());
            advance();
            return;
        }
        m_single = c == '\'';
        m_double = c == '"';
        if (c == '(')
            ++m_parens;
        else if (c == ')' && m_parens > 0)
            --m_parens;
        keep();
    }

    // "cmd &" runs in the background: the end of a statement, unlike "&&", "2>&1" and "&>".
    bool loneAmpersand() const
    {
        const char prev = m_i > 0 ? m_src[m_i - 1] : ' ';
        const char next = m_i + 1 < m_src.size() ? m_src[m_i + 1] : ' ';
        return !isOperatorChar(prev) && !isOperatorChar(next);
    }

    const std::string& m_src;
    int m_file;
    size_t m_i = 0;
    int m_line = 1;
    int m_column = 1;
    bool m_single = false;
    bool m_double = false;
    int m_parens = 0;
    Statement m_current;
    std::vector<Statement> m_out;
};

// ---------------------------------------------------------------------------------------------
// Raw words: a statement split at unquoted blanks, quotes and expansions kept as written.
// Operators (|, ||, &&, >, 2>&1 ...) are words of their own.

std::vector<PosText> rawWords(const PosText& s)
{
    std::vector<PosText> words;
    PosText word;
    std::vector<char> closers; // the closing brackets of $( ${ ( still open
    bool single = false;
    bool dbl = false;
    bool backtick = false;
    auto endWord = [&] {
        if (!word.text.empty())
            words.push_back(std::move(word));
        word = PosText{};
    };
    for (size_t i = 0; i < s.text.size(); ++i) {
        const char c = s.text[i];
        if (single || backtick) {
            single = single && c != '\'';
            backtick = backtick && c != '`';
            word.push(c, s.pos[i]);
            continue;
        }
        if (c == '\\' && i + 1 < s.text.size()) {
            word.push(c, s.pos[i]);
            ++i;
            word.push(s.text[i], s.pos[i]);
            continue;
        }
        if (dbl) {
            dbl = c != '"';
            word.push(c, s.pos[i]);
            continue;
        }
        if (closers.empty() && isSpace(c)) {
            endWord();
            continue;
        }
        if (closers.empty() && isOperatorChar(c)) {
            const bool fileDescriptor = !word.text.empty() && c != '|' && c != '&' &&
                                        std::all_of(word.text.begin(), word.text.end(), [](char d) {
                                            return std::isdigit(static_cast<unsigned char>(d));
                                        });
            if (!fileDescriptor)
                endWord();
            while (i < s.text.size() && isOperatorChar(s.text[i])) {
                word.push(s.text[i], s.pos[i]);
                ++i;
            }
            --i;
            endWord();
            continue;
        }
        single = c == '\'';
        dbl = c == '"';
        backtick = c == '`';
        if (c == '$' && i + 1 < s.text.size() && (s.text[i + 1] == '(' || s.text[i + 1] == '{')) {
            closers.push_back(s.text[i + 1] == '(' ? ')' : '}');
            word.push(c, s.pos[i]);
            ++i;
            word.push(s.text[i], s.pos[i]);
            continue;
        }
        if (c == '(')
            closers.push_back(')');
        else if (!closers.empty() && c == closers.back())
            closers.pop_back();
        word.push(c, s.pos[i]);
    }
    endWord();
    return words;
}

bool isOperatorWord(const PosText& w)
{
    return !w.text.empty() &&
           std::all_of(w.text.begin(), w.text.end(), [](char c) { return isOperatorChar(c); });
}

bool isListOperator(const PosText& w)
{
    return w.text == "|" || w.text == "||" || w.text == "&&" || w.text == "|&";
}

// A redirection: ">", ">>", "2>", "2>&", "<", "&>" ...; its target is the next word.
bool isRedirection(const PosText& w)
{
    if (w.text.empty() || isListOperator(w))
        return false;
    const size_t digits = w.text.find_first_not_of("0123456789");
    return digits != std::string::npos && isOperatorChar(w.text[digits]) &&
           std::all_of(w.text.begin() + long(digits), w.text.end(),
                       [](char c) { return isOperatorChar(c); });
}

// ---------------------------------------------------------------------------------------------
// Arithmetic: + - * / % ** and parentheses over 64-bit integers and variables.

class Arithmetic {
public:
    using Lookup = std::optional<int64_t> (*)(const void*, const std::string&);

    Arithmetic(std::string_view text, Lookup lookup, const void* context)
        : m_text(text)
        , m_lookup(lookup)
        , m_context(context)
    {
    }

    std::optional<int64_t> evaluate()
    {
        const auto value = sum();
        skipBlanks();
        if (!value || m_i != m_text.size())
            return std::nullopt;
        return value;
    }

private:
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
                if (!right || __builtin_add_overflow(*left, *right, &r))
                    return std::nullopt;
            } else if (eat("-")) {
                const auto right = product();
                if (!right || __builtin_sub_overflow(*left, *right, &r))
                    return std::nullopt;
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
                if (!right || __builtin_mul_overflow(*left, *right, &r))
                    return std::nullopt;
            } else if (eat("/") || eat("%")) {
                const bool divide = m_text[m_i - 1] == '/';
                const auto right = unary();
                if (!right || *right == 0 || (*left == INT64_MIN && *right == -1))
                    return std::nullopt;
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
        if (++m_depth > kMaxNesting)
            return std::nullopt;
        std::optional<int64_t> v;
        if (eat("-")) {
            v = unary();
            if (v && *v == INT64_MIN)
                v.reset();
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

    std::optional<int64_t> power()
    {
        auto base = primary();
        if (!base || !eat("**"))
            return base;
        const auto exponent = unary();
        if (!exponent || *exponent < 0)
            return std::nullopt;
        int64_t r = 1;
        for (int64_t k = 0; k < *exponent; ++k) {
            if (__builtin_mul_overflow(r, *base, &r))
                return std::nullopt;
        }
        return r;
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
                    return std::nullopt;
                ++m_i;
            }
            return v;
        }
        while (m_i < m_text.size() && isNameChar(m_text[m_i]))
            ++m_i;
        if (m_i == start || !isNameStart(m_text[start]))
            return std::nullopt;
        return m_lookup(m_context, std::string(m_text.substr(start, m_i - start)));
    }

    std::string_view m_text;
    Lookup m_lookup;
    const void* m_context;
    size_t m_i = 0;
    int m_depth = 0;
};

std::optional<int64_t> parseInteger(std::string_view text)
{
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;
    Arithmetic literal(
        text,
        [](const void*, const std::string&) -> std::optional<int64_t> { return std::nullopt; },
        nullptr);
    return literal.evaluate();
}

// "*" and "?" as in [[ $X == pattern ]]
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

// ---------------------------------------------------------------------------------------------
// The reader: variables, expansion, if/else, commands.

struct Variable {
    std::vector<PosText> elements; // a scalar has one
    bool array = false;

    PosText joined() const
    {
        PosText out;
        for (size_t i = 0; i < elements.size(); ++i) {
            if (i > 0)
                out.push(' ', elements[i].first());
            out.append(elements[i]);
        }
        return out;
    }
};

// What one "$..." gives: a value, or a list of words ("${A[@]}").
struct Expansion {
    std::vector<PosText> fields;
    bool list = false;
};

enum class Truth { False, True, Unknown };

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

// Builds words from expanded pieces: literal text joins the current word, unquoted expansions
// split at blanks.
class WordBuilder {
public:
    void add(char c, Pos p)
    {
        startIfBroken();
        m_current.push(c, p);
        m_started = true;
    }
    void addText(const PosText& t)
    {
        startIfBroken();
        m_current.append(t);
        m_started = true;
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

class ScriptReader {
public:
    explicit ScriptReader(ImportReport& report)
        : m_report(report)
    {
    }

    void read(const SourceText& source)
    {
        m_files.push_back(source.file);
        const int file = int(m_files.size()) - 1;
        for (Statement& s : StatementSplitter(source.text, file).split())
            statement(s);
        m_frames.clear(); // an if left open ends with its file
    }

    ShellScript result() const
    {
        ShellScript script;
        script.commands = m_commands;
        for (const std::string& name : m_order) {
            const PosText value = m_vars.at(name).joined();
            script.variables.push_back({name, value.text, place(value.first())});
        }
        return script;
    }

private:
    SourcePlace place(Pos p) const
    {
        SourcePlace at;
        if (p.file >= 0 && size_t(p.file) < m_files.size())
            at.file = m_files[size_t(p.file)];
        at.line = p.line;
        at.column = p.column;
        return at;
    }

    bool active() const { return m_frames.empty() || m_frames.back().active; }

    // --- statements --------------------------------------------------------------------------

    void statement(const Statement& s)
    {
        std::vector<PosText> words = rawWords(s.text);
        if (s.sbatch) {
            if (active() && !words.empty())
                addCommand(words, true);
            return;
        }
        static const std::vector<std::string> kOpeners{"then", "do", "{", "}", "!", "done", "esac"};
        while (!words.empty()) {
            const std::string& w = words.front().text;
            if (w == "else") {
                elseBranch();
            } else if (w == "fi") {
                if (!m_frames.empty())
                    m_frames.pop_back();
            } else if (std::find(kOpeners.begin(), kOpeners.end(), w) == kOpeners.end()) {
                break;
            }
            words.erase(words.begin());
        }
        if (words.empty())
            return;
        const std::string& head = words.front().text;
        if (head == "if" || head == "elif") {
            const std::vector<PosText> test(words.begin() + 1, words.end());
            head == "if" ? ifBranch(test, words.front()) : elifBranch(test, words.front());
            return;
        }
        static const std::vector<std::string> kLoops{"for",  "while",  "until",
                                                     "case", "select", "function"};
        if (!active() || std::find(kLoops.begin(), kLoops.end(), head) != kLoops.end() ||
            head.ends_with("()"))
            return;
        // A list "a && b | c": each simple command on its own.
        std::vector<PosText> simple;
        for (PosText& w : words) {
            if (isListOperator(w)) {
                simpleCommand(simple);
                simple.clear();
            } else {
                simple.push_back(std::move(w));
            }
        }
        simpleCommand(simple);
    }

    void simpleCommand(std::vector<PosText> words)
    {
        for (size_t i = 0; i < words.size(); ++i) {
            if (isRedirection(words[i])) {
                const size_t end = std::min(i + 2, words.size());
                words.erase(words.begin() + long(i), words.begin() + long(end));
                --i;
            }
        }
        if (words.empty())
            return;
        static const std::vector<std::string> kDeclarations{"export", "declare", "local",
                                                            "readonly", "typeset"};
        size_t k = 0;
        const bool declaration = std::find(kDeclarations.begin(), kDeclarations.end(),
                                           words[0].text) != kDeclarations.end();
        if (declaration) {
            k = 1;
            while (k < words.size() && words[k].text.starts_with("-"))
                ++k;
        }
        while (k < words.size() && assign(words[k]))
            ++k;
        if (declaration || k == words.size())
            return;
        const std::vector<PosText> command(words.begin() + long(k), words.end());
        if (command[0].text == "source" || command[0].text == ".") {
            m_report.note(place(command[0].first()),
                          "'" + command[0].text +
                              "' is not followed; name the sourced file as an earlier FILE");
            return;
        }
        addCommand(command, false);
    }

    void addCommand(const std::vector<PosText>& raw, bool sbatch)
    {
        std::vector<PosText> words;
        for (const PosText& w : raw) {
            for (PosText& field : expand(w, true))
                words.push_back(std::move(field));
        }
        if (!words.empty())
            addExpanded(words, raw.front().first(), sbatch, 0);
    }

    // "bash -c STRING": STRING's words continue the command (srun ... bash -c "python ...").
    void addExpanded(const std::vector<PosText>& words, Pos start, bool sbatch, int depth)
    {
        for (size_t i = 0; depth < 4 && i + 2 < words.size(); ++i) {
            const std::string& w = words[i].text;
            const std::string base = w.substr(w.find_last_of('/') + 1);
            if ((base != "bash" && base != "sh" && base != "zsh" && base != "dash") ||
                words[i + 1].text != "-c")
                continue;
            const std::vector<PosText> outer(words.begin(), words.begin() + long(i));
            std::vector<PosText> simple;
            for (PosText& inner : rawWords(words[i + 2])) {
                if (!isListOperator(inner)) {
                    simple.push_back(std::move(inner));
                    continue;
                }
                addInner(outer, simple, start, sbatch, depth);
                simple.clear();
            }
            addInner(outer, simple, start, sbatch, depth);
            return;
        }
        ShellCommand command;
        for (const PosText& w : words)
            command.words.push_back({w.text, place(w.first())});
        command.place = place(start);
        command.sbatchDirective = sbatch;
        m_commands.push_back(std::move(command));
    }

    void addInner(const std::vector<PosText>& outer, const std::vector<PosText>& raw, Pos start,
                  bool sbatch, int depth)
    {
        std::vector<PosText> words = outer;
        for (const PosText& w : raw) {
            if (isRedirection(w) || isOperatorWord(w))
                continue;
            for (PosText& field : expand(w, true))
                words.push_back(std::move(field));
        }
        if (words.size() > outer.size())
            addExpanded(words, start, sbatch, depth + 1);
    }

    // --- assignments -------------------------------------------------------------------------

    // NAME=value, NAME+=value, NAME=( ... ), NAME[i]=value; false when the word is none.
    bool assign(const PosText& word)
    {
        const std::string& t = word.text;
        if (t.empty() || !isNameStart(t[0]))
            return false;
        size_t i = 1;
        while (i < t.size() && isNameChar(t[i]))
            ++i;
        const std::string name = t.substr(0, i);
        std::optional<int64_t> index;
        if (i < t.size() && t[i] == '[') {
            const size_t close = t.find(']', i);
            if (close == std::string::npos)
                return false;
            index = parseInteger(t.substr(i + 1, close - i - 1));
            i = close + 1;
        }
        const bool append = t.compare(i, 2, "+=") == 0;
        if (!append && (i >= t.size() || t[i] != '='))
            return false;
        const PosText value = word.slice(i + (append ? 2 : 1), t.size());
        Variable& v = variable(name);
        if (value.text.size() >= 2 && value.text.front() == '(' && value.text.back() == ')') {
            if (!append)
                v.elements.clear();
            v.array = true;
            for (const PosText& raw : rawWords(value.slice(1, value.text.size() - 1))) {
                for (PosText& field : expand(raw, true))
                    v.elements.push_back(std::move(field));
            }
            return true;
        }
        PosText text = joinedExpansion(value);
        if (index && *index >= 0 && *index < 4096) {
            v.array = true;
            if (v.elements.size() <= size_t(*index))
                v.elements.resize(size_t(*index) + 1);
            v.elements[size_t(*index)] = std::move(text);
        } else if (append && !v.elements.empty()) {
            v.elements.front().append(text);
        } else {
            v.elements.assign(1, std::move(text));
        }
        return true;
    }

    Variable& variable(const std::string& name)
    {
        if (!m_vars.count(name))
            m_order.push_back(name);
        return m_vars[name];
    }

    const Variable* find(const std::string& name) const
    {
        const auto it = m_vars.find(name);
        return it == m_vars.end() ? nullptr : &it->second;
    }

    // --- expansion ---------------------------------------------------------------------------

    PosText joinedExpansion(const PosText& raw)
    {
        PosText out;
        const std::vector<PosText> words = expand(raw, false);
        for (size_t i = 0; i < words.size(); ++i) {
            if (i > 0)
                out.push(' ', words[i].first());
            out.append(words[i]);
        }
        return out;
    }

    std::vector<PosText> expand(const PosText& raw, bool split)
    {
        if (++m_depth > kMaxNesting) {
            --m_depth;
            return {raw};
        }
        WordBuilder b;
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
                        addQuoted(b, dollar(raw, i));
                        continue;
                    }
                    b.add(t[i], raw.pos[i]);
                }
            } else if (c == '\\' && i + 1 < t.size()) {
                ++i;
                b.add(t[i], raw.pos[i]);
            } else if (c == '`') { // an old-style command substitution: not run either
                const size_t close = t.find('`', i + 1);
                b.addText(PosText{"$(...)", std::vector<Pos>(6, raw.pos[i])});
                i = close == std::string::npos ? t.size() : close;
            } else if (c == '$') {
                const Expansion e = dollar(raw, i);
                if (!split) {
                    addQuoted(b, e);
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

    static void addQuoted(WordBuilder& b, const Expansion& e)
    {
        for (size_t k = 0; k < e.fields.size(); ++k) {
            if (k > 0) {
                if (e.list)
                    b.breakWord();
                else
                    b.add(' ', e.fields[k].first());
            }
            b.addText(e.fields[k]);
        }
    }

    // The expansion at raw.text[i] == '$'; i is left on its last character.
    Expansion dollar(const PosText& raw, size_t& i)
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
            if (t.compare(i + 1, 2, "((") == 0 && t[close - 1] == ')') {
                const PosText inner = raw.slice(i + 3, close - 1);
                const auto value = arithmetic(joinedExpansion(inner).text);
                if (value) {
                    i = close;
                    PosText out;
                    for (char c : std::to_string(*value))
                        out.push(c, raw.pos[start]);
                    return {{out}, false};
                }
            }
            // A command substitution is not run; it stands as one blank-free word, whatever
            // the command's own text holds.
            i = close;
            return {{PosText{"$(...)", std::vector<Pos>(6, raw.pos[start])}}, false};
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
                return {{v->elements.empty() ? PosText{} : v->elements.front()}, false};
            }
            return literal(end - 1);
        }
        if (next != '\0' && (std::isdigit(static_cast<unsigned char>(next)) ||
                             std::string("@*#?$!-").find(next) != std::string::npos))
            return literal(i + 1); // positional and special parameters: not known
        return literal(i);
    }

    // ${NAME}, ${NAME[@]}, ${NAME[i]}, ${NAME:-word}, ${NAME-word}, ${NAME:=word},
    // ${NAME:+word}; nothing for other forms, which stay as written.
    std::optional<Expansion> parameter(const PosText& inner)
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
            value = {v->elements, index == "@"};
        } else if (v) {
            const auto n = index.empty() ? std::optional<int64_t>(0) : parseInteger(index);
            if (n && *n >= 0 && size_t(*n) < v->elements.size())
                value.fields.push_back(v->elements[size_t(*n)]);
            else if (!n)
                return std::nullopt;
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

    std::optional<int64_t> arithmetic(const std::string& text) const
    {
        Arithmetic a(
            text,
            [](const void* self, const std::string& name) -> std::optional<int64_t> {
                const Variable* v = static_cast<const ScriptReader*>(self)->find(name);
                if (!v || v->elements.empty())
                    return std::nullopt;
                return parseInteger(v->elements.front().text);
            },
            this);
        return a.evaluate();
    }

    // --- if / elif / else --------------------------------------------------------------------

    struct Frame {
        bool parentActive = true;
        bool active = true;
        bool taken = false;
    };

    void ifBranch(const std::vector<PosText>& test, const PosText& keyword)
    {
        const bool parent = active();
        const bool take = parent && decide(test, keyword);
        m_frames.push_back({parent, take, take});
    }

    void elifBranch(const std::vector<PosText>& test, const PosText& keyword)
    {
        if (m_frames.empty())
            return;
        Frame& f = m_frames.back();
        f.active = !f.taken && f.parentActive && decide(test, keyword);
        f.taken = f.taken || f.active;
    }

    void elseBranch()
    {
        if (m_frames.empty())
            return;
        Frame& f = m_frames.back();
        f.active = !f.taken && f.parentActive;
        f.taken = true;
    }

    bool decide(const std::vector<PosText>& test, const PosText& keyword)
    {
        const Truth t = condition(test);
        if (t != Truth::Unknown)
            return t == Truth::True;
        std::string text;
        for (const PosText& w : test)
            text += (text.empty() ? "" : " ") + w.text;
        m_report.note(place(keyword.first()),
                      "the test \"" + printable(text) +
                          "\" needs the script to run; its branch is read as if true");
        return true;
    }

    Truth condition(const std::vector<PosText>& words)
    {
        Truth result = Truth::True;
        std::string op = "&&";
        std::vector<PosText> group;
        auto combine = [&] {
            const Truth g = test(group);
            result = op == "&&" ? both(result, g) : either(result, g);
            group.clear();
        };
        for (const PosText& w : words) {
            if (w.text == "&&" || w.text == "||") {
                combine();
                op = w.text;
            } else {
                group.push_back(w);
            }
        }
        combine();
        return result;
    }

    Truth test(std::vector<PosText> words)
    {
        bool negate = false;
        while (!words.empty() && words.front().text == "!") {
            negate = !negate;
            words.erase(words.begin());
        }
        if (words.empty())
            return Truth::Unknown;
        const std::string open = words.front().text;
        if (open != "[" && open != "[[" && open != "test")
            return Truth::Unknown; // a command's exit status
        words.erase(words.begin());
        if (!words.empty() && (words.back().text == "]" || words.back().text == "]]"))
            words.pop_back();
        std::vector<std::string> args;
        for (const PosText& w : words) {
            const std::string value = joinedExpansion(w).text;
            if (value.find('$') != std::string::npos || value.find('`') != std::string::npos)
                return Truth::Unknown;
            args.push_back(value);
        }
        const Truth t = evaluateTest(args);
        if (!negate || t == Truth::Unknown)
            return t;
        return t == Truth::True ? Truth::False : Truth::True;
    }

    static Truth evaluateTest(const std::vector<std::string>& a)
    {
        if (!a.empty() && a[0] == "!") {
            const Truth t = evaluateTest(std::vector<std::string>(a.begin() + 1, a.end()));
            return t == Truth::Unknown ? t : truth(t == Truth::False);
        }
        if (a.size() == 1)
            return truth(!a[0].empty());
        if (a.size() == 2 && (a[0] == "-n" || a[0] == "-z"))
            return truth(a[0] == "-n" ? !a[1].empty() : a[1].empty());
        if (a.size() != 3)
            return Truth::Unknown;
        if (a[1] == "=" || a[1] == "==")
            return truth(globMatch(a[0], a[2]));
        if (a[1] == "!=")
            return truth(!globMatch(a[0], a[2]));
        const auto x = parseInteger(a[0]);
        const auto y = parseInteger(a[2]);
        if (!x || !y)
            return Truth::Unknown;
        if (a[1] == "-eq")
            return truth(*x == *y);
        if (a[1] == "-ne")
            return truth(*x != *y);
        if (a[1] == "-lt")
            return truth(*x < *y);
        if (a[1] == "-le")
            return truth(*x <= *y);
        if (a[1] == "-gt")
            return truth(*x > *y);
        if (a[1] == "-ge")
            return truth(*x >= *y);
        return Truth::Unknown;
    }

    ImportReport& m_report;
    std::vector<std::string> m_files;
    std::map<std::string, Variable> m_vars;
    std::vector<std::string> m_order;
    std::vector<Frame> m_frames;
    std::vector<ShellCommand> m_commands;
    int m_depth = 0;
};

} // namespace

ShellScript readShellScripts(const std::vector<SourceText>& sources, ImportReport& report)
{
    ScriptReader reader(report);
    for (const SourceText& source : sources)
        reader.read(source);
    return reader.result();
}

} // namespace cs
