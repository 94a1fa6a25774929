#include "options.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>

#include "fileio.h"
#include "text.h"

namespace cs::cli {

namespace {

const OptionSpec* findOption(const CommandSpec& spec, std::string_view word)
{
    for (const OptionSpec& o : spec.options)
        if (o.name == word || (!o.alias.empty() && o.alias == word))
            return &o;
    return nullptr;
}

void printHelp(const CommandSpec& spec, std::ostream& out)
{
    out << "Usage: clusterscope-cli " << spec.synopsis() << "\n\n" << spec.description << "\n";
    if (spec.options.empty())
        return;
    out << "\nOptions:\n";
    for (const OptionSpec& o : spec.options) {
        std::string name(o.name);
        if (!o.alias.empty())
            name = std::string(o.alias) + ", " + name;
        if (!o.value.empty())
            name += " " + std::string(o.value);
        out << "  " << name << std::string(name.size() < 22 ? 22 - name.size() : 1, ' ') << o.help
            << "\n";
    }
    out << "  -h, --help            this text\n";
}

// The first output option whose file is one of the files the command reads, as a problem.
std::optional<std::string>
outputOverInput(const CommandSpec& spec, const std::vector<std::string>& positional,
                const std::vector<std::pair<std::string, std::string>>& options)
{
    std::vector<std::string> inputs;
    for (size_t i = spec.firstFilePositional; i < positional.size(); ++i)
        inputs.push_back(positional[i]);
    const auto roleOf = [&](const std::string& name) {
        const OptionSpec* option = findOption(spec, name);
        return option ? option->file : FileRole::None;
    };
    for (const auto& [name, value] : options)
        if (roleOf(name) == FileRole::Input)
            inputs.push_back(value);
    for (const auto& [name, value] : options)
        if (roleOf(name) == FileRole::Output)
            if (const std::optional<std::string> input = inputWrittenBy(value, inputs))
                return name + " " + writesOverInput(value, *input);
    return std::nullopt;
}

std::string positionalProblem(const CommandSpec& spec)
{
    if (spec.maxPositional == 0)
        return "takes no file arguments";
    return "expected " + std::string(spec.positional);
}

} // namespace

std::string CommandSpec::synopsis() const
{
    std::string text(name);
    if (!positional.empty())
        text += " " + std::string(positional);
    for (const OptionSpec& o : options) {
        text += " [" + std::string(o.alias.empty() ? o.name : o.alias);
        if (!o.value.empty())
            text += " " + std::string(o.value);
        text += "]";
    }
    return text;
}

bool ParsedArgs::has(std::string_view option) const
{
    for (const auto& [name, value] : m_options)
        if (name == option)
            return true;
    return false;
}

std::optional<std::string> ParsedArgs::value(std::string_view option) const
{
    std::optional<std::string> found;
    for (const auto& [name, value] : m_options)
        if (name == option)
            found = value; // the last one given wins
    return found;
}

std::vector<std::string> ParsedArgs::values(std::string_view option) const
{
    std::vector<std::string> found;
    for (const auto& [name, value] : m_options)
        if (name == option)
            found.push_back(value);
    return found;
}

std::optional<int> ParsedArgs::positiveInt(std::string_view option, int fallback, Io io) const
{
    const std::optional<std::string> text = value(option);
    if (!text)
        return fallback;
    size_t used = 0;
    try {
        const long long n = std::stoll(*text, &used);
        if (used == text->size() && n > 0 && n <= std::numeric_limits<int>::max())
            return int(n);
    } catch (const std::exception&) {
    }
    usageProblem(*m_spec,
                 std::string(option) + " needs a positive whole number, got " + inQuotes(*text),
                 io);
    return std::nullopt;
}

std::optional<double> ParsedArgs::positiveNumber(std::string_view option, double fallback,
                                                 Io io) const
{
    const std::optional<std::string> text = value(option);
    if (!text)
        return fallback;
    size_t used = 0;
    try {
        const double x = std::stod(*text, &used);
        if (used == text->size() && std::isfinite(x) && x > 0)
            return x;
    } catch (const std::exception&) {
    }
    usageProblem(*m_spec, std::string(option) + " needs a positive number, got " + inQuotes(*text),
                 io);
    return std::nullopt;
}

std::variant<ParsedArgs, int> parseCommand(const CommandSpec& spec, const Args& args, Io io)
{
    ParsedArgs parsed;
    parsed.m_spec = &spec;
    // "-" alone is a file (standard input or output), not an option.
    const auto isValue = [](const std::string& w) { return w.size() < 2 || w[0] != '-'; };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& word = args[i];
        if (word == "--help" || word == "-h") {
            printHelp(spec, io.out);
            return kExitOk;
        }
        if (isValue(word)) {
            parsed.positional.push_back(word);
            continue;
        }
        const OptionSpec* option = findOption(spec, word);
        if (!option)
            return usageProblem(spec, "unknown option " + inQuotes(word), io);
        if (option->value.empty()) {
            parsed.m_options.emplace_back(option->name, "");
            continue;
        }
        if (option->many && i + 1 < args.size() && isValue(args[i + 1])) {
            while (i + 1 < args.size() && isValue(args[i + 1]))
                parsed.m_options.emplace_back(option->name, args[++i]);
            continue;
        }
        if (i + 1 >= args.size() || option->many)
            return usageProblem(
                spec, std::string(option->name) + " needs " + std::string(option->value), io);
        parsed.m_options.emplace_back(option->name, args[++i]);
    }
    if (parsed.positional.size() < spec.minPositional ||
        parsed.positional.size() > spec.maxPositional)
        return usageProblem(spec, positionalProblem(spec), io);
    if (const auto problem = outputOverInput(spec, parsed.positional, parsed.m_options))
        return usageProblem(spec, *problem, io);
    return parsed;
}

std::chrono::steady_clock::time_point deadlineAfter(std::chrono::steady_clock::time_point start,
                                                    double seconds)
{
    return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(std::min(seconds, 1e9)));
}

int usageProblem(const CommandSpec& spec, const std::string& problem, Io io)
{
    io.err << "clusterscope-cli " << spec.name << ": " << problem << "\nUsage: clusterscope-cli "
           << spec.synopsis() << "\n";
    return kExitUsage;
}

} // namespace cs::cli
