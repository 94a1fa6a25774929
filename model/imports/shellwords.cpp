// Statements and words of a shell script, quotes and expansions kept as written.

#include "shellwords.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "shelllimits.h"
#include "text.h"

namespace cs::shell {

namespace {

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
            // A comment may follow the options; looked for within the line only.
            const size_t comment = std::string_view(m_src).substr(0, end).find(" #", m_i);
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

} // namespace

std::vector<Statement> splitStatements(const std::string& source, int file)
{
    return StatementSplitter(source, file).split();
}

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
    auto open = [&](char closer) {
        closers.push_back(closer);
        if (closers.size() > size_t(kMaxNesting))
            throw LimitExceeded{"brackets nested more than " + std::to_string(kMaxNesting) +
                                " deep"};
    };
    for (size_t i = 0; i < s.text.size(); ++i) {
        if (word.text.size() > kMaxValueBytes)
            throw LimitExceeded{"a word longer than " + withThousands(int64_t(kMaxValueBytes)) +
                                " bytes: a launch script's words are kilobytes"};
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
            open(s.text[i + 1] == '(' ? ')' : '}');
            word.push(c, s.pos[i]);
            ++i;
            word.push(s.text[i], s.pos[i]);
            continue;
        }
        if (c == '(')
            open(')');
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

bool isRedirection(const PosText& w)
{
    if (w.text.empty() || isListOperator(w))
        return false;
    const size_t digits = w.text.find_first_not_of("0123456789");
    return digits != std::string::npos && isOperatorChar(w.text[digits]) &&
           std::all_of(w.text.begin() + long(digits), w.text.end(),
                       [](char c) { return isOperatorChar(c); });
}

} // namespace cs::shell
