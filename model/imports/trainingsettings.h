#pragma once
// The settings of a Megatron-Core training run under Megatron-LM's argument names (num_layers,
// tensor_model_parallel_size, fp8_format ...), as a launch script's flags or a NeMo config's keys
// give them, and the run description of formats.md they make. Megatron's own defaults and
// rules are applied (the FFN width, the vocabulary padding, the virtual pipeline size, the
// order ranks are laid out in), each one noted.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "importreport.h"

namespace cs {

struct Setting {
    std::vector<std::string> values; // the words given; a switch has none or "true"/"false"
    SourcePlace place;
};

using TrainingSettings = std::map<std::string, Setting>;

// Where the settings came from, for the messages and the run's name.
struct SettingsOrigin {
    std::string runName;
    std::string description; // "a Megatron-LM launch command", "a NeMo config"
    SourcePlace start;       // where a missing setting is reported
    // How the source spells a setting: "--num-layers" or "num_layers".
    std::string (*spell)(const std::string& name) = nullptr;
    // The training script a launch runs ("pretrain_gpt.py"): its defaults apply.
    std::string script;
    // A launch's flags: a switch not given is off, as argparse defaults it. A config: what it
    // leaves out, the class it names decides, which is not known here.
    bool switchesOffUnlessGiven = false;
};

// The run description, or nothing with every missing or wrong setting in report.errors. What
// was assumed is in report.notes and in the run's "notes".
std::optional<nlohmann::json> runFromSettings(const TrainingSettings& settings,
                                              const SettingsOrigin& origin, ImportReport& report);

// The settings runFromSettings reads; the importers note any other as ignored. "world_size" is
// the importers' own: the GPU count from the launcher or the trainer.
const std::set<std::string>& knownSettingNames();

// Adds a sentence to the run's "notes".
void appendNote(nlohmann::json& run, const std::string& sentence);

} // namespace cs
