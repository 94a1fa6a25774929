// Parsing JSON text with every problem located: line and column, duplicate keys, depth.

#include <array>
#include <iterator>

#include "jsonfields.h"
#include "loader.h"

namespace cs {

using nlohmann::json;

namespace {

// Builds the document from nlohmann's SAX events, which lets it refuse deep nesting before
// building it, see duplicate keys (which nlohmann would silently overwrite) and learn the
// byte offset of every syntax error, range errors included.
class DomBuilder {
public:
    DomBuilder(const std::string& file, Diagnostics& diags)
        : m_file(file)
        , m_diags(diags)
    {
    }

    bool null() { return add(json(nullptr)) != nullptr; }
    bool boolean(bool v) { return add(json(v)) != nullptr; }
    bool number_integer(json::number_integer_t v) { return add(json(v)) != nullptr; }
    bool number_unsigned(json::number_unsigned_t v) { return add(json(v)) != nullptr; }
    bool number_float(json::number_float_t v, const std::string&)
    {
        return add(json(v)) != nullptr;
    }
    bool string(std::string& v) { return add(json(std::move(v))) != nullptr; }
    bool binary(json::binary_t&) { return false; } // JSON text holds no binary values
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(std::string& k)
    {
        if (m_stack.back()->contains(k)) {
            m_diags.atPointer(m_file, currentPointer() + "/" + pointerToken(k),
                              "duplicate key " + inQuotes(k));
            m_hasDuplicates = true;
        }
        m_key = std::move(k);
        return true;
    }

    bool parse_error(std::size_t position, const std::string& token, const json::exception& e)
    {
        // A number out of range is only known once read whole: point at its first digit.
        const bool numberOverflow = e.id == 406 && !token.empty();
        m_errorPosition = numberOverflow ? position + 1 - token.size() : position;
        m_errorMessage = e.what();
        return false;
    }

    json& root() { return m_root; }
    bool tooDeep() const { return m_tooDeep; }
    size_t containersOpened() const { return m_opened; }
    // Where the value past kMaxJsonValues was to go, when there was one.
    const std::optional<std::string>& tooManyAt() const { return m_tooManyAt; }
    // 0 when that value was outside a session's parts.
    int tooManyPart() const { return m_tooManyPart; }
    bool hasDuplicates() const { return m_hasDuplicates; }
    std::size_t errorPosition() const { return m_errorPosition; }
    const std::string& errorMessage() const { return m_errorMessage; }

private:
    // How the next value is reached from the innermost open container.
    std::string nextToken() const
    {
        return m_stack.empty()              ? std::string()
               : m_stack.back()->is_array() ? std::to_string(m_stack.back()->size())
                                            : m_key;
    }

    json* add(json&& value)
    {
        m_lastToken = nextToken();
        m_lastPart = partOf(m_lastToken);
        if (++m_values[size_t(m_lastPart)] > kMaxJsonValues) {
            m_tooManyAt = currentPointer();
            m_tooManyPart = m_lastPart;
            return nullptr;
        }
        if (m_stack.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        json& parent = *m_stack.back();
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return &parent.back();
        }
        json& slot = parent[m_key];
        slot = std::move(value);
        return &slot;
    }

    // The part of a session (see parseJson) that a value reached by `token` from the innermost
    // open container belongs to: 0, the rest, unless it is a part or inside one.
    int partOf(const std::string& token) const
    {
        const int parent = m_parts.empty() ? 0 : m_parts.back();
        if (parent != 0 || m_stack.empty() || !m_stack.front()->is_object())
            return parent;
        const size_t depth = m_stack.size(); // of the new value
        const bool clusterOrRun = token == "cluster" || token == "run";
        if (depth == 1 && clusterOrRun)
            return token == "cluster" ? 1 : 2;
        if (depth == 2 && clusterOrRun && m_tokens[1] == "compare")
            return token == "cluster" ? 3 : 4;
        if (depth == 3 && token == "run" && m_tokens[1] == "jobs" && m_stack[1]->is_array()) {
            const size_t job = std::stoul(m_tokens[2]); // an index: digits only
            if (job < size_t(kSessionJobParts))
                return 5 + int(job);
        }
        return 0;
    }

