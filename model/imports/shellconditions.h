#pragma once
// The tests of if/elif: [ ... ], [[ ... ]] and test, on values already expanded, with three
// outcomes: a test on what only the script's run knows is Unknown.

#include <string>
#include <string_view>
#include <vector>

namespace cs::shell {

enum class Truth { False, True, Unknown };

Truth both(Truth a, Truth b);
Truth either(Truth a, Truth b);
Truth truth(bool b);

// "*" and "?" as in [[ $X == pattern ]].
bool globMatch(std::string_view text, std::string_view pattern);

// The arguments of one test without its brackets: "-n X", "X == Y", "X -lt Y", "! ..." ...
Truth evaluateTest(const std::vector<std::string>& args);

} // namespace cs::shell
