#pragma once
// Problems found in a file, each located either by line:column (JSON syntax) or by a
// JSON pointer (a wrong value), and printed as formats.md's command-line contract says.
//
// Bounded whatever a file holds: a message quotes at most a short excerpt of any value, key or
// path (withLongWordsCut, printable), and problems that repeat are kept only the first
// kShownPerKind times; the rest of that kind are counted in one line "and N more like it"
// (located where the first of them is: "f.json: /a: and 299,995 more like it"), and
// past kMaxKept problems kept in all, new kinds in one line "and N more problems". Problems are
// of a kind ("like it") when they are in the same file and their messages are the same once
// quoted text and numbers are masked: `duplicate key "k1"` and `duplicate key "k2"` are one kind
// (a row of measured runs, "FILE:LINE", counts as its file).

#include <cstddef>
#include <string>
#include <unordered_map>
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
    static constexpr size_t kShownPerKind = 5;
    static constexpr size_t kMaxKept = 1000;

    void atPosition(const std::string& file, int line, int column, std::string message);
    void atPointer(const std::string& file, std::string pointer, std::string message);
    void append(const Diagnostics& other);

    // Every problem reported, those counted in an "and N more" line included, so that
    // `size() == before` tells whether a step found any.
    bool empty() const { return m_count == 0; }
    size_t size() const { return m_count; }
    // The problems kept, and after the last kept one of a kind its "and N more like it" line.
    const std::vector<Diagnostic>& items() const { return m_items; }
    std::string formatAll() const; // one line per item
    // True when some kept diagnostic's message contains the text (used by tests and callers
    // that want to react to one kind of problem).
    bool contains(const std::string& text) const;

private:
    struct Kind {
        size_t kept = 0;
        size_t more = 0;
        size_t summary = size_t(-1); // index in m_items of the "and N more" line
    };
    void add(Diagnostic d);
    void fold(const std::string& kindKey, const Diagnostic& d, size_t count);

    std::vector<Diagnostic> m_items;
    std::vector<size_t> m_more;        // per item: 0 for a problem, N for an "and N more" line
    std::vector<std::string> m_kindOf; // per item: its kind's key
    std::unordered_map<std::string, Kind> m_kinds;
    size_t m_count = 0;
};

} // namespace cs