    // Nesting is counted from the root of the part a container is in, so that a part nests as
    // deep in a session as in a file of its own.
    bool open(json&& container)
    {
        ++m_opened;
        const size_t depth = m_stack.size();
        const int part = partOf(nextToken());
        const bool startsPart = part != (m_parts.empty() ? 0 : m_parts.back());
        const size_t partRoot = startsPart || m_partRoots.empty() ? depth : m_partRoots.back();
        if (depth - partRoot >= size_t(kMaxJsonDepth)) {
            m_tooDeep = true;
            return false;
        }
        json* added = add(std::move(container));
        if (!added)
            return false;
        m_stack.push_back(added);
        m_tokens.push_back(m_lastToken);
        m_parts.push_back(m_lastPart);
        m_partRoots.push_back(partRoot);
        return true;
    }

    bool close()
    {
        m_stack.pop_back();
        m_tokens.pop_back();
        m_parts.pop_back();
        m_partRoots.pop_back();
        return true;
    }

    std::string currentPointer() const
    {
        std::string pointer;
        for (size_t i = 1; i < m_tokens.size(); ++i) {
            pointer += '/';
            pointer += pointerToken(m_tokens[i]);
        }
        return pointer;
    }

    const std::string& m_file;
    Diagnostics& m_diags;
    json m_root;
    // Containers hold their children in std::map and std::vector; a container is only
    // appended to while it is the innermost open one, so these pointers stay valid.
    std::vector<json*> m_stack;
    std::vector<std::string> m_tokens; // how each open container is reached from its parent
    std::vector<int> m_parts;          // the part each open container belongs to
    std::vector<size_t> m_partRoots;   // the depth of that part's root
    size_t m_opened = 0;               // containers opened so far, the refused one included
    std::string m_key;
    std::string m_lastToken;
    int m_lastPart = 0;
    bool m_tooDeep = false;
    std::array<int64_t, kSessionParts> m_values{}; // per part
    std::optional<std::string> m_tooManyAt;
    int m_tooManyPart = 0;
    bool m_hasDuplicates = false;
    std::size_t m_errorPosition = 0;
    std::string m_errorMessage;
};

// JSON text as nlohmann reads it, with every run of whitespace outside strings shortened to its
// first character. nlohmann keeps every character since the last value it read and, on a syntax
// error, copies them into its message several times, each control character spelled as
// "<U+000A>": 63 MB of newlines before an error cost 2 GB and 15 s. Folded, whitespace costs
// nothing there, and the error's place is found again in the text by folding it once more
// (originalOffset), in linear time and no memory.
class FoldingIterator {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    FoldingIterator(const char* at, const char* end)
        : m_at(at)
        , m_end(end)
    {
    }
    reference operator*() const { return *m_at; }
    FoldingIterator& operator++()
    {
        const char c = *m_at++;
        if (m_inString) {
            m_inString = m_escaped || c != '"';
            m_escaped = !m_escaped && c == '\\';
            return *this;
        }
        m_inString = c == '"';
        if (isWhitespace(c)) {
            while (m_at != m_end && isWhitespace(*m_at))
                ++m_at;
        }
        return *this;
    }
    FoldingIterator operator++(int)
    {
        FoldingIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const FoldingIterator& other) const { return m_at == other.m_at; }
    const char* at() const { return m_at; }

private:
    static bool isWhitespace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

