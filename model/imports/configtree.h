#pragma once
// Configuration trees read from YAML or JSON, each node knowing where it was written.
//
// The YAML reader takes the strict subset NeMo and Megatron-Bridge configs are written in: block
// mappings and sequences by indentation (spaces), plain, single- and double-quoted scalars,
// comments, flow sequences on one line ([1, 2]) and the empty flow mapping {}. Anything else
// (anchors, aliases, tags, block scalars, flow mappings, tabs in indentation, several documents,
// a value running over lines) is refused with its line, not guessed at.

#include <optional>
#include <string>
#include <vector>

#include "importreport.h"

namespace cs {

struct ConfigEntry;

struct ConfigNode {
    enum class Kind { Scalar, Mapping, Sequence };
    Kind kind = Kind::Scalar;
    std::string scalar;  // a scalar's text ("null" for JSON null and an empty YAML value)
    bool quoted = false; // a quoted scalar is a string, never a number, a bool or null
    std::vector<ConfigEntry> entries; // a mapping's, in file order
    std::vector<ConfigNode> items;    // a sequence's
    SourcePlace place;                // where the node was written (for a mapping's value: its key)
};

struct ConfigEntry {
    std::string key;
    ConfigNode value;
};

std::optional<ConfigNode> parseYamlSubset(const SourceText& source, ImportReport& report);

// The tree of a JSON document; nodes are placed by JSON pointer.
std::optional<ConfigNode> parseJsonConfig(const SourceText& source, ImportReport& report);

} // namespace cs
