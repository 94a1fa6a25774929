// YAML (the subset configs use) and JSON read into one tree of located nodes.

#include "configtree.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "jsonfields.h"
#include "loader.h"
#include "text.h"

namespace cs {

namespace {

constexpr int kMaxDepth = 64;

struct YamlLine {
    int number = 0;   // 1-based
    int indent = 0;   // leading spaces
    std::string text; // without indentation, comment and trailing blanks
};

bool isSequenceItem(std::string_view text)
{
    return text == "-" || text.starts_with("- ");
}

// The end of a quoted scalar starting at text[open]; npos when it does not close.
size_t closingQuote(std::string_view text, size_t open)
{
    const char q = text[open];
    for (size_t i = open + 1; i < text.size(); ++i) {
        if (q == '"' && text[i] == '\\') {
            ++i;
        } else if (text[i] == q) {
            if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
                ++i; // '' is a quote inside single quotes
                continue;
            }
            return i;
        }
    }
    return std::string::npos;
}

// The colon that ends a mapping key ("key: value", "key:", "'a b': 1"), if the text is one.
std::optional<size_t> keyColon(std::string_view text)
{
    if (text.empty() || text[0] == '[' || text[0] == '{')
        return std::nullopt;
    size_t from = 0;
    if (text[0] == '"' || text[0] == '\'') {
        const size_t close = closingQuote(text, 0);
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
            return std::nullopt;
        from = close + 1;
    }
    for (size_t i = from; i < text.size(); ++i) {
        if (text[i] == ':' && (i + 1 == text.size() || text[i + 1] == ' '))
            return i;
    }
    return std::nullopt;
}

void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

class YamlReader {
public:
    YamlReader(const SourceText& source, ImportReport& report)
        : m_source(source)
        , m_report(report)
    {
    }

    std::optional<ConfigNode> read()
    {
        splitLines();
        ConfigNode root;
        root.kind = ConfigNode::Kind::Mapping;
        root.place = {m_source.file, 1, 1, ""};
        if (!m_failed && !m_lines.empty()) {
            size_t i = 0;
            root = block(i, m_lines[0].indent, 0);
            if (!m_failed && i < m_lines.size())
                fail(m_lines[i], "less indented than the first line of the file");
        }
        if (m_failed)
            return std::nullopt;
        return root;
    }

private:
    void fail(int line, int column, const std::string& message)
    {
        if (m_failed)
            return; // the first problem only: what follows it cannot be read reliably
        m_failed = true;
        m_report.error({m_source.file, line, column, ""}, message);
    }

    void fail(const YamlLine& line, const std::string& message)
    {
        fail(line.number, line.indent + 1, message);
    }

    SourcePlace placeOf(int line, int column) const { return {m_source.file, line, column, ""}; }

    // Values are counted as a JSON file's are (kMaxJsonValues), so that what a file costs in
    // memory is bounded by more than its size. False, and the problem said, past the limit.
    bool counted(int line, int column)
    {
        if (++m_values <= kMaxJsonValues)
            return true;
        fail(line, column,
             "more than " + withThousands(kMaxJsonValues) +
                 " values in one file; ClusterScope reads at most that many");
        return false;
    }

    // Lines without comments, trailing blanks and blank lines, their indentation measured.
    void splitLines()
    {
        std::string_view text = m_source.text;
        if (text.starts_with("\xEF\xBB\xBF"))
            text.remove_prefix(3);
        const std::vector<std::string_view> lines = textLines(text);
        for (size_t n = 0; n < lines.size(); ++n) {
            const int number = int(n) + 1;
            const std::string line(lines[n]);
            const size_t content = line.find_first_not_of(" \t");
            if (content == std::string::npos || line[content] == '#')
                continue;
            if (line.find('\t') < content) {
                fail(number, int(line.find('\t')) + 1,
                     "a tab in the indentation: YAML indents "
                     "with spaces");
                return;
            }
            std::string body = stripComment(line.substr(content));
            if (body == "---" && m_lines.empty())
                continue;
            if (body == "...")
                return;
            if (body.starts_with("---") || body.starts_with("%")) {
                fail(number, int(content) + 1,
                     "a second document or a directive: one YAML document is read");
                return;
            }
            if (!counted(number, int(content) + 1))
                return;
            m_lines.push_back({number, int(content), std::move(body)});
        }
    }

