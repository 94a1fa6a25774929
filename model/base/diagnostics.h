#pragma once
// Problems found in a file, each located either by line:column (JSON syntax) or by a
// JSON pointer (a wrong value), and printed as formats.md's command-line contract says.

#include <string>
#include <vector>

namespace cs {

struct Diagnostic {
    std::string file;
    int line = 0; // 1-based; 0 when the problem is located by pointer
    int column = 0;
    std::string pointer; // JSON pointer such as "/parallelism/tp"; "" is the whole document
    std::string message;

    // "FILE:LINE:COLUMN: message" or "FILE: /json/pointer: message"
    std::string format() const;
};

class Diagnostics {
public:
    void atPosition(const std::string& file, int line, int column, std::string message);
    void atPointer(const std::string& file, std::string pointer, std::string message);
    void append(const Diagnostics& other);

    bool empty() const { return m_items.empty(); }
    size_t size() const { return m_items.size(); }
    const std::vector<Diagnostic>& items() const { return m_items; }
    std::string formatAll() const; // one line per problem
    // True when some diagnostic's message contains the text (used by tests and callers
    // that want to react to one kind of problem).
    bool contains(const std::string& text) const;

private:
    std::vector<Diagnostic> m_items;
};

} // namespace cs
