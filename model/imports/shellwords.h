#pragma once
// A shell script cut into statements and words, quotes and expansions kept as written: the
// reader's first two passes, before anything is expanded.

#include <string>
#include <vector>

#include "shelltext.h"

namespace cs::shell {

// The text between unquoted newlines and semicolons (or a lone "&"), continuation lines joined,
// comments dropped; an array "( ... )" may span lines. An "#SBATCH" line is a statement of its
// own, its options as the text.
struct Statement {
    PosText text;
    bool sbatch = false;
};

std::vector<Statement> splitStatements(const std::string& source, int file);

// A statement split at unquoted blanks; operators (|, ||, &&, >, 2>&1 ...) are words of their
// own. Throws LimitExceeded for a word longer than kMaxValueBytes or brackets nested deeper than
// kMaxNesting.
std::vector<PosText> rawWords(const PosText& statement);

bool isOperatorWord(const PosText& w);

// |, ||, && and |&: between the simple commands of a list.
bool isListOperator(const PosText& w);

// A redirection: ">", ">>", "2>", "2>&", "<", "&>" ...; its target is the next word.
bool isRedirection(const PosText& w);

} // namespace cs::shell
