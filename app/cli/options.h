#pragma once
// The one way clusterscope-cli's commands read their words: each command declares its
// positional arguments and options once (CommandSpec), and that declaration parses the words,
// refuses what it does not know, and prints the command's --help and usage line.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "clicommands.h"

namespace cs::cli {

// What an option's value names: parseCommand refuses an output that is one of the inputs.
enum class FileRole { None, Input, Output };

struct OptionSpec {
    std::string_view name;  // "--top"
    std::string_view value; // "N" for an option with a value; empty for a flag
    std::string_view help;
    std::string_view alias = {}; // "-o"
    FileRole file = FileRole::None;
    bool many = false; // takes every word after it up to the next option ("--beside RUN...")
};

struct CommandSpec {
    std::string_view name;       // "evaluate"
    std::string_view positional; // "CLUSTER RUN"
    size_t minPositional = 0;
    size_t maxPositional = 0; // SIZE_MAX: any number
    std::vector<OptionSpec> options;
    std::string_view summary;       // one line, for the command list
    std::string_view description;   // paragraphs, for --help
    size_t firstFilePositional = 0; // positional arguments from this one on are files read

    std::string synopsis() const; // "evaluate CLUSTER RUN [--json] [--calibration FILE]"
};

class ParsedArgs {
public:
    std::vector<std::string> positional;

    bool has(std::string_view option) const;
    std::optional<std::string> value(std::string_view option) const;
    std::vector<std::string> values(std::string_view option) const; // each one given, in order

    // Typed values of options; each prints a usage problem and returns nothing when the value
    // is not what the option takes. Absent options give `fallback`.
    std::optional<int> positiveInt(std::string_view option, int fallback, Io io) const;
    std::optional<double> positiveNumber(std::string_view option, double fallback, Io io) const;

private:
    friend std::variant<ParsedArgs, int> parseCommand(const CommandSpec&, const Args&, Io);
    const CommandSpec* m_spec = nullptr;
    std::vector<std::pair<std::string, std::string>> m_options; // name, value ("" for flags)
};

// The command's words parsed, or the exit status to return: 0 after --help, 2 after a usage
// problem (printed with the usage line), among them an output that is one of the inputs.
std::variant<ParsedArgs, int> parseCommand(const CommandSpec& spec, const Args& args, Io io);

// The option every command that evaluates takes: constants in place of the built-in ones.
inline const OptionSpec kCalibrationOption{
    "--calibration",
    "FILE",
    "the cost model's constants from FILE (clusterscope-cli calibrate)",
    {},
    FileRole::Input};

// The moment `seconds` (a --max-seconds value) after `start`; past a billion seconds, a
// billion seconds.
std::chrono::steady_clock::time_point deadlineAfter(std::chrono::steady_clock::time_point start,
                                                    double seconds);

// Prints "clusterscope-cli COMMAND: problem" and the usage line; returns kExitUsage.
int usageProblem(const CommandSpec& spec, const std::string& problem, Io io);

} // namespace cs::cli
