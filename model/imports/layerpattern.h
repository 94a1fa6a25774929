#pragma once
// A per-layer pattern as Megatron-LM's --moe-layer-freq and --window-attn-skip-freq take it: a
// Python list expression of whole numbers, "([0]*3+[1]*58)", "[1,1,0]", "([1]*3+[0])*12".

#include <optional>
#include <string>
#include <vector>

namespace cs {

// Each layer's number; nothing when the text is not such an expression or runs past 65,536.
std::optional<std::vector<int>> evaluateLayerPattern(const std::string& text);

} // namespace cs
