#pragma once
// The text of a shell script as the reader keeps it: each character with the file, line and
// column it was written at, so that a flag built from a variable points at the line that set it.

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "importreport.h"

namespace cs::shell {

struct Pos {
    int file = 0; // an index into the files read
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

// The place of `p` among the files read, in the order they were read.
inline SourcePlace placeOf(Pos p, const std::vector<std::string>& files)
{
    SourcePlace at;
    if (p.file >= 0 && size_t(p.file) < files.size())
        at.file = files[size_t(p.file)];
    at.line = p.line;
    at.column = p.column;
    return at;
}

inline bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

inline bool isNameStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

inline bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

inline bool isOperatorChar(char c)
{
    return c == '|' || c == '&' || c == '<' || c == '>';
}

inline bool isBlank(const std::string& s)
{
    return std::all_of(s.begin(), s.end(), isSpace);
}

} // namespace cs::shell
