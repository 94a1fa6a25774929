#pragma once
// The importers' output held to the loader's rules before anyone keeps it: a description an
// importer writes must load. formats.md's newer fields, which the loader does not read yet, are
// set aside for the check (importcheck.cpp lists them).

#include <nlohmann/json.hpp>

#include "importreport.h"

namespace cs {

// False, with every broken rule as an error at `at`, when the run would not load or breaks the
// shape rules (heads divisible by tp, layers at least pp x vp ...).
bool checkImportedRun(const nlohmann::json& run, const SourcePlace& at, ImportReport& report);

bool checkImportedCluster(const nlohmann::json& cluster, const SourcePlace& at,
                          ImportReport& report);

} // namespace cs
