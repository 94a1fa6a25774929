#include "layerkinds.h"

#include <algorithm>

namespace cs {

LayerKinds layerKindsOf(const ModelShape& model)
{
    LayerKinds p;
    p.layers = model.layers;
    p.denseLayers = model.moe ? std::min(model.layers, model.moe->denseLayers) : model.layers;
    const Attention& a = model.attention;
    p.slidingEvery = a.kind == AttentionKind::SlidingWindow ? std::max(1, a.every) : 0;
    return p;
}

LayerKind LayerKinds::kindAt(int index) const
{
    return {index >= denseLayers, slidingEvery > 0 && index % slidingEvery == 0};
}

int LayerKinds::count(LayerKind kind, int first, int end) const
{
    if (kind.moe)
        first = std::max(first, denseLayers);
    else
        end = std::min(end, denseLayers);
    if (end <= first)
        return 0;
    if (slidingEvery == 0)
        return kind.sliding ? 0 : end - first;
    auto multiplesBelow = [this](int n) { return (n + slidingEvery - 1) / slidingEvery; };
    const int sliding = multiplesBelow(end) - multiplesBelow(first);
    return kind.sliding ? sliding : end - first - sliding;
}

std::vector<LayerKind> LayerKinds::present() const
{
    // Each kind first appears at one of these layers.
    const int firstSlidingExpert =
        slidingEvery > 0 ? (denseLayers + slidingEvery - 1) / slidingEvery * slidingEvery : 0;
    std::vector<int> firsts{0, 1, denseLayers, denseLayers + 1, firstSlidingExpert};
    std::sort(firsts.begin(), firsts.end());
    std::vector<LayerKind> found;
    for (int i : firsts) {
        if (i >= layers)
            break;
        const LayerKind kind = kindAt(i);
        if (std::find(found.begin(), found.end(), kind) == found.end())
            found.push_back(kind);
    }
    return found;
}

} // namespace cs
