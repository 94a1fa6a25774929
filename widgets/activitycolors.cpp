#include "activitycolors.h"

#include <QObject>
#include <algorithm>
#include <cstring>

namespace {

// Compute in blues and greens, waiting in greys and reds, so that an exposed tail stands out.
constexpr QRgb kForward = 0xff4c8fd6;
constexpr QRgb kBackward = 0xff2e9d6a;
constexpr QRgb kRecompute = 0xff8fc96b;
constexpr QRgb kOptimizer = 0xffb08d57;
constexpr QRgb kBubble = 0xffd9d9d9;
constexpr QRgb kIdle = 0xff6b6f76;
constexpr QRgb kExposed = 0xffc8102e;

constexpr QRgb kDimColors[4] = {
    0xfff0a030, // TP: NVLink
    0xffd45fb0, // CP: NVLink
    0xff36b8c9, // PP: point to point
    0xfff25c2a, // DP: the fabric
};

} // namespace

QColor activityColor(cs::Activity a)
{
    switch (a) {
    case cs::Activity::Idle:
        return QColor::fromRgb(kIdle);
    case cs::Activity::Forward:
        return QColor::fromRgb(kForward);
    case cs::Activity::Backward:
        return QColor::fromRgb(kBackward);
    case cs::Activity::Recompute:
        return QColor::fromRgb(kRecompute);
    case cs::Activity::Bubble:
        return QColor::fromRgb(kBubble);
    case cs::Activity::Communication:
        return QColor::fromRgb(kExposed);
    case cs::Activity::Optimizer:
        return QColor::fromRgb(kOptimizer);
    }
    return QColor::fromRgb(kIdle);
}

QColor dimensionColor(cs::Dim d)
{
    return QColor::fromRgb(kDimColors[size_t(d)]);
}

QColor eventColor(cs::EventKind kind)
{
    switch (kind) {
    case cs::EventKind::Forward:
        return activityColor(cs::Activity::Forward);
    case cs::EventKind::Backward:
        return activityColor(cs::Activity::Backward);
    case cs::EventKind::Recompute:
        return activityColor(cs::Activity::Recompute);
    case cs::EventKind::Optimizer:
        return activityColor(cs::Activity::Optimizer);
    case cs::EventKind::Bubble:
        return activityColor(cs::Activity::Bubble);
    default:
        return dimensionColor(*cs::commDimOf(kind));
    }
}

QColor linkColor(cs::Dim d, double share)
{
    const QColor full = dimensionColor(d);
    // Never fully dark: a link in use at all must differ from an idle one.
    const double k = 0.55 + 0.45 * std::clamp(share, 0.0, 1.0);
    return QColor::fromRgbF(float(full.redF() * k), float(full.greenF() * k),
                            float(full.blueF() * k));
}

QColor breakdownColor(const char* name)
{
    struct Entry {
        const char* name;
        QRgb color;
    };
    static constexpr Entry entries[] = {
        {"compute", kForward},         {"recompute", kRecompute},     {"tp_exposed", kDimColors[0]},
        {"cp_exposed", kDimColors[1]}, {"pp_exposed", kDimColors[2]}, {"bubble", 0xffa8a8a8},
        {"dp_exposed", kDimColors[3]}, {"optimizer", kOptimizer},     {"overhead", kIdle},
    };
    for (const Entry& e : entries)
        if (std::strcmp(e.name, name) == 0)
            return QColor::fromRgb(e.color);
    return QColor::fromRgb(kIdle);
}

std::vector<LegendEntry> activityLegend()
{
    std::vector<LegendEntry> entries;
    for (int i = 0; i < cs::kActivityCount; ++i) {
        const auto a = cs::Activity(i);
        entries.push_back({activityColor(a), QObject::tr(cs::toString(a))});
    }
    return entries;
}

std::vector<LegendEntry> dimensionLegend()
{
    return {
        {dimensionColor(cs::Dim::TP), QObject::tr("TP traffic (NVLink)")},
        {dimensionColor(cs::Dim::CP), QObject::tr("CP traffic")},
        {dimensionColor(cs::Dim::PP), QObject::tr("PP sends (point to point)")},
        {dimensionColor(cs::Dim::DP), QObject::tr("DP traffic (fabric)")},
    };
}