    // The text before a comment ('#' at the start or after a blank, outside quotes).
    static std::string stripComment(const std::string& text)
    {
        char quote = 0;
        for (size_t i = 0; i < text.size(); ++i) {
            const char c = text[i];
            if (quote) {
                if (quote == '"' && c == '\\')
                    ++i;
                else if (c == quote)
                    quote = 0;
            } else if ((c == '"' || c == '\'') &&
                       (i == 0 || std::string(" [,:-").find(text[i - 1]) != std::string::npos)) {
                quote = c;
            } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
                std::string kept = text.substr(0, i);
                kept.erase(kept.find_last_not_of(" \t") + 1);
                return kept;
            }
        }
        std::string kept = text;
        kept.erase(kept.find_last_not_of(" \t") + 1);
        return kept;
    }

    ConfigNode block(size_t& i, int indent, int depth)
    {
        if (depth > kMaxDepth) {
            fail(m_lines[i], "nested deeper than " + std::to_string(kMaxDepth) + " levels");
            return {};
        }
        return isSequenceItem(m_lines[i].text) ? sequence(i, indent, depth)
                                               : mapping(i, indent, depth);
    }

    ConfigNode nullNode(int line, int column) const
    {
        ConfigNode n;
        n.scalar = "null";
        n.place = placeOf(line, column);
        return n;
    }

    // The value after "key:" or "- " when nothing follows on the line.
    ConfigNode valueBelow(size_t& i, int indent, int depth, int line, int column)
    {
        if (i < m_lines.size() && m_lines[i].indent > indent)
            return block(i, m_lines[i].indent, depth + 1);
        return nullNode(line, column);
    }

    void noContinuation(size_t i, int indent)
    {
        if (i < m_lines.size() && m_lines[i].indent > indent)
            fail(m_lines[i], "a value running over several lines is not read: write it on one "
                             "line, quoted if need be");
    }

    ConfigNode mapping(size_t& i, int indent, int depth)
    {
        ConfigNode node;
        node.kind = ConfigNode::Kind::Mapping;
        node.place = placeOf(m_lines[i].number, indent + 1);
        std::set<std::string> keys;
        while (i < m_lines.size() && !m_failed) {
            const YamlLine line = m_lines[i];
            if (line.indent < indent)
                break;
            if (line.indent > indent) {
                fail(line, "unexpected indentation");
                break;
            }
            if (isSequenceItem(line.text)) {
                fail(line, "a sequence item where a key was expected");
                break;
            }
            const auto colon = keyColon(line.text);
            if (!colon) {
                fail(line, "expected \"key: value\"" + hint(line.text));
                break;
            }
            std::string key = line.text.substr(0, *colon);
            if (!key.empty() && (key[0] == '"' || key[0] == '\'')) {
                key = quotedScalar(key, line.number, line.indent + 1).scalar;
            } else if (key.empty() || key[0] == '?' || key[0] == '&' || key[0] == '!' ||
                       key[0] == '*') {
                fail(line, "a key of a kind this reader does not take: " + cs::inQuotes(key));
                break;
            }
            const size_t restStart = line.text.find_first_not_of(' ', *colon + 1);
            const int keyColumn = line.indent + 1;
            ++i;
            ConfigNode value;
            if (restStart == std::string::npos) {
                if (i < m_lines.size() && m_lines[i].indent == indent &&
                    isSequenceItem(m_lines[i].text))
                    value = sequence(i, indent, depth + 1);
                else
                    value = valueBelow(i, indent, depth, line.number, keyColumn);
            } else {
                value = inlineValue(line.text.substr(restStart), line.number,
                                    line.indent + int(restStart) + 1);
                noContinuation(i, indent);
            }
            value.place = placeOf(line.number, keyColumn);
            if (!keys.insert(key).second) {
                fail(line, "duplicate key " + cs::inQuotes(key));
                break;
            }
            node.entries.push_back({std::move(key), std::move(value)});
        }
        return node;
    }

