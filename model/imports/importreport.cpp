#include "importreport.h"

#include <algorithm>
#include <cctype>

#include "fileio.h"
#include "text.h"

namespace cs {

namespace {

void add(Diagnostics& to, const SourcePlace& at, std::string message)
{
    if (at.line > 0)
        to.atPosition(at.file, at.line, at.column, std::move(message));
    else
        to.atPointer(at.file, at.pointer, std::move(message));
}

} // namespace

void ImportReport::error(const SourcePlace& at, std::string message)
{
    add(errors, at, std::move(message));
}

void ImportReport::note(const SourcePlace& at, std::string message)
{
    add(notes, at, std::move(message));
}

std::optional<SourceText> readSource(const std::string& path, ImportReport& report)
{
    std::optional<std::string> text = readFileText(path, report.errors);
    if (!text)
        return std::nullopt;
    return SourceText{path, validUtf8(std::move(*text))};
}

std::vector<std::string_view> textLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const size_t end = std::min(text.find('\n'), text.size());
        std::string_view line = text.substr(0, end);
        if (line.ends_with('\r'))
            line.remove_suffix(1);
        lines.push_back(line);
        text.remove_prefix(std::min(end + 1, text.size()));
    }
    return lines;
}

std::string asSentence(std::string text)
{
    if (!text.empty())
        text[0] = char(std::toupper(static_cast<unsigned char>(text[0])));
    return text + ".";
}

} // namespace cs
