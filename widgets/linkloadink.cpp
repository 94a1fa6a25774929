#include "linkloadink.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "linkloads.h"
#include "text.h"
#include "topology.h"
#include "topologylayout.h"

namespace {

// Palette slot 0: a link that carries nothing; then the load steps.
constexpr uint8_t kIdle = 0;
const QRgb kIdleInk = 0xff4a5260;

uint8_t stepOf(double utilization, double top)
{
    return uint8_t(1 + std::clamp(int(utilization / top * kLoadSteps), 0, kLoadSteps - 1));
}

QString qtext(const std::string& s)
{
    return QString::fromStdString(s);
}

// For each switch, the bundles whose lower end holds it.
std::vector<std::vector<int>> bundlesBySwitch(const TopologyLayout& layout)
{
    std::vector<std::vector<int>> out(layout.topology().switches().size());
    const auto& bundles = layout.bundles();
    for (size_t b = 0; b < bundles.size(); ++b)
        for (int s : bundles[b].lowerSwitches)
            out[size_t(s)].push_back(int(b));
    return out;
}

// The bundle a link is drawn in far out; -1 for NVLink.
int bundleOfLink(const TopologyLayout& layout, const std::vector<std::vector<int>>& bySwitch,
                 int link)
{
    const cs::Topology& topo = layout.topology();
    const cs::Link& l = topo.links()[size_t(link)];
    if (l.cls == cs::LinkClass::NVLink)
        return -1;
    if (l.cls == cs::LinkClass::ScaleOut1)
        return layout.bundleOfGpuLink(topo.nics()[size_t(l.a.index)].firstGpu);
    for (int b : bySwitch[size_t(l.a.index)]) {
        const auto& upper = layout.bundles()[size_t(b)].upperSwitches;
        if (std::binary_search(upper.begin(), upper.end(), l.b.index))
            return b;
    }
    return -1;
}

} // namespace

double loadScaleTop(const cs::StepTraffic& traffic)
{
    double busiest = 0;
    for (const cs::LinkTraffic& t : traffic.links)
        busiest = std::max(busiest, t.utilization);
    for (double decade = 0.001; decade < 1; decade *= 10)
        for (double m : {1.0, 2.0, 5.0})
            if (busiest <= m * decade + 1e-12)
                return m * decade;
    return 1.0;
}

QColor loadColor(double fractionOfTop)
{
    // Blue through yellow to red: quiet links recede, hot ones stand out on either hall.
    static const QColor stops[] = {QColor(0x31, 0x68, 0xb0), QColor(0x4f, 0xb0, 0xc6),
                                   QColor(0xf2, 0xe0, 0x5a), QColor(0xf0, 0x8a, 0x2c),
                                   QColor(0xe0, 0x2a, 0x2a)};
    constexpr int last = int(std::size(stops)) - 1;
    const double x = std::clamp(fractionOfTop, 0.0, 1.0) * last;
    const int i = std::min(last - 1, int(x));
    const double f = x - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor(int(std::lround(a.red() + f * (b.red() - a.red()))),
                  int(std::lround(a.green() + f * (b.green() - a.green()))),
                  int(std::lround(a.blue() + f * (b.blue() - a.blue()))));
}

std::vector<int> bundleOfEachLink(const TopologyLayout& layout)
{
    const auto bySwitch = bundlesBySwitch(layout);
    std::vector<int> out(layout.topology().links().size());
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = bundleOfLink(layout, bySwitch, int(i));
    return out;
}

std::vector<BundleLoad> bundleLoads(const TopologyLayout& layout, const cs::StepTraffic& traffic)
{
    const cs::Topology& topo = layout.topology();
    std::vector<BundleLoad> loads(layout.bundles().size());
    std::vector<int> usable(loads.size(), 0);
    const std::vector<int> bundleOf = bundleOfEachLink(layout);
    for (size_t i = 0; i < topo.links().size(); ++i) {
        const int b = bundleOf[i];
        if (b < 0)
            continue;
        BundleLoad& load = loads[size_t(b)];
        const cs::LinkTraffic& t = traffic.links[i];
        load.bytes += t.bytes;
        load.utilization = std::max(load.utilization, t.utilization);
        usable[size_t(b)] += topo.linkUsable(int(i)) ? 1 : 0;
    }
    for (size_t b = 0; b < loads.size(); ++b)
        loads[b].down = usable[b] == 0;
    return loads;
}