    ConfigNode sequence(size_t& i, int indent, int depth)
    {
        ConfigNode node;
        node.kind = ConfigNode::Kind::Sequence;
        node.place = placeOf(m_lines[i].number, indent + 1);
        while (i < m_lines.size() && !m_failed) {
            YamlLine& line = m_lines[i];
            if (line.indent < indent || (line.indent == indent && !isSequenceItem(line.text)))
                break;
            if (line.indent > indent) {
                fail(line, "unexpected indentation");
                break;
            }
            const size_t restStart = line.text.find_first_not_of(' ', 1);
            if (restStart == std::string::npos) {
                const int number = line.number;
                ++i;
                node.items.push_back(valueBelow(i, indent, depth, number, indent + 1));
                continue;
            }
            if (opensBlock(std::string_view(line.text).substr(restStart))) {
                // "- key: value" opens a mapping (and "- - x" a sequence) at the rest's column:
                // the line is cut in place, so that one nested deep holds one copy of itself.
                line.indent += int(restStart);
                line.text.erase(0, restStart);
                node.items.push_back(block(i, line.indent, depth + 1));
                continue;
            }
            node.items.push_back(
                inlineValue(line.text.substr(restStart), line.number, indent + int(restStart) + 1));
            ++i;
            noContinuation(i, indent);
        }
        return node;
    }

    static bool opensBlock(std::string_view rest) { return keyColon(rest) || isSequenceItem(rest); }

    static std::string hint(const std::string& text)
    {
        if (text.find(':') != std::string::npos)
            return " (a key needs a blank after its colon)";
        return "";
    }

    ConfigNode inlineValue(const std::string& text, int line, int column)
    {
        const char c = text[0];
        if (c == '[') {
            size_t pos = 0;
            ConfigNode seq = flowSequence(text, pos, line, column, 0);
            if (!m_failed && pos != text.size())
                fail(line, column + int(pos), "text after a flow sequence's ']'");
            return seq;
        }
        if (c == '{') {
            if (text == "{}") {
                ConfigNode empty;
                empty.kind = ConfigNode::Kind::Mapping;
                return empty;
            }
            fail(line, column,
                 "a flow mapping {...} is not read: write its keys on lines of "
                 "their own");
            return {};
        }
        if (c == '"' || c == '\'') {
            const size_t close = closingQuote(text, 0);
            if (close != std::string::npos && close + 1 != text.size()) {
                fail(line, column + int(close) + 1, "text after a quoted value");
                return {};
            }
            return quotedScalar(text, line, column);
        }
        if (std::string("&*!|>@`%").find(c) != std::string::npos) {
            static const char* const kWhat[] = {"an anchor",
                                                "an alias",
                                                "a tag",
                                                "a block scalar",
                                                "a block scalar",
                                                "a reserved character",
                                                "a reserved character",
                                                "a directive"};
            fail(line, column,
                 std::string(kWhat[std::string("&*!|>@`%").find(c)]) +
                     " is not read by this YAML reader");
            return {};
        }
        if (text.find(": ") != std::string::npos) {
            fail(line, column, "\": \" inside a plain value: quote the value");
            return {};
        }
        ConfigNode n;
        n.scalar = text;
        n.place = placeOf(line, column);
        return n;
    }

