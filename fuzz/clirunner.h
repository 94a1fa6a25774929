#pragma once
// clusterscope-cli driven from a fuzz target: files in a scratch directory that is the working
// directory, the command's words, and the checks every run must pass whatever it was given.

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "clicommands.h"
#include "fuzzutil.h"

namespace csfuzz {

// A scratch directory made once per process and emptied before each input; the process works
// in it, so the files a command writes (trace -o, import -o) stay inside.
inline const std::filesystem::path& scratch()
{
    static const std::filesystem::path dir = [] {
        std::string pattern = (std::filesystem::temp_directory_path() / "cs-fuzz-XXXXXX").string();
        require(::mkdtemp(pattern.data()) != nullptr, "no scratch directory");
        require(::chdir(pattern.c_str()) == 0, "cannot work in the scratch directory");
        return std::filesystem::path(pattern);
    }();
    return dir;
}

inline void emptyScratch()
{
    for (const auto& entry : std::filesystem::directory_iterator(scratch()))
        std::filesystem::remove_all(entry.path());
}

// What a terminal would obey: control characters other than the newline, and the C1 controls
// (U+0080..U+009F, two bytes in UTF-8). Everything from a file or a word is printed escaped.
inline bool printsRaw(const std::string& text)
{
    for (size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if ((c < 0x20 && c != '\n') || c == 0x7F || (c == 0xC2 && next >= 0x80 && next <= 0x9F))
            return true;
    }
    return false;
}

// Runs the command; its status is one of formats.md's and nothing it prints is raw.
inline int runChecked(const cs::cli::Args& args)
{
    std::ostringstream out, err;
    const int status = cs::cli::run(args, {out, err});
    require(status == cs::cli::kExitOk || status == cs::cli::kExitBadInput ||
                status == cs::cli::kExitUsage,
            "an exit status outside 0, 1, 2");
    require(!printsRaw(out.str()) && !printsRaw(err.str()),
            ("a control character printed raw:\n" + out.str() + err.str()).c_str());
    return status;
}

} // namespace csfuzz
