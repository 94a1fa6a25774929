#include "diagnostics.h"

#include "text.h"

namespace cs {

std::string Diagnostic::format() const
{
    // What a file put into a name or a message is printed escaped, never obeyed by a terminal.
    const std::string where = printable(file, kNoLimit);
    const std::string what = printable(message, kNoLimit);
    if (line > 0)
        return where + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what;
    // An empty pointer means the whole document (or the file itself), which reads better
    // without a pointer than with a bare "/".
    if (pointer.empty())
        return where + ": " + what;
    return where + ": " + printable(pointer, kNoLimit) + ": " + what;
}

void Diagnostics::atPosition(const std::string& file, int line, int column, std::string message)
{
    m_items.push_back(Diagnostic{file, line, column, "", std::move(message)});
}

void Diagnostics::atPointer(const std::string& file, std::string pointer, std::string message)
{
    m_items.push_back(Diagnostic{file, 0, 0, std::move(pointer), std::move(message)});
}

void Diagnostics::append(const Diagnostics& other)
{
    m_items.insert(m_items.end(), other.m_items.begin(), other.m_items.end());
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