    ConfigNode quotedScalar(const std::string& text, int line, int column)
    {
        ConfigNode n;
        n.quoted = true;
        n.place = placeOf(line, column);
        const size_t close = closingQuote(text, 0);
        if (close == std::string::npos) {
            fail(line, column, "a quoted value must close on its line");
            return n;
        }
        if (text[0] == '\'') {
            for (size_t i = 1; i < close; ++i) {
                n.scalar += text[i];
                if (text[i] == '\'')
                    ++i;
            }
            return n;
        }
        for (size_t i = 1; i < close; ++i) {
            if (text[i] != '\\') {
                n.scalar += text[i];
                continue;
            }
            const char e = text[++i];
            static const std::string kFrom = "\\\"/ntr0";
            static const std::string kTo = "\\\"/\n\t\r";
            if (const size_t k = kFrom.find(e); k != std::string::npos && k < kTo.size()) {
                n.scalar += kTo[k];
            } else if (e == '0') {
                n.scalar += '\0';
            } else if ((e == 'x' || e == 'u') && i + (e == 'x' ? 2u : 4u) < close) {
                const size_t digits = e == 'x' ? 2 : 4;
                const std::string hex = text.substr(i + 1, digits);
                if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
                    fail(line, column + int(i), "a bad escape \\" + std::string(1, e) + hex);
                    return n;
                }
                appendUtf8(n.scalar, uint32_t(std::stoul(hex, nullptr, 16)));
                i += digits;
            } else {
                fail(line, column + int(i) - 1,
                     "an escape this reader does not take: \\" + std::string(1, e));
                return n;
            }
        }
        return n;
    }

    // "[a, 'b', [1, 2]]" from text[pos] == '['; pos is left after the ']'.
    ConfigNode flowSequence(const std::string& text, size_t& pos, int line, int column, int depth)
    {
        ConfigNode seq;
        seq.kind = ConfigNode::Kind::Sequence;
        seq.place = placeOf(line, column + int(pos));
        if (depth > kMaxDepth) {
            fail(line, column + int(pos),
                 "nested deeper than " + std::to_string(kMaxDepth) + " levels");
            return seq;
        }
        ++pos;
        auto skipBlanks = [&] {
            while (pos < text.size() && text[pos] == ' ')
                ++pos;
        };
        skipBlanks();
        if (pos < text.size() && text[pos] == ']') {
            ++pos;
            return seq;
        }
        while (pos < text.size() && !m_failed) {
            skipBlanks();
            if (!counted(line, column + int(pos)))
                return seq;
            const char c = pos < text.size() ? text[pos] : '\0';
            if (c == '[') {
                seq.items.push_back(flowSequence(text, pos, line, column, depth + 1));
            } else if (c == '"' || c == '\'') {
                const size_t close = closingQuote(text, pos);
                if (close == std::string::npos)
                    break;
                seq.items.push_back(
                    quotedScalar(text.substr(pos, close - pos + 1), line, column + int(pos)));
                pos = close + 1;
            } else if (c == '{' || c == '&' || c == '*' || c == '!') {
                fail(line, column + int(pos), "only scalars and sequences are read inside [...]");
                return seq;
            } else {
                const size_t end = std::min(text.find_first_of(",]", pos), text.size());
                std::string item = text.substr(pos, end - pos);
                item.erase(item.find_last_not_of(' ') + 1);
                if (item.empty()) {
                    fail(line, column + int(pos), "an empty item in a flow sequence");
                    return seq;
                }
                ConfigNode n;
                n.scalar = item;
                n.place = placeOf(line, column + int(pos));
                seq.items.push_back(std::move(n));
                pos = end;
            }
            skipBlanks();
            if (pos < text.size() && text[pos] == ',') {
                ++pos;
                continue;
            }
            if (pos < text.size() && text[pos] == ']') {
                ++pos;
                return seq;
            }
            break;
        }
        fail(line, column + int(std::min(pos, text.size())),
             "a flow sequence [...] must close on its line");
        return seq;
    }

    const SourceText& m_source;
    ImportReport& m_report;
    std::vector<YamlLine> m_lines;
    bool m_failed = false;
    int64_t m_values = 0; // lines and flow items read
};

ConfigNode fromJson(const nlohmann::json& j, const std::string& file, const std::string& pointer)
{
    ConfigNode n;
    n.place = {file, 0, 0, pointer};
    if (j.is_object()) {
        n.kind = ConfigNode::Kind::Mapping;
        for (const auto& [key, value] : j.items())
            n.entries.push_back({key, fromJson(value, file, pointer + "/" + pointerToken(key))});
    } else if (j.is_array()) {
        n.kind = ConfigNode::Kind::Sequence;
        for (size_t i = 0; i < j.size(); ++i)
            n.items.push_back(fromJson(j[i], file, pointer + "/" + std::to_string(i)));
    } else if (j.is_string()) {
        n.scalar = j.get<std::string>();
        n.quoted = true;
    } else if (j.is_number_float()) {
        n.scalar = numberText(j.get<double>());
    } else {
        n.scalar = j.dump(); // integers, true, false, null
    }
    return n;
}

} // namespace

std::optional<ConfigNode> parseYamlSubset(const SourceText& source, ImportReport& report)
{
    return YamlReader(source, report).read();
}

std::optional<ConfigNode> parseJsonConfig(const SourceText& source, ImportReport& report)
{
    const std::optional<nlohmann::json> j = parseJson(source.text, source.file, report.errors);
    if (!j)
        return std::nullopt;
    return fromJson(*j, source.file, "");
}

} // namespace cs
