#pragma once
// The "link load" colouring: every link, bundle, switch and NVSwitch in a sequential colour of
// its utilization in the step (linkloads.h). Far out a bundle stands for its tier's links
// between a rack or block of switches and the tier above; it takes its busiest usable link's
// colour, so that hot links stand out at data-hall zoom. Out of service is drawn apart (the
// renderer's dashed lines and crossed switches), whatever the mode.

#include <QColor>
#include <QString>
#include <cstdint>
#include <vector>

#include "gpucolors.h"

namespace cs {
struct StepTraffic;
class Topology;
} // namespace cs
class TopologyLayout;

// The colour of each link, bundle and switch as an index into a small palette, so that the
// renderer batches one line list per colour. An empty palette: the ink's tier colours.
struct LinkInk {
    std::vector<QRgb> palette;
    std::vector<uint8_t> link;     // per topology link
    std::vector<uint8_t> bundle;   // per layout bundle
    std::vector<uint8_t> sw;       // per scale-out switch: its busiest link
    std::vector<uint8_t> nvSwitch; // per NVSwitch: its busiest NVLink
    bool empty() const { return palette.empty(); }
};

inline constexpr int kLoadSteps = 10;

// The top of the colour scale: the busiest link's utilization rounded up to 1, 2 or 5 times a
// power of ten (at most 100 %), so that the hottest links stand out however busy the step is.
double loadScaleTop(const cs::StepTraffic& traffic);
// A fraction of the scale's top, 0..1, on the sequential scale (cool and quiet to hot).
QColor loadColor(double fractionOfTop);

// The busiest usable link of each bundle (utilization) and what the bundle moves in the step.
struct BundleLoad {
    double utilization = 0;
    double bytes = 0;
    bool down = false; // every link of it out of service
};
std::vector<BundleLoad> bundleLoads(const TopologyLayout& layout, const cs::StepTraffic& traffic);

// Per topology link, the bundle it is drawn in far out; -1 for NVLink.
std::vector<int> bundleOfEachLink(const TopologyLayout& layout);

// Per bundle: 1 when some link of it is in service.
std::vector<uint8_t> usableBundles(const TopologyLayout& layout);

LinkInk linkLoadInk(const TopologyLayout& layout, const cs::StepTraffic& traffic);
// The scale with its units, and per tier: links, busiest, GB/s over the step.
Legend linkLoadLegend(const cs::StepTraffic& traffic);
// "42 %" and "1,234 GB/s": a link's utilization and its average rate over the step.
QString utilizationText(double utilization);
QString rateText(double bytes, double stepTimeS);
