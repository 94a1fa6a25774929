#pragma once
// A NeMo (1 or 2) or Megatron-Bridge training config, in YAML or JSON: the trainer, model,
// strategy, data, train, ddp and mixed-precision sections, under their key names
// (tensor_model_parallel_size, num_layers, seq_length, micro_batch_size ...), wherever the
// version nests them.

#include <optional>

#include <nlohmann/json.hpp>

#include "importreport.h"

namespace cs {

// The run the config describes. A file whose first character is '{' is read as JSON, any other
// as YAML.
std::optional<nlohmann::json> importNemo(const SourceText& config, ImportReport& report);

} // namespace cs
