#pragma once
// The kinds of layer a model has (dense or mixture-of-experts, full or sliding-window
// attention) and which of its layers are of which kind: the cost model costs each kind once.

#include <vector>

#include "description.h"

namespace cs {

struct LayerKind {
    bool moe = false;     // experts instead of a dense MLP
    bool sliding = false; // sliding-window attention
    bool operator==(const LayerKind&) const = default;
};
// Which layers of a model are of which kind: leading dense layers then experts, sliding-window
// attention on every n-th layer. Counts in a range of layers are closed-form, so that a
// pipeline chunk's layers are summed by kind without a pass over them.
struct LayerKinds {
    int layers = 0;
    int denseLayers = 0;  // before the first expert layer: all of them in a dense model
    int slidingEvery = 0; // 0: no sliding-window layer
    bool operator==(const LayerKinds&) const = default;

    LayerKind kindAt(int index) const;
    int count(LayerKind kind, int first, int end) const; // of the layers [first, end)
    std::vector<LayerKind> present() const;              // by first layer
};
LayerKinds layerKindsOf(const ModelShape& model);

} // namespace cs