std::vector<uint8_t> usableBundles(const TopologyLayout& layout)
{
    const cs::Topology& topo = layout.topology();
    std::vector<uint8_t> usable(layout.bundles().size(), 0);
    const std::vector<int> bundleOf = bundleOfEachLink(layout);
    for (size_t i = 0; i < topo.links().size(); ++i) {
        const int b = bundleOf[i];
        if (b >= 0 && topo.linkUsable(int(i)))
            usable[size_t(b)] = 1;
    }
    return usable;
}

LinkInk linkLoadInk(const TopologyLayout& layout, const cs::StepTraffic& traffic)
{
    const cs::Topology& topo = layout.topology();
    const double top = loadScaleTop(traffic);
    LinkInk ink;
    ink.palette.push_back(kIdleInk);
    for (int s = 0; s < kLoadSteps; ++s)
        ink.palette.push_back(loadColor((s + 0.5) / kLoadSteps).rgb());
    ink.link.resize(topo.links().size(), kIdle);
    ink.sw.assign(topo.switches().size(), kIdle);
    ink.nvSwitch.assign(topo.nvSwitches().size(), kIdle);
    std::vector<double> swLoad(topo.switches().size(), -1), nvLoad(topo.nvSwitches().size(), -1);
    for (size_t i = 0; i < topo.links().size(); ++i) {
        const cs::LinkTraffic& t = traffic.links[i];
        ink.link[i] = t.bytes > 0 ? stepOf(t.utilization, top) : kIdle;
        if (t.bytes <= 0)
            continue;
        const cs::Link& l = topo.links()[i];
        for (const cs::Endpoint& e : {l.a, l.b}) {
            if (e.kind == cs::EndpointKind::Switch)
                swLoad[size_t(e.index)] = std::max(swLoad[size_t(e.index)], t.utilization);
            else if (e.kind == cs::EndpointKind::NvSwitch)
                nvLoad[size_t(e.index)] = std::max(nvLoad[size_t(e.index)], t.utilization);
        }
    }
    for (size_t s = 0; s < swLoad.size(); ++s)
        ink.sw[s] = swLoad[s] < 0 ? kIdle : stepOf(swLoad[s], top);
    for (size_t s = 0; s < nvLoad.size(); ++s)
        ink.nvSwitch[s] = nvLoad[s] < 0 ? kIdle : stepOf(nvLoad[s], top);
    for (const BundleLoad& b : bundleLoads(layout, traffic))
        ink.bundle.push_back(b.bytes > 0 ? stepOf(b.utilization, top) : kIdle);
    return ink;
}

QString utilizationText(double utilization)
{
    return QStringLiteral("%1 %").arg(qtext(cs::fixed(utilization * 100, 1)));
}

QString rateText(double bytes, double stepTimeS)
{
    const double GBps = stepTimeS > 0 ? bytes / stepTimeS / 1e9 : 0;
    const std::string number =
        GBps >= 100 ? cs::withThousands(std::llround(GBps)) : cs::fixed(GBps, GBps < 10 ? 2 : 1);
    return QStringLiteral("%1 GB/s").arg(qtext(number));
}

Legend linkLoadLegend(const cs::StepTraffic& traffic)
{
    Legend legend;
    legend.title = QObject::tr("Link load: utilization in the step, up to the busiest link");
    legend.gradient = true;
    const double top = loadScaleTop(traffic);
    for (int s = 0; s <= 4; ++s)
        legend.entries.push_back({loadColor(s / 4.0), utilizationText(top * s / 4)});
    legend.entries.push_back({QColor(kIdleInk), QObject::tr("idle")});
    for (const auto& e : cs::enumTexts(cs::LinkClass{})) {
        const cs::TierTraffic& tier = traffic.tier(e.value);
        if (tier.links == 0)
            continue;
        legend.notes << QObject::tr("%1: %2 links, busiest %3, %4 in all")
                            .arg(QString::fromLatin1(e.label.data(), int(e.label.size())))
                            .arg(qtext(cs::withThousands(tier.links)))
                            .arg(utilizationText(tier.maxUtilization))
                            .arg(rateText(tier.bytes, traffic.stepTimeS));
    }
    legend.notes << QObject::tr("GB/s: averages over the step; far out, a bundle shows its "
                                "busiest link");
    return legend;
}
