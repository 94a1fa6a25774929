#include "diagnostics.h"

#include <cctype>

#include "text.h"

namespace cs {

namespace {

// The key of the problems past kMaxKept whose kind was not kept: no file is named that.
const std::string kOtherKinds(1, '\0');

// The file (without the ":LINE" of a row of measured runs), and the message with what is in
// double quotes and every number masked: problems of one kind have the same key.
std::string kindKey(const Diagnostic& d)
{
    const size_t rowNumber = d.file.find_last_not_of("0123456789");
    const bool numbered =
        rowNumber != std::string::npos && rowNumber + 1 < d.file.size() && d.file[rowNumber] == ':';
    std::string key = numbered ? d.file.substr(0, rowNumber) : d.file;
    key += '\0';
    const std::string& m = d.message;
    for (size_t i = 0; i < m.size(); ++i) {
        const char c = m[i];
        if (c == '"') {
            key += "\"\"";
            const size_t close = m.find('"', i + 1);
            if (close == std::string::npos)
                break;
            i = close;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            key += '#';
            while (i + 1 < m.size() && (std::isdigit(static_cast<unsigned char>(m[i + 1])) ||
                                        m[i + 1] == '.' || m[i + 1] == ','))
                ++i;
        } else {
            key += c;
        }
    }
    return key;
}

} // namespace

std::string Diagnostic::format() const
{
    // What a file put into a name or a message is printed escaped, never obeyed by a terminal,
    // and cut: a path, a key or a number of megabytes is shown by its start and its end.
    const std::string where = printablePath(file);
    const std::string what = printable(withLongWordsCut(message), kNoLimit);
    if (file.empty())
        return what;
    if (line > 0)
        return where + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what;
    // An empty pointer means the whole document (or the file itself), which reads better
    // without a pointer than with a bare "/".
    if (pointer.empty())
        return where + ": " + what;
    return where + ": " + printablePath(pointer) + ": " + what;
}

void Diagnostics::atPosition(const std::string& file, int line, int column, std::string message)
{
    add(Diagnostic{file, line, column, "", std::move(message)});
}

void Diagnostics::atPointer(const std::string& file, std::string pointer, std::string message)
{
    add(Diagnostic{file, 0, 0, std::move(pointer), std::move(message)});
}

void Diagnostics::add(Diagnostic d)
{
    ++m_count;
    d.message = withLongWordsCut(d.message);
    d.pointer = cutInMiddle(d.pointer);
    std::string key = kindKey(d);
    const auto kind = m_kinds.find(key);
    const size_t kept = kind == m_kinds.end() ? 0 : kind->second.kept;
    if (kept >= kShownPerKind || m_items.size() >= kMaxKept) {
        fold(kind == m_kinds.end() ? kOtherKinds : key, d, 1);
        return;
    }
    ++m_kinds[key].kept;
    m_items.push_back(std::move(d));
    m_more.push_back(0);
    m_kindOf.push_back(std::move(key));
}

void Diagnostics::fold(const std::string& kindKey, const Diagnostic& d, size_t count)
{
    Kind& kind = m_kinds[kindKey];
    kind.more += count;
    const bool other = kindKey == kOtherKinds;
    std::string line =
        "and " + withThousands(int64_t(kind.more)) + (other ? " more problems" : " more like it");
    if (kind.summary < m_items.size()) {
        m_items[kind.summary].message = std::move(line);
        m_more[kind.summary] = kind.more;
        return;
    }
    kind.summary = m_items.size();
    // Located where the first problem not shown is, which is where the rest start.
    m_items.push_back(other ? Diagnostic{"", 0, 0, "", std::move(line)}
                            : Diagnostic{d.file, d.line, d.column, d.pointer, std::move(line)});
    m_more.push_back(kind.more);
    m_kindOf.push_back(kindKey);
}

void Diagnostics::append(const Diagnostics& other)
{
    if (&other == this) {
        const Diagnostics copy = other;
        append(copy);
        return;
    }
    for (size_t i = 0; i < other.m_items.size(); ++i) {
        if (other.m_more[i] == 0) {
            add(other.m_items[i]);
            continue;
        }
        m_count += other.m_more[i];
        fold(other.m_kindOf[i], other.m_items[i], other.m_more[i]);
    }
}

std::string Diagnostics::formatAll() const
{
    std::string text;
    for (const Diagnostic& d : m_items)
        text += d.format() + "\n";
    return text;
}

bool Diagnostics::contains(const std::string& text) const
{
    for (const Diagnostic& d : m_items) {
        if (d.message.find(text) != std::string::npos)
            return true;
    }
    return false;
}

} // namespace cs