    const char* m_at;
    const char* m_end;
    bool m_inString = false;
    bool m_escaped = false;
};

// The offset in `text` of the character nlohmann read as its `folded`-th (from 0).
size_t originalOffset(std::string_view text, size_t folded)
{
    FoldingIterator it(text.data(), text.data() + text.size());
    const FoldingIterator end(text.data() + text.size(), text.data() + text.size());
    for (size_t i = 0; i < folded && it != end; ++i)
        ++it;
    return size_t(it.at() - text.data());
}

struct TextPosition {
    int line = 1;
    int column = 1;
};

// Columns count characters, not bytes, as editors do.
TextPosition positionOf(std::string_view text, size_t index)
{
    TextPosition pos;
    size_t lineStart = 0;
    for (size_t i = 0; i < index && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++pos.line;
            lineStart = i + 1;
        }
    }
    for (size_t i = lineStart; i < index && i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80)
            ++pos.column;
    }
    return pos;
}

// The offset of the n-th bracket that opens an array or an object (from 1). Only called after
// the parser accepted everything before it, so brackets inside strings are all that need care.
size_t openingBracket(std::string_view text, size_t n)
{
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if ((c == '[' || c == '{') && --n == 0) {
            return i;
        }
    }
    return text.size();
}

void replaceAll(std::string& text, const std::string& from, const std::string& to)
{
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

// nlohmann's messages carry an exception id and a position of their own; keep only what
// went wrong, in the words a person editing the file uses.
std::string plainSyntaxMessage(std::string what)
{
    const size_t dash = what.find(" - ");
    if (what.find("syntax error") != std::string::npos && dash != std::string::npos)
        what = what.substr(dash + 3);
    else if (const size_t close = what.find("] "); close != std::string::npos)
        what = what.substr(close + 2);
    // The echoed token runs from where nlohmann's lexer last started, often far before the
    // fault; the line and column say where it is better.
    if (const size_t lastRead = what.find("; last read: "); lastRead != std::string::npos) {
        const size_t expected = what.find("; expected", lastRead);
        what.erase(lastRead,
                   expected == std::string::npos ? std::string::npos : expected - lastRead);
    }
    replaceAll(what, "string literal", "a key in double quotes");
    replaceAll(what, "invalid literal",
               "not a JSON value (JSON has no NaN, Infinity, comments or unquoted words)");
    replaceAll(what, "number overflow parsing", "number too large:");
    return what;
}

} // namespace

std::optional<json> parseJson(std::string_view text, const std::string& file, Diagnostics& diags)
{
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);
    if (text.empty()) {
        diags.atPosition(file, 1, 1, "empty file; expected a JSON object");
        return std::nullopt;
    }
    DomBuilder builder(file, diags);
    bool parsed = false;
    try {
        const char* const end = text.data() + text.size();
        parsed =
            json::sax_parse(FoldingIterator(text.data(), end), FoldingIterator(end, end), &builder);
    } catch (const std::exception& e) {
        diags.atPosition(file, 1, 1, std::string("cannot parse: ") + e.what());
        return std::nullopt;
    }
    if (builder.tooDeep()) {
        const TextPosition pos = positionOf(text, openingBracket(text, builder.containersOpened()));
        diags.atPosition(file, pos.line, pos.column,
                         "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        return std::nullopt;
    }
    if (builder.tooManyAt()) {
        const std::string where = builder.tooManyPart() == 0
                                      ? "in one file"
                                      : "in one part of a session (a cluster or a run)";
        diags.atPointer(file, *builder.tooManyAt(),
                        "more than " + withThousands(kMaxJsonValues) +
                            " JSON values (numbers, strings, arrays, objects ...) " + where +
                            "; ClusterScope reads at most that many");
        return std::nullopt;
    }
    if (!parsed) {
        // nlohmann counts characters read, so the offending one is at position - 1.
        const size_t position = builder.errorPosition();
        const TextPosition pos =
            positionOf(text, originalOffset(text, position > 0 ? position - 1 : 0));
        diags.atPosition(file, pos.line, pos.column, plainSyntaxMessage(builder.errorMessage()));
        return std::nullopt;
    }
    if (builder.hasDuplicates())
        return std::nullopt;
    return std::move(builder.root());
}

} // namespace cs
