#pragma once
// How much of a shell script the reader takes on, in one place. A launch script is a few
// kilobytes and builds one command line of a few hundred words; these limits are far above that,
// and keep a hostile script (a value doubled again and again, an array appended to itself,
// ${A:-${A:-...}} nested deep, megabytes of continuation lines) to bounded time and memory.
// Reaching one refuses the script, naming the line that did.

#include <cstddef>
#include <string>

namespace cs::shell {

// The largest script read (each of the files of one import).
inline constexpr size_t kMaxScriptBytes = size_t(1) << 20;

// The most bytes of one word, as written or expanded, and of one variable's value (an array's
// elements together).
inline constexpr size_t kMaxValueBytes = size_t(64) << 10;

// The most elements of one array; NAME[i]= sets indexes below it.
inline constexpr size_t kMaxArrayElements = 4096;

// The most bytes of one command's words together.
inline constexpr size_t kMaxCommandBytes = size_t(256) << 10;

// ${...}, $(...) and ( ... ) nested in one another, and expansions within expansions.
inline constexpr int kMaxNesting = 16;

// All the text a read copies out of variables and into commands, together: the reader's work.
inline constexpr size_t kMaxExpandedBytes = size_t(16) << 20;

// What each element or word copied counts against kMaxExpandedBytes besides its bytes: copying
// many short ones is work too.
inline constexpr size_t kCopiedElementBytes = 64;

// The most commands a read finds (those of "bash -c" strings included): a launch script runs a
// few dozen.
inline constexpr size_t kMaxCommands = 10000;

// Arithmetic's operators and parentheses nested in one another: $(( -(-(1)) )).
inline constexpr int kMaxArithmeticNesting = 64;

// The text times the pattern of a [[ X == PATTERN ]] test matched (the matching's work); a
// larger test is left to the script's run.
inline constexpr size_t kMaxPatternWork = size_t(1) << 24;

// Thrown where a limit is reached, deep inside splitting or expansion; the reader catches it at
// the statement and refuses the script with the statement's line. Unwinding stops all the
// nested work at once.
struct LimitExceeded {
    std::string message;
};

} // namespace cs::shell
