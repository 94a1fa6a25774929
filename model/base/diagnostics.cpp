#include "diagnostics.h"

namespace cs {

std::string Diagnostic::format() const
{
    if (line > 0)
        return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
    // An empty pointer means the whole document (or the file itself), which reads better
    // without a pointer than with a bare "/".
    if (pointer.empty())
        return file + ": " + message;
    return file + ": " + pointer + ": " + message;
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
