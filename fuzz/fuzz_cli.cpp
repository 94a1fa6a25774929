// clusterscope-cli with fuzzed words and fuzzed files. The input is split at NUL bytes: the
// first part is the command line, its words separated by spaces; each further part is the
// content of a file, named by the word "@1", "@2" ... Words lose any '/', so that every path
// is a name in the scratch directory; a search is given at most a second. Every run must end
// with exit 0, 1 or 2 and print nothing a terminal would obey.

#include <fstream>

#include "clirunner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    csfuzz::emptyScratch();
    std::vector<std::string> parts(1);
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0 && parts.size() < 5)
            parts.emplace_back();
        else
            parts.back() += char(data[i]);
    }
    for (size_t f = 1; f < parts.size(); ++f)
        std::ofstream("f" + std::to_string(f) + ".json", std::ios::binary) << parts[f];

    cs::cli::Args args;
    std::istringstream words(parts.front());
    for (std::string word; words >> word;) {
        if (word.size() == 2 && word[0] == '@' && word[1] >= '1' && word[1] <= '4')
            word = "f" + word.substr(1) + ".json";
        std::erase(word, '/');
        args.push_back(word);
    }
    if (!args.empty() && args.front() == "search")
        args.insert(args.end(), {"--max-seconds", "1"});
    csfuzz::runChecked(args);
    return 0;
}
